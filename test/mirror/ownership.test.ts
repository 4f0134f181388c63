// Mirror ownership by Link uid (docs/decisions.md#d47): renaming a Link's target (spec.targetClusterName east → north → east) leaks no
// mirror. Every mirror object carries the uid of the Link that made it; the controller of the new name deletes what the Link made under the
// old one (mirrors and probe-gateway-<old>), never another Link's, and `mc unlink` lists them too.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { planUnlink } from "../../src/linker/unlink.ts";
import { adoptMirrors } from "../../src/mirror/adopt.ts";
import { renamedSelector } from "../../src/mirror/renamed.ts";
import { createWriter } from "../../src/kube/index.ts";
import { createMetrics } from "../../src/metrics.ts";
import { parseLink } from "../../src/model/link.ts";
import type { LinkSupervisor } from "../../src/serve/supervisor.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { matchesLabels, parseLabelSelector } from "../../src/model/selector.ts";

import { credentialsSecret, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { linkSupervisor, list, nextController, quiet } from "../mirror/harness.ts";

// A Link deleted and made again adopts the mirrors its predecessor made (their uid is relabelled), so
// a later rename or unlink leaves nothing behind.

const UID = "mirror.linkerd.io/link-uid";
let pair: Pair;
let sup: LinkSupervisor | undefined;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  await sup?.stop();
  sup = undefined;
  await pair.stop();
});

function supervise(): LinkSupervisor {
  sup = linkSupervisor(pair);
  return sup;
}

async function renameTarget(cluster: string): Promise<KubeObject> {
  await pair.westClient.patch(linkResource, DEFAULT_NAMESPACE, "east", { status: {} }, { subresource: "status" });
  return pair.westClient.patch<KubeObject>(linkResource, DEFAULT_NAMESPACE, "east", { spec: { targetClusterName: cluster } });
}

/** Every mirror-made object in west: `Kind ns/name`. */
const made = () =>
  [
    ...list(pair.west, "services").map((o) => ["Service", o] as const),
    ...list(pair.west, "endpoints").map((o) => ["Endpoints", o] as const),
  ]
    .filter(([, o]) => o.metadata.labels?.["mirror.linkerd.io/cluster-name"])
    .map(([kind, o]) => `${kind} ${o.metadata.namespace}/${o.metadata.name}`)
    .sort();

describe("renaming a Link's target", () => {
  test("east → north → east leaves only the east mirrors; every object the controller made carries the Link's uid; another Link's mirrors stay", async () => {
    await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: "web" }));
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    const link = await pair.westClient.create(linkResource, linkObject());
    // Another Link's mirror (of a cluster this Link never targets): the sweep never deletes what another uid made.
    const foreign = { [UID]: "another-link", "mirror.linkerd.io/cluster-name": "south", "mirror.linkerd.io/mirrored-service": "true" };
    await pair.westClient.create(resources.service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "other-south", namespace: "ns1", labels: foreign },
      spec: { ports: [{ port: 80 }] },
    });

    const s = supervise();
    let started = nextController(s);
    s.start();
    await started;
    const east = ["Endpoints linkerd-multicluster/probe-gateway-east", "Endpoints ns1/web-east", "Service ns1/web-east"];
    expect(made()).toEqual([...east, "Service ns1/other-south"].sort());
    for (const [plural, ns, name] of [
      ["services", "ns1", "web-east"],
      ["endpoints", "ns1", "web-east"],
      ["endpoints", DEFAULT_NAMESPACE, "probe-gateway-east"],
    ] as const) {
      expect(pair.west.store.get({ group: "", plural }, ns, name)!.metadata.labels![UID]).toBe(link.metadata.uid!);
    }

    started = nextController(s);
    await renameTarget("north");
    await (await started).drain();
    expect(made()).toEqual([
      "Endpoints linkerd-multicluster/probe-gateway-north",
      "Endpoints ns1/web-north",
      "Service ns1/other-south",
      "Service ns1/web-north",
    ]);

    started = nextController(s);
    await renameTarget("east");
    await (await started).drain();
    expect(made()).toEqual([...east, "Service ns1/other-south"].sort());
  });

  test("a mirror of an earlier name that appears after the start (a late write of the old controller) goes at the next refresh", async () => {
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    const link = await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    const started = nextController(s);
    s.start();
    const ctl = await started;
    await ctl.drain();
    // After the start's sweep: written by a controller of north that had not yet stopped.
    const late = { [UID]: link.metadata.uid!, "mirror.linkerd.io/cluster-name": "north", "mirror.linkerd.io/mirrored-service": "true" };
    await pair.westClient.create(resources.service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web-north", namespace: "ns1", labels: late },
      spec: { ports: [{ port: 80 }] },
    });
    await ctl.drain();
    expect(made()).toContain("Service ns1/web-north");
    await ctl.refresh();
    await ctl.drain();
    expect(made()).not.toContain("Service ns1/web-north");
    expect(made()).toContain("Endpoints linkerd-multicluster/probe-gateway-east");
  });

  test("mc unlink of the Link also lists what it made under an earlier name", async () => {
    await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: "web" }));
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    let started = nextController(s);
    s.start();
    await started;
    started = nextController(s);
    await renameTarget("north");
    await started;
    await s.stop(); // no controller of the new name runs: the north mirrors stay
    sup = undefined;
    await renameTarget("east");

    const plan = await planUnlink(pair.westClient, {
      clusterName: "east",
      namespace: DEFAULT_NAMESPACE,
      linkerdNamespace: "linkerd",
      onlyController: false,
    });
    const listed = plan.objects.map((r) => `${r.kind} ${r.namespace}/${r.name}`);
    for (const want of ["Service ns1/web-north", "Endpoints ns1/web-north", "Endpoints linkerd-multicluster/probe-gateway-north"])
      expect(listed).toContain(want);
  });
});

