// The Link's TargetReachable tells the current cause of an outage, as kube conditions do: when the cause changes while the target stays
// unreachable (its connections reset, then it answers with a certificate of another CA) the message follows, and lastTransitionTime stays
// that of the flip to False. The target is a TCP proxy on one port whose behaviour the test switches.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect as tcpConnect, createServer, type Server, type Socket } from "node:net";
import YAML from "yaml";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { linkResource } from "../../src/model/link.ts";
import { credentialsSecretName } from "../../src/model/names.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";

type Condition = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };

let s: Setup;
let otherCa: Sandbox;
let proxy: Server;
let mode: "reset" | "other-ca" = "reset";
const sockets = new Set<Socket>();
beforeAll(async () => {
  [s, otherCa] = await Promise.all([multiclusterSetup({ startControllers: false }), startSandbox({ name: "other", tls: true })]);
  const otherPort = Number(new URL(otherCa.url).port);
  proxy = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (mode === "reset") return void socket.resetAndDestroy();
    const upstream = tcpConnect(otherPort, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const port = (proxy.address() as { port: number }).port;
  const secret = await s.westClient.get<{ data: Record<string, string> }>(resources.secret, NS, credentialsSecretName("east"));
  const cfg = YAML.parse(Buffer.from(secret.data[L.KUBECONFIG_DATA_KEY]!, "base64").toString());
  cfg.clusters[0].cluster.server = `https://127.0.0.1:${port}`;
  await s.westClient.patch(resources.secret, NS, credentialsSecretName("east"), {
    data: { [L.KUBECONFIG_DATA_KEY]: Buffer.from(YAML.stringify(cfg)).toString("base64") },
  });
}, 30_000);
afterAll(async () => {
  for (const sock of sockets) sock.destroy();
  proxy?.close();
  await Promise.all([s?.stop(), otherCa?.stop()]);
});

const reachable = (o: KubeObject | undefined) =>
  ((o as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? []).find((c) => c.type === "TargetReachable");

test("TargetReachable follows the cause of an outage (reset connections, then another CA): message updated, lastTransitionTime kept", async () => {
  let serving: Serving | undefined;
  try {
    serving = await serve({
      local: s.westClient,
      namespace: NS,
      linkName: "east",
      adminAddr: "127.0.0.1:0",
      leaderElect: false,
      controller: { informerBackoff: { initialMs: 20, maxMs: 100 } },
    });
    await waitFor(
      s.westClient,
      linkResource,
      NS,
      "east",
      (o) => reachable(o)?.status === "False",
      "TargetReachable False while the target resets connections",
      10_000,
    );
    const first = reachable(await s.westClient.get<KubeObject>(linkResource, NS, "east"))!;
    expect(first.reason).toBe("Unreachable");
    expect(first.message).not.toContain("unknown authority");
    mode = "other-ca";
    await waitFor(
      s.westClient,
      linkResource,
      NS,
      "east",
      (o) => reachable(o)?.message.includes("is signed by an unknown authority") ?? false,
      "TargetReachable to name the CA mismatch",
      10_000,
    );
    const now = reachable(await s.westClient.get<KubeObject>(linkResource, NS, "east"))!;
    expect(now).toMatchObject({ status: "False", reason: "Unreachable", lastTransitionTime: first.lastTransitionTime });
    expect(now.message).toContain("the kubeconfig's certificate-authority(-data) is not this server's CA");
  } finally {
    await serving?.stop();
  }
}, 30_000);
