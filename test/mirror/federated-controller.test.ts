// Federated services with the controllers running for real: east and north (two Links) and the local mirror federate `web` into west.
// Whatever order they start in, and while all write at once (no retries allowed: the requeue limit is 0, so a lost update would stay lost),
// west ends with one `web-federated` listing every member; a member leaving, a Link deleted and the last one out are followed.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { resources, waitForObject, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import { MirrorController } from "../../src/mirror/controller.ts";
import { membersOf } from "../../src/model/federated.ts";
import { LinkDirectory } from "../../src/mirror/federated/link-directory.ts";
import { linkResource, parseLink, type Link } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { parseLabelSelector } from "../../src/model/selector.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { linkObject, MEMBER, remoteService } from "./fixtures.ts";
import { recordingLog, type RecordingLog } from "../helpers/log.ts";
import { clientFor, ensureNamespaces } from "../helpers/clusters.ts";
import { quiet } from "./harness.ts";

// Three sandboxes, real clients, every wait on a watch.

const NS = DEFAULT_NAMESPACE;
let sandboxes: Record<"east" | "north" | "west", Sandbox>;
let clients: Record<"east" | "north" | "west", KubeClient>;
let running: MirrorController[] = [];
let directory: LinkDirectory;

beforeAll(async () => {
  const [east, north, west] = await Promise.all(["east", "north", "west"].map((name) => startSandbox({ name })));
  sandboxes = { east: east!, north: north!, west: west! };
  clients = { east: await clientFor(east!), north: await clientFor(north!), west: await clientFor(west!) };
  await clients.west.create(resources.customResourceDefinition, renderLinkCrd("mc/test") as unknown as KubeObject);
  for (const c of [clients.east, clients.north, clients.west]) await ensureNamespaces(c, ["ns1"]);
  await ensureNamespaces(clients.west, [NS]);
  directory = new LinkDirectory({ client: clients.west, namespace: NS }).start();
  await directory.synced;
});
afterAll(async () => {
  await directory.stop();
  await Promise.all(Object.values(sandboxes).map((s) => s.stop()));
});
afterEach(async () => {
  await Promise.all(running.map((c) => c.stop()));
  running = [];
  for (const c of Object.values(clients)) {
    for (const svc of (await c.list<KubeObject>(resources.service, { namespace: "ns1" })).items)
      await c.delete(resources.service, "ns1", svc.metadata.name!);
  }
  for (const l of (await clients.west.list<KubeObject>(linkResource, { namespace: NS })).items)
    await clients.west.delete(linkResource, NS, l.metadata.name!);
});

async function createLink(cluster: "east" | "north"): Promise<Link> {
  const obj = linkObject({ cluster, gatewayAddress: "", probe: null, selector: null, federatedServiceSelector: { matchLabels: MEMBER } });
  return parseLink(await clients.west.create(linkResource, obj));
}

/** A running controller: east or north with their Link, or (`local`) the local mirror. */
function controller(which: "east" | "north" | "local", link?: Link, log: RecordingLog | typeof quiet = quiet): MirrorController {
  const local = which === "local";
  const l: Link = link ?? localLink();
  const ctl = new MirrorController({
    link: l,
    namespace: NS,
    local: clients.west,
    remote: local ? clients.west : clients[which],
    links: directory,
    settings: { eventRequeueLimit: 0 },
    log,
    queueBackoff: { initialMs: 5, maxMs: 20 },
  });
  running.push(ctl);
  return ctl;
}

function localLink(): Link {
  const l = parseLink(linkObject({ cluster: "x", gatewayAddress: "", probe: null, selector: null }));
  return { ...l, name: "local", targetClusterName: "", federatedServiceSelector: parseLabelSelector("mirror.linkerd.io/federated=member") };
}

const member = (name = "web", labels: Record<string, string> = MEMBER) =>
  remoteService({ name, labels, ports: [{ name: "http", port: 80 }] });

function untilMembers(name: string, want: string[] | undefined): Promise<unknown> {
  const norm = (obj: KubeObject | undefined) =>
    obj ? [...membersOf(obj.metadata).remote, ...(membersOf(obj.metadata).local ? ["local"] : [])].sort().join(",") : undefined;
  return waitForObject(
    clients.west,
    resources.service,
    "ns1",
    `${name}-federated`,
    (o) => norm(o) === (want && [...want].sort().join(",")),
    {
      what: `${name}-federated with members ${want ?? "(deleted)"}`,
      timeoutMs: 5000,
    },
  );
}

