// Mirror names a user chooses: --mirror-name-template and the target's annotation mc-project.io/mirror-name. A name held by anything else —
// a local Service, another Link's mirror, this Link's mirror of another target — is refused, never overwritten, and reported in the Link
// status and an Event; the refused target gets the name once it is free.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";
import { cached, list, read, readEndpoints, readLink, startController } from "./harness.ts";

// Mirrors are found by their labels and annotations (GC, renames, unexport), never by parsing their
// names.

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const NAME = "mc-project.io/mirror-name";
const services = (ns = "ns1") =>
  list(pair.west, "services", ns)
    .map((s) => s.metadata.name)
    .sort();

async function exportOne(name: string, annotations?: Record<string, string>) {
  const svc = await pair.eastClient.create(resources.service, remoteService({ name, ...(annotations && { annotations }) }));
  await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name }));
  return svc;
}

/** The Link status entries: target name → [reason, message]. */
function statusEntries(): Record<string, [string, string]> {
  const status = readLink(pair.west)?.status as
    | { mirrorServices?: Array<{ remoteRef: { name: string }; conditions: Array<{ reason: string; message: string }> }> }
    | undefined;
  return Object.fromEntries(
    (status?.mirrorServices ?? []).map((m) => [m.remoteRef.name, [m.conditions[0]!.reason, m.conditions[0]!.message]]),
  );
}

async function setAnnotations(ctl: MirrorController, name: string, annotations: Record<string, string>) {
  const svc = (await pair.eastClient.get(resources.service, "ns1", name)) as KubeObject;
  const updated = await pair.eastClient.update(resources.service, { ...svc, metadata: { ...svc.metadata, annotations } });
  await cached(ctl.informers.remoteServices, updated);
  await ctl.drain();
}

async function restart(settings: Record<string, unknown>): Promise<MirrorController> {
  await pair.controllers.pop()!.stop();
  await pair.westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
  return startController(pair, {}, { settings });
}

describe("--mirror-name-template", () => {
  test("names every mirror (and a headless mirror's endpoint mirrors) by the template; by default Linkerd's", async () => {
    await exportOne("web");
    await pair.eastClient.create(resources.service, remoteService({ name: "db", headless: true }));
    await pair.eastClient.create(
      resources.endpoints,
      remoteEndpoints({ name: "db", headless: true, ready: [{ ip: "10.0.0.9", hostname: "db-0" }] }),
    );
    await startController(pair, {}, { settings: { mirrorNameTemplate: "{cluster}-{namespace}-{service}", enableHeadlessServices: true } });
    expect(services()).toEqual(["east-ns1-db", "east-ns1-db-0", "east-ns1-web"]);
    expect(readEndpoints(pair.west, "ns1", "east-ns1-web")?.subsets?.[0]?.addresses).toEqual([{ ip: "192.0.2.127" }]);
    expect(read(pair.west, "services", "ns1", "east-ns1-db-0")?.metadata.labels?.["mirror.linkerd.io/headless-mirror-svc-name"]).toBe(
      "east-ns1-db",
    );
  });

  test("a new template renames mirrors: the new name is written first, then the old one and its Endpoints go; unexport and GC find them by annotation", async () => {
    await exportOne("web");
    await exportOne("gone");
    await startController(pair);
    expect(services()).toEqual(["gone-east", "web-east"]);
    await pair.eastClient.delete(resources.service, "ns1", "gone"); // while no controller runs: an orphan at start
    const order: string[] = [];
    pair.west.store.onCommit((e) => {
      if (e.object.kind === "Service" && e.object.metadata.namespace === "ns1") order.push(`${e.type} ${e.object.metadata.name}`);
    });
    const ctl = await restart({ mirrorNameTemplate: "{service}-from-{cluster}" });
    expect(services()).toEqual(["web-from-east"]);
    expect(readEndpoints(pair.west, "ns1", "web-east")).toBeUndefined();
    expect(order.indexOf("ADDED web-from-east")).toBeLessThan(order.indexOf("DELETED web-east"));
    expect(order).toContain("DELETED gone-east");
    const svc = (await pair.eastClient.get(resources.service, "ns1", "web")) as KubeObject;
    const unexported = await pair.eastClient.update(resources.service, { ...svc, metadata: { ...svc.metadata, labels: {} } });
    await cached(ctl.informers.remoteServices, unexported, true);
    await ctl.drain();
    expect(services()).toEqual([]);
  });
});

