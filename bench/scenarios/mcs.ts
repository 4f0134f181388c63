// The Multi-Cluster Services import's latency: a ServiceExport created in east → its ServiceImport in west, and the export deleted → the
// import gone, one Service at a time, on two sandboxes with the Link's controller (its MCS importer) in this process. The conformance suite
// allows 20 s for either; mc's target is a p99 under 1 s.
import { connectKubeconfigText, resources, type KubeObject } from "../../src/kube/index.ts";
import { renderLinkCrd, renderMcsCrds } from "../../src/manifests/crd.ts";
import { mcsResources } from "../../src/mcs/api.ts";
import { MirrorController } from "../../src/mirror/controller.ts";
import { parseLink } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE, LINK_API_VERSION } from "../../src/model/names.ts";
import { startSandbox } from "../../src/sandbox/index.ts";
import type { StoreEvent } from "../../src/sandbox/storage/watch-hub.ts";
import { number, say, type Scenario } from "../lib/scenario.ts";
import { ms, quantile } from "../lib/stats.ts";

// Seen from west's store, so the figure is the controller's watch, merge and writes, not a poll.

const NAMESPACE = "shop";
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function measure(samples: number): Promise<{ visible: number[]; gone: number[] }> {
  const [east, west] = await Promise.all([startSandbox({ name: "east" }), startSandbox({ name: "west" })]);
  const eastClient = await connectKubeconfigText(east.kubeconfig, "kubeconfig east", { name: "east" });
  const westClient = await connectKubeconfigText(west.kubeconfig, "kubeconfig west", { name: "west" });
  for (const c of [eastClient, westClient]) {
    for (const crd of [renderLinkCrd("mc/bench"), ...renderMcsCrds("mc/bench")])
      await c.create(resources.customResourceDefinition, crd as unknown as KubeObject);
    for (const ns of [NAMESPACE, DEFAULT_NAMESPACE])
      await c.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  }
  const link = parseLink({
    apiVersion: LINK_API_VERSION,
    kind: "Link",
    metadata: { name: "east", namespace: DEFAULT_NAMESPACE },
    spec: {
      targetClusterName: "east",
      targetClusterDomain: "cluster.local",
      clusterCredentialsSecret: "cluster-credentials-east",
      gatewayAddress: "192.0.2.1",
      gatewayPort: "4143",
      gatewayIdentity: "gw",
      selector: { matchLabels: { none: "true" } },
    },
  });
  const ctl = new MirrorController({ link, namespace: DEFAULT_NAMESPACE, local: westClient, remote: eastClient, log: quiet });
  ctl.start();
  await ctl.mcs?.ready;
  if (ctl.mcs?.state.on !== true) throw new Error(`the MCS import is off: ${JSON.stringify(ctl.mcs?.state)}`);
  // When west stores each import, and when it deletes it.
  const waiting = new Map<string, { type: "ADDED" | "DELETED"; resolve: () => void }>();
  const off = west.store.onCommit((e: StoreEvent) => {
    if (e.object.kind !== "ServiceImport") return;
    const w = waiting.get(e.object.metadata.name ?? "");
    if (w && w.type === e.type) {
      waiting.delete(e.object.metadata.name ?? "");
      w.resolve();
    }
  });
  const seen = (name: string, type: "ADDED" | "DELETED") =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no ${type} ServiceImport in 20 s (the suite's limit)`)), 20_000);
      waiting.set(name, { type, resolve: () => (clearTimeout(timer), resolve()) });
    });
  const visible: number[] = [];
  const gone: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const name = `svc-${i}`;
      await eastClient.create(resources.service, {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: NAMESPACE },
        spec: { ports: [{ name: "http", port: 80, protocol: "TCP" }] },
      } as KubeObject);
      const added = seen(name, "ADDED");
      let t = performance.now();
      await eastClient.create(mcsResources.serviceExport, {
        apiVersion: mcsResources.serviceExport.apiVersion,
        kind: "ServiceExport",
        metadata: { name, namespace: NAMESPACE },
      });
      await added;
      visible.push(performance.now() - t);
      const deleted = seen(name, "DELETED");
      t = performance.now();
      await eastClient.delete(mcsResources.serviceExport, NAMESPACE, name);
      await deleted;
      gone.push(performance.now() - t);
    }
  } finally {
    off();
    await ctl.stop();
    await Promise.all([east.stop(), west.stop()]);
  }
  return { visible, gone };
}

export const mcs: Scenario = {
  name: "mcs",
  diagnostic: true,
  title: "MCS import: ServiceExport created in east → ServiceImport in west, and deleted → gone (p99, target < 1 s)",
  flags: {
    samples: { default: "200", description: "Services exported and unexported, one at a time" },
  },
  async run(flags) {
    const samples = number("samples", flags.samples!);
    const { visible, gone } = await measure(samples);
    const row = (what: string, xs: number[]) => [
      what,
      String(xs.length),
      ms(quantile(xs, 0.5)),
      ms(quantile(xs, 0.99)),
      ms(Math.max(...xs)),
    ];
    const p99Visible = quantile(visible, 0.99);
    const p99Gone = quantile(gone, 0.99);
    say(`export → import visible p99 ${ms(p99Visible)}, unexport → import gone p99 ${ms(p99Gone)} (${samples} samples)`);
    return {
      tables: [
        {
          headers: ["", "samples", "p50", "p99", "max"],
          rows: [row("export → import visible", visible), row("unexport → import gone", gone)],
        },
      ],
      targets: [
        { name: "export → import visible, p99", want: "< 1 s", got: ms(p99Visible), met: p99Visible < 1000 },
        { name: "unexport → import gone, p99", want: "< 1 s", got: ms(p99Gone), met: p99Gone < 1000 },
      ],
      figures: { samples, visible, gone },
      notes: [
        "In one process: both sandboxes and the Link's controller. Timed from the ServiceExport's create (delete) answer to west's store committing the ServiceImport (its deletion).",
      ],
    };
  },
};
