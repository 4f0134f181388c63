// --namespace-selector: only Services in the target's Namespaces the selector selects are mirrored (the controller watches those
// Namespaces, server-side filtered); a namespace that stops matching loses its mirrors as an unexport would, and one that starts matching
// gets them.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import type { Selection } from "../../src/mirror/sources/target-health.ts";
import { selectionCondition } from "../../src/serve/link-health.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { recordingLog } from "../helpers/log.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";
import { cached, list, startController } from "./harness.ts";

// The controller's client for the target may only do what the remote-access table grants (namespaces
// list/watch with the setting), so a call outside it fails these tests.

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

const mirrors = () =>
  [...list(pair.west, "services", "ns1"), ...list(pair.west, "services", "ns2")]
    .map((s) => `${s.metadata.namespace}/${s.metadata.name}`)
    .sort();

async function exportIn(namespace: string) {
  await pair.eastClient.create(resources.service, remoteService({ namespace }));
  await pair.eastClient.create(resources.endpoints, remoteEndpoints({ namespace }));
}

/** Sets a target Namespace's labels and waits until the controller's view of selected namespaces follows, then drains. */
async function labelNamespace(ctl: MirrorController, name: string, labels: Record<string, string>, selected: boolean) {
  const ns = (await pair.eastClient.get(resources.namespace, undefined, name)) as KubeObject;
  const updated = await pair.eastClient.update(resources.namespace, { ...ns, metadata: { ...ns.metadata, labels } });
  await cached(ctl.informers.remoteNamespaces, updated, !selected);
  await ctl.drain();
}

describe("--namespace-selector", () => {
  test("mirrors only the selected namespaces' Services; a namespace that stops matching loses its mirrors, one that starts gets them", async () => {
    await labelNamespaceNow("ns1", { team: "shop" });
    await exportIn("ns1");
    await exportIn("ns2");
    const ctl = await startController(pair, {}, { settings: { namespaceSelector: "team=shop" } });
    expect(mirrors()).toEqual(["ns1/service-one-east"]);
    await labelNamespace(ctl, "ns2", { team: "shop" }, true);
    expect(mirrors()).toEqual(["ns1/service-one-east", "ns2/service-one-east"]);
    await labelNamespace(ctl, "ns1", { team: "other" }, false);
    expect(mirrors()).toEqual(["ns2/service-one-east"]);
    expect(list(pair.west, "endpoints", "ns1").map((e) => e.metadata.name)).toEqual([]);
  });

  test("what is selected counts only selected namespaces: a namespace selector that selects nothing reads as nothing selected (ServicesSelected, the sync log), and follows namespaces as they start and stop matching", async () => {
    await exportIn("ns1");
    const log = recordingLog();
    const selections: Selection[] = [];
    const ctl = await startController(pair, {}, { log, settings: { namespaceSelector: "team=shop" } }, (c) =>
      c.onHealth((h) => void (h.kind === "selection" && selections.push(h.selection))),
    );
    expect(mirrors()).toEqual([]);
    expect(selections).toEqual([{ selected: false, mirrorsExisted: false, namespaceSelector: "team=shop" }]);
    expect(log.at("info").find((m) => m.startsWith("synced with east:"))).toStartWith("synced with east: 0 exported services,");
    const condition = selectionCondition(selections[0]!, undefined, "east");
    expect(condition).toMatchObject({ status: "False", reason: "NoneExported" });
    expect(condition.message).toContain("--namespace-selector team=shop");

    await labelNamespace(ctl, "ns1", { team: "shop" }, true);
    expect(selections.at(-1)).toEqual({ selected: true, mirrorsExisted: false, namespaceSelector: "team=shop" });
    expect(mirrors()).toEqual(["ns1/service-one-east"]);

    await exportIn("ns2"); // in a namespace not selected: not counted, so unlabelling ns1 leaves nothing selected
    await ctl.drain();

    await labelNamespace(ctl, "ns1", { team: "other" }, false);
    expect(selections.at(-1)).toEqual({ selected: false, mirrorsExisted: true, namespaceSelector: "team=shop" });
    const nothing = selectionCondition(selections.at(-1)!, undefined, "east");
    expect(nothing).toMatchObject({ status: "False", reason: "SelectsNothing" });
    expect(nothing.message).toContain("--namespace-selector team=shop");
    expect(mirrors()).toEqual([]);
  });

  test("without it every namespace is mirrored and the target's Namespaces are never read (Linkerd's)", async () => {
    await exportIn("ns1");
    await exportIn("ns2");
    const ctl = await startController(pair);
    expect(ctl.informers.remoteNamespaces).toBeUndefined();
    expect(mirrors()).toEqual(["ns1/service-one-east", "ns2/service-one-east"]);
  });
});

async function labelNamespaceNow(name: string, labels: Record<string, string>) {
  const ns = (await pair.eastClient.get(resources.namespace, undefined, name)) as KubeObject;
  await pair.eastClient.update(resources.namespace, { ...ns, metadata: { ...ns.metadata, labels } });
}