describe(`the annotation ${NAME}`, () => {
  test("names one target's mirror (a template: {cluster} filled in); changing it renames the mirror", async () => {
    await exportOne("web", { [NAME]: "shop-{cluster}" });
    await exportOne("api");
    const ctl = await startController(pair);
    expect(services()).toEqual(["api-east", "shop-east"]);
    expect(read(pair.west, "services", "ns1", "shop-east")?.metadata.annotations?.[NAME]).toBe("shop-{cluster}");
    await setAnnotations(ctl, "web", { [NAME]: "store" });
    expect(services()).toEqual(["api-east", "store"]);
    expect(readEndpoints(pair.west, "ns1", "shop-east")).toBeUndefined();
    // A new name that is taken is refused, and the mirror under the old one stays as it was.
    const store = read(pair.west, "services", "ns1", "store")!;
    await setAnnotations(ctl, "web", { [NAME]: "api-east" });
    expect(services()).toEqual(["api-east", "store"]);
    expect(read(pair.west, "services", "ns1", "store")?.metadata.resourceVersion).toBe(store.metadata.resourceVersion);
    expect(statusEntries().web).toEqual([
      "Error",
      `Service ns1/api-east is the mirror of ns1/api from east; left alone (name one of them with the annotation ${NAME})`,
    ]);
  });

  test("a name that is no Service name is refused with the annotation named in the Link status and an Event on the target", async () => {
    await exportOne("web", { [NAME]: `${"x".repeat(60)}-{cluster}` });
    await exportOne("api", { [NAME]: "Shop_1" });
    await startController(pair);
    expect(services()).toEqual([]);
    const entries = statusEntries();
    expect(entries.web).toEqual([
      "InvalidService",
      `metadata.annotations[${NAME}]: the mirror name ${"x".repeat(60)}-east would be 65 characters, more than the 63 a Service name may have; shorten the annotation`,
    ]);
    expect(entries.api?.[0]).toBe("InvalidService");
    expect(entries.api?.[1]).toStartWith(
      `metadata.annotations[${NAME}]: "Shop_1" may hold only {service}, {cluster}, {namespace} and lowercase letters, digits and '-'`,
    );
    expect(
      list(pair.east, "events", "ns1")
        .map((e) => (e.involvedObject as { name: string }).name)
        .sort(),
    ).toEqual(["api", "web"]);
  });
});

describe("a name someone else holds is refused, never overwritten", () => {
  test("a local Service: reported in the status and an Event on it; once it is deleted, the mirror is made", async () => {
    const local = await pair.westClient.create<KubeObject>(resources.service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "shop", namespace: "ns1" },
      spec: { ports: [{ port: 80 }] },
    });
    await exportOne("web", { [NAME]: "shop" });
    const ctl = await startController(pair);
    expect(read(pair.west, "services", "ns1", "shop")?.metadata.resourceVersion).toBe(local.metadata.resourceVersion);
    expect(statusEntries().web).toEqual(["Error", "Service ns1/shop exists and is not a mirror of east; left alone"]);
    expect(list(pair.west, "events", "ns1").map((e) => [e.reason, (e.involvedObject as { name: string }).name])).toEqual([
      ["ServiceMirroringSkipped", "shop"],
    ]);
    // The name is claimed by ns1/web: the deletion of the Service holding it requeues that key, no name parsed.
    await pair.westClient.delete(resources.service, "ns1", "shop");
    await cached(ctl.informers.services, local, true);
    await ctl.drain();
    expect(read(pair.west, "services", "ns1", "shop")?.metadata.labels?.["mirror.linkerd.io/cluster-name"]).toBe("east");
    expect(statusEntries().web).toBeUndefined();
  });

  test("another Link's mirror, and this Link's mirror of another target: both refused, named in the status", async () => {
    await pair.westClient.create(resources.service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "north-web",
        namespace: "ns1",
        labels: { "mirror.linkerd.io/mirrored-service": "true", "mirror.linkerd.io/cluster-name": "north" },
      },
      spec: { ports: [{ port: 80 }] },
    });
    await exportOne("web", { [NAME]: "north-web" });
    await exportOne("a", { [NAME]: "same" });
    await exportOne("b", { [NAME]: "same" });
    const ctl = await startController(pair);
    expect(services()).toEqual(["north-web", "same"]);
    expect(read(pair.west, "services", "ns1", "north-web")?.metadata.labels?.["mirror.linkerd.io/cluster-name"]).toBe("north");
    const holder = read(pair.west, "services", "ns1", "same")!.metadata.annotations?.["mirror.linkerd.io/remote-svc-fq-name"];
    const [winner, loser] = holder === "a.ns1.svc.cluster.local" ? ["a", "b"] : ["b", "a"];
    const entries = statusEntries();
    expect(entries.web).toEqual(["Error", "Service ns1/north-web exists and is not a mirror of east; left alone"]);
    expect(entries[loser!]).toEqual([
      "Error",
      `Service ns1/same is the mirror of ns1/${winner} from east; left alone (name one of them with the annotation ${NAME})`,
    ]);
    expect(entries[winner!]).toBeUndefined();
    // The holder unexported: its mirror goes, and the other target gets the name.
    const gone = read(pair.east, "services", "ns1", winner!)!;
    const held = read(pair.west, "services", "ns1", "same")!;
    await pair.eastClient.delete(resources.service, "ns1", winner!);
    await cached(ctl.informers.remoteServices, gone, true);
    await ctl.drain();
    // The mirror's deletion, seen by the informer, requeues the key that wants its name — during the
    // drain above when the event came in time (the name is then already re-taken), else now.
    if (ctl.informers.services.cache.get("ns1", "same")?.metadata.uid === held.metadata.uid)
      await cached(ctl.informers.services, held, true);
    await ctl.drain();
    expect(read(pair.west, "services", "ns1", "same")?.metadata.annotations?.["mirror.linkerd.io/remote-svc-fq-name"]).toBe(
      `${loser}.ns1.svc.cluster.local`,
    );
    expect(statusEntries()[loser!]).toBeUndefined();
  }, 15_000); // four exports, two controllers' worth of drains: room on a loaded machine
});