describe("a Link deleted and made again", () => {
  test("(kubectl delete link, then mc link | kubectl apply) adopts its mirrors: a rename then leaves nothing of the old name, and mc unlink lists what it made", async () => {
    await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
    await pair.eastClient.create(resources.endpoints, remoteEndpoints({ name: "web" }));
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    const first = await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    let started = nextController(s);
    s.start();
    await started;
    const east = ["Endpoints linkerd-multicluster/probe-gateway-east", "Endpoints ns1/web-east", "Service ns1/web-east"];
    expect(made()).toEqual(east);

    await pair.westClient.delete(linkResource, DEFAULT_NAMESPACE, "east");
    started = nextController(s);
    const second = await pair.westClient.create(linkResource, linkObject());
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    await (await started).drain();
    for (const [plural, ns, name] of [
      ["services", "ns1", "web-east"],
      ["endpoints", "ns1", "web-east"],
      ["endpoints", DEFAULT_NAMESPACE, "probe-gateway-east"],
    ] as const) {
      expect(pair.west.store.get({ group: "", plural }, ns, name)!.metadata.labels![UID]).toBe(second.metadata.uid!);
    }
    const plan = await planUnlink(pair.westClient, {
      clusterName: "east",
      namespace: DEFAULT_NAMESPACE,
      linkerdNamespace: "linkerd",
      onlyController: false,
    });
    for (const want of east) expect(plan.objects.map((r) => `${r.kind} ${r.namespace}/${r.name}`)).toContain(want);

    started = nextController(s);
    await renameTarget("north");
    await (await started).drain();
    expect(made()).toEqual(["Endpoints linkerd-multicluster/probe-gateway-north", "Endpoints ns1/web-north", "Service ns1/web-north"]);
  });

  test("only mirrors of this target name whose Link no longer exists are relabelled; a live Link's, another name's and this Link's own are left as they are", async () => {
    const current = parseLink(await pair.westClient.create(linkResource, linkObject()));
    const live = await pair.westClient.create(linkResource, linkObject({ cluster: "south" }));
    const labels = (cluster: string, uid: string) => ({
      [UID]: uid,
      "mirror.linkerd.io/cluster-name": cluster,
      "mirror.linkerd.io/mirrored-service": "true",
    });
    const svc = (name: string, l: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "ns1", labels: l },
      spec: { ports: [{ port: 80 }] },
    });
    await pair.westClient.create(resources.service, svc("dead-east", labels("east", "deleted-link")));
    await pair.westClient.create(resources.endpoints, {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "dead-east", namespace: "ns1", labels: labels("east", "deleted-link") },
    });
    await pair.westClient.create(resources.service, svc("live-east", labels("east", live.metadata.uid!)));
    await pair.westClient.create(resources.service, svc("dead-north", labels("north", "deleted-link")));
    await pair.westClient.create(resources.service, svc("own-east", labels("east", current.uid!)));
    const before = pair.west.store.get({ group: "", plural: "services" }, "ns1", "own-east")!.metadata.resourceVersion;
    const o = {
      local: pair.westClient,
      writer: createWriter(pair.westClient),
      link: current,
      namespace: DEFAULT_NAMESPACE,
      metrics: createMetrics(),
      log: quiet,
    };
    expect(await adoptMirrors(o)).toBe(2);
    const uidOf = (plural: "services" | "endpoints", name: string) =>
      pair.west.store.get({ group: "", plural }, "ns1", name)!.metadata.labels![UID];
    expect([uidOf("services", "dead-east"), uidOf("endpoints", "dead-east")]).toEqual([current.uid!, current.uid!]);
    expect(uidOf("services", "live-east")).toBe(live.metadata.uid!);
    expect(uidOf("services", "dead-north")).toBe("deleted-link");
    expect(pair.west.store.get({ group: "", plural: "services" }, "ns1", "own-east")!.metadata.resourceVersion).toBe(before);
    expect(await adoptMirrors(o)).toBe(0); // nothing left to adopt: no write
  });
});

describe("the sweep's selector", () => {
  test("needs the cluster-name label: an object with the Link's uid but no cluster name is no mirror of an earlier name", () => {
    const sel = parseLabelSelector(renamedSelector({ uid: "u1", targetClusterName: "east" })!);
    expect(matchesLabels(sel, { [UID]: "u1", "mirror.linkerd.io/cluster-name": "north" })).toBe(true);
    expect(matchesLabels(sel, { [UID]: "u1", "mirror.linkerd.io/cluster-name": "east" })).toBe(false);
    expect(matchesLabels(sel, { [UID]: "u1" })).toBe(false);
    expect(matchesLabels(sel, { [UID]: "u2", "mirror.linkerd.io/cluster-name": "north" })).toBe(false);
    expect(renamedSelector({ targetClusterName: "east" })).toBeUndefined();
  });
});