describe("federated services across two Links and the local cluster", () => {
  test.each([
    ["east first", ["east", "north"]],
    ["north first", ["north", "east"]],
  ])("%s: one web-federated with both members, metadata from the older Link", async (_, order) => {
    const links: Record<string, Link> = {};
    for (const c of order) links[c] = await createLink(c as "east" | "north");
    await clients.east.create(resources.service, member("web", { ...MEMBER, from: "east" }));
    await clients.north.create(resources.service, member("web", { ...MEMBER, from: "north" }));
    for (const c of order) {
      controller(c as "east" | "north", links[c]).start();
      await untilMembers(
        "web",
        order.slice(0, order.indexOf(c) + 1).map((x) => `web@${x}`),
      );
    }
    const oldest = [...order].sort(
      (a, b) => links[a]!.creationTimestamp!.localeCompare(links[b]!.creationTimestamp!) || a.localeCompare(b),
    )[0];
    await waitForObject(clients.west, resources.service, "ns1", "web-federated", (o) => o?.metadata.labels?.from === oldest, {
      what: `labels of ${oldest}`,
      timeoutMs: 5000,
    });
  });

  test("twenty Services federated by east, north and the local mirror all at once: no member is lost (no retries allowed)", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `svc-${i}`);
    const east = await createLink("east");
    const north = await createLink("north");
    await Promise.all(
      names.flatMap((n) => [
        clients.east.create(resources.service, member(n)),
        clients.north.create(resources.service, member(n)),
        clients.west.create(resources.service, member(n)),
      ]),
    );
    const logs = [recordingLog(), recordingLog(), recordingLog()];
    const ctls = [controller("east", east, logs[0]), controller("north", north, logs[1]), controller("local", undefined, logs[2])];
    for (const c of ctls) c.start();
    await Promise.all(names.map((n) => untilMembers(n, [`${n}@east`, `${n}@north`, "local"])));
    for (const c of ctls) await c.drain();
    // Writes did collide, and every collision was settled by reading again, never by the queue giving up.
    expect(logs.flatMap((l) => l.at("debug")).filter((m) => m.includes("changed under us")).length).toBeGreaterThan(0);
    expect(logs.flatMap((l) => l.at("warn"))).toEqual([]);
    for (const n of names)
      expect(membersOf((await clients.west.get<KubeObject>(resources.service, "ns1", `${n}-federated`)).metadata).remote.sort()).toEqual([
        `${n}@east`,
        `${n}@north`,
      ]);
  });

  test("a member leaving, a Link deleted, the last one out; the Link status lists the memberships", async () => {
    const east = await createLink("east");
    const north = await createLink("north");
    await clients.east.create(resources.service, member());
    await clients.north.create(resources.service, member());
    await clients.west.create(resources.service, member());
    const [e] = [controller("east", east), controller("north", north), controller("local")].map((c) => c.start());
    await untilMembers("web", ["web@east", "web@north", "local"]);
    await waitForObject(
      clients.west,
      linkResource,
      NS,
      "east",
      (l) => (l?.status as { federatedServices?: unknown[] } | undefined)?.federatedServices?.length === 1,
      { what: "east's status", timeoutMs: 5000 },
    );
    const status = (await clients.west.get<KubeObject>(linkResource, NS, "east")).status as {
      federatedServices: Array<{ remoteRef: unknown; conditions: Array<{ status: string; reason: string; localRef: unknown }> }>;
    };
    expect(status.federatedServices[0]).toMatchObject({
      remoteRef: { name: "web", namespace: "ns1" },
      conditions: [{ status: "True", reason: "Mirrored", localRef: { name: "web-federated", namespace: "ns1" } }],
    });

    // east's web leaves (its federated label goes).
    const web = await clients.east.get<KubeObject>(resources.service, "ns1", "web");
    await clients.east.update(resources.service, { ...web, metadata: { ...web.metadata, labels: {} } });
    await untilMembers("web", ["web@north", "local"]);
    await waitForObject(
      clients.west,
      linkResource,
      NS,
      "east",
      (l) => (l?.status as { federatedServices?: unknown[] } | undefined)?.federatedServices === undefined,
      { what: "east's status to drop web", timeoutMs: 5000 },
    );

    // north's Link is deleted: its controller would stop; the others drop its member.
    await clients.west.delete(linkResource, NS, "north");
    await untilMembers("web", ["local"]);

    // The local member leaves: the last one out deletes the federated Service.
    await clients.west.delete(resources.service, "ns1", "web");
    await untilMembers("web", undefined);
    expect(e).toBeDefined();
  });

  test("a headless member is refused with InvalidService in the Link status", async () => {
    const east = await createLink("east");
    await clients.east.create(resources.service, remoteService({ name: "db", labels: MEMBER, headless: true }));
    controller("east", east).start();
    await waitForObject(
      clients.west,
      linkResource,
      NS,
      "east",
      (l) =>
        (l?.status as { federatedServices?: Array<{ conditions: Array<{ reason: string }> }> } | undefined)?.federatedServices?.[0]
          ?.conditions[0]?.reason === "InvalidService",
      {
        what: "InvalidService in east's status",
        timeoutMs: 5000,
      },
    );
    expect(
      await clients.west.list(resources.service, { namespace: "ns1", fieldSelector: "metadata.name=db-federated" }).then((l) => l.items),
    ).toEqual([]);
  });
});
