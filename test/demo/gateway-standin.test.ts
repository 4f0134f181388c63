// The gateway probe of `mc sandbox --linkerd`: it follows the gateway Service through the API and
// answers its probe path where a probe of that Service arrives.
import { afterAll, describe, expect, test } from "bun:test";
import { applyObjects } from "../../src/demo/apply.ts";
import { fakeLinkerd } from "../../src/demo/fake-linkerd.ts";
import { probeTarget, startGatewayStandIn, type GatewayStandIn } from "../../src/demo/gateway-standin.ts";
import { renderInstall } from "../../src/manifests/install.ts";
import { PROBE_PATH } from "../../src/model/labels.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { recordingLog } from "../helpers/log.ts";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A port nothing listens on right now. */
function freePort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

function install(sb: Sandbox, probePort: number, serviceType: "LoadBalancer" | "NodePort" = "LoadBalancer") {
  const objects = renderInstall({
    namespace: "linkerd-multicluster",
    linkerdNamespace: "linkerd",
    trustDomain: "cluster.local",
    gateway: { serviceType, port: 4143, probePort, probeSeconds: 3, replicas: 1, ha: false },
    remoteAccessAccounts: ["linkerd-service-mirror-remote-access-default"],
    version: "0.0.0-test",
  });
  applyObjects(sb, objects);
}

const gatewayType = (sb: Sandbox) => sb.api.registry.find("", "v1", "services")!;

async function started(): Promise<{ sb: Sandbox; standIn: GatewayStandIn; log: ReturnType<typeof recordingLog> }> {
  const sb = await startSandbox({ name: "east" });
  fakeLinkerd(sb);
  const log = recordingLog();
  const standIn = await startGatewayStandIn(sb.kubeconfig, "east", log);
  cleanups.push(async () => {
    await standIn.stop();
    await sb.stop();
  });
  return { sb, standIn, log };
}

/** Resolves once the stand-in answers `want` ("" = nothing). */
function answering(standIn: GatewayStandIn, want: string): Promise<void> {
  if (standIn.answering === want) return Promise.resolve();
  return new Promise((resolve) => {
    const off = standIn.onChange((now) => {
      if (now !== want) return;
      off();
      resolve();
    });
  });
}

const status = async (url: string) => {
  try {
    return (await fetch(url)).status;
  } catch {
    return "refused";
  }
};

describe("the sandbox's gateway probe", () => {
  test("answers nothing before mc install, then the probe path on loopback at the mc-probe port (the load balancer's 192.0.2.1 is data, never contacted), saying how to point mc serve at it", async () => {
    const { sb, standIn, log } = await started();
    expect(standIn.answering).toBe("");
    const port = freePort();
    install(sb, port);
    await answering(standIn, `127.0.0.1:${port}/ready`);
    expect(await status(`http://127.0.0.1:${port}/ready`)).toBe(200);
    expect(await status(`http://127.0.0.1:${port}/live`)).toBe(404);
    expect(log.at("info")).toEqual([
      `gateway probe answered at 127.0.0.1:${port}/ready (point mc serve at it: --probe-address 127.0.0.1:${port})`,
    ]);
    expect(
      (sb.store.get(gatewayType(sb), "linkerd-multicluster", "linkerd-gateway")!.status as { loadBalancer: unknown }).loadBalancer,
    ).toEqual({ ingress: [{ ip: "192.0.2.1", ipMode: "VIP" }] });
  });

  test("follows the Service to another port and path, and stops when it is deleted", async () => {
    const { sb, standIn } = await started();
    const first = freePort();
    install(sb, first);
    await answering(standIn, `127.0.0.1:${first}/ready`);
    const svc = structuredClone(sb.store.get(gatewayType(sb), "linkerd-multicluster", "linkerd-gateway")!);
    const second = freePort();
    const spec = svc.spec as { ports: { name: string; port: number }[] };
    spec.ports.find((p) => p.name === "mc-probe")!.port = second;
    svc.metadata.annotations = { ...svc.metadata.annotations, [PROBE_PATH]: "/healthz" };
    sb.api.update(gatewayType(sb), "linkerd-multicluster", "linkerd-gateway", svc, { fieldManager: "test" });
    await answering(standIn, `127.0.0.1:${second}/healthz`);
    expect(await status(`http://127.0.0.1:${second}/healthz`)).toBe(200);
    expect(await status(`http://127.0.0.1:${first}/ready`)).toBe("refused");
    sb.api.delete(gatewayType(sb), "linkerd-multicluster", "linkerd-gateway");
    await answering(standIn, "");
    expect(await status(`http://127.0.0.1:${second}/healthz`)).toBe("refused");
  });

  test("an address another process holds is said once, as a warning, and nothing is answered", async () => {
    const { sb, standIn, log } = await started();
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else", { status: 503 }) });
    cleanups.push(() => holder.stop(true));
    const change = new Promise<string>((resolve) => {
      const off = standIn.onChange((now) => {
        off();
        resolve(now);
      });
    });
    install(sb, holder.port!);
    expect(await change).toBe("");
    expect(log.at("warn")).toEqual([
      `gateway probe cannot listen at 127.0.0.1:${holder.port}/ready (EADDRINUSE: another sandbox's gateway there?): probes of east's gateway will fail`,
    ]);
    expect(standIn.answering).toBe("");
    expect(await status(`http://127.0.0.1:${holder.port}/ready`)).toBe(503);
  });

  test("where the stand-in answers: 127.0.0.1 on the probe port once the load balancer has an address, on a NodePort's node port, nowhere for ClusterIP", () => {
    const ports = [
      { name: "mc-gateway", port: 4143, nodePort: 30001 },
      { name: "mc-probe", port: 4191, nodePort: 30002 },
    ];
    const lb = { ingress: [{ hostname: "gw.example" }, { ip: "192.0.2.7" }] };
    expect(probeTarget({ metadata: {}, spec: { type: "LoadBalancer", ports }, status: { loadBalancer: lb } })).toEqual({
      hostname: "127.0.0.1",
      port: 4191,
      path: "/ready",
    });
    expect(
      probeTarget({
        metadata: {},
        spec: { type: "LoadBalancer", ports },
        status: { loadBalancer: { ingress: [{ hostname: "gw.example" }] } },
      }),
    ).toEqual({ hostname: "127.0.0.1", port: 4191, path: "/ready" });
    expect(probeTarget({ metadata: {}, spec: { type: "LoadBalancer", ports }, status: { loadBalancer: {} } })).toBeUndefined();
    expect(probeTarget({ metadata: { annotations: { [PROBE_PATH]: "/health" } }, spec: { type: "NodePort", ports } })).toEqual({
      hostname: "127.0.0.1",
      port: 30002,
      path: "/health",
    });
    expect(probeTarget({ metadata: {}, spec: { type: "ClusterIP", ports } })).toBeUndefined();
    expect(probeTarget({ metadata: {}, spec: { type: "LoadBalancer", ports: [ports[0]!] }, status: { loadBalancer: lb } })).toBeUndefined();
  });
});
