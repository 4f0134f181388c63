// Linkerd's cluster_watcher_headless_test.go: TestHeadlessEndpointMirrorCleanupRespectsNamespaces
// (linkerd/linkerd2#15201). Two namespaces hold the same-named headless target and so the
// same-named endpoint mirrors; a change, or an unexport, in one must not touch the other's.
import { afterEach, describe, expect, test } from "bun:test";
import { resources, type KubeObject } from "../../../src/kube/index.ts";
import type { Pair } from "../../helpers/clusters.ts";
import { cached } from "../harness.ts";
import {
  clusterIPOf,
  endpointMirrorService,
  endpointPorts,
  EXPORTED,
  expectEndpoints,
  expectService,
  headlessMirrorEndpoints,
  IDENTITY,
  mirrorNames,
  ports,
  remoteHeadlessEndpoints,
  remoteService,
  runEnvironment,
  rvOf,
} from "./linkerd.ts";

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

const p = endpointPorts(["port1", 555]);
const both = () =>
  runEnvironment({
    localNamespaces: ["ns1", "ns2"],
    remote: ["ns1", "ns2"].flatMap((ns) => [
      remoteService("service-one", ns, EXPORTED, ports(["port1", 555]), true),
      remoteHeadlessEndpoints("service-one", ns, "10.0.0.1", ["pod-0"], p),
    ]),
  });
const ns2Untouched = (env: Awaited<ReturnType<typeof both>>) => {
  expectService(env.pair, endpointMirrorService("pod-0", "service-one-remote", "ns2", rvOf(env.remote, "Endpoints", "ns2", "service-one")));
  expectEndpoints(env.pair, headlessMirrorEndpoints("service-one-remote", "ns2", {}, ["pod-0"], IDENTITY, p, clusterIPOf(env.pair, "ns2")));
};

describe("TestHeadlessEndpointMirrorCleanupRespectsNamespaces", () => {
  test("OnUpdateEndpointsCalled headless endpoint mirror GC is scoped to the appropriate namespace", async () => {
    const env = await both();
    pair = env.pair;
    const current = await pair.eastClient.get<KubeObject>(resources.endpoints, "ns1", "service-one");
    const updated = await pair.eastClient.update<KubeObject>(resources.endpoints, {
      ...current,
      subsets: remoteHeadlessEndpoints("service-one", "ns1", "10.0.0.1", ["pod-1"], p).subsets,
    });
    await cached(env.ctl.informers.remoteEndpoints, updated);
    await env.ctl.drain();
    expect(mirrorNames(pair, "ns1")).toEqual(["ns1/pod-1-remote", "ns1/service-one-remote"]);
    expect(mirrorNames(pair, "ns2")).toEqual(["ns2/pod-0-remote", "ns2/service-one-remote"]);
    ns2Untouched(env);
  });

  test("RemoteServiceUnexported headless endpoint mirror GC is scoped to the appropriate namespace", async () => {
    const env = await both();
    pair = env.pair;
    const unexported = await pair.eastClient.patch<KubeObject>(resources.service, "ns1", "service-one", {
      metadata: { labels: { "mirror.linkerd.io/exported": null } },
    });
    await cached(env.ctl.informers.remoteServices, unexported, true);
    await env.ctl.drain();
    expect(mirrorNames(pair, "ns1")).toEqual([]);
    expect(mirrorNames(pair, "ns2")).toEqual(["ns2/pod-0-remote", "ns2/service-one-remote"]);
    ns2Untouched(env);
  });
});
