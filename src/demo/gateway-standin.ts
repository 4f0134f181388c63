// The gateway's probe endpoint for `mc sandbox --linkerd`. A sandbox's pods run nothing, so the gateway Deployment `mc install` applies
// never answers the controller's probe; this plays its proxy's admin port.
import { Informer, connectKubeconfigText, resources, type KubeObject } from "../kube/index.ts";
import { ingressAddresses, type GatewayServiceLike } from "../linker/gateway.ts";
import { logger, type Logger } from "../log.ts";
import { PROBE_PATH } from "../model/labels.ts";
import { DEFAULT_NAMESPACE, GATEWAY_NAME, PROBE_PORT_NAME } from "../model/names.ts";
import { listenProbe } from "./gateway.ts";

// It watches the gateway Service (linkerd-multicluster/linkerd-gateway) through the sandbox's API, as
// a kubelet would watch its pods, and answers the Service's probe path on loopback: 127.0.0.1 on the
// mc-probe port (on its nodePort for a NodePort Service). The gateway's own address (the sandbox load
// balancer's 192.0.2.1) is data only, never contacted: the controller is pointed here with `mc serve
// --probe-address 127.0.0.1:<port>`. It follows the Service as it changes and stops when it is
// deleted. Two sandboxes with a gateway on the same probe port compete for one loopback port: the
// first keeps it and the other says so once.

export interface GatewayStandIn {
  /** `host:port/path` being answered, or "" (no gateway Service, or its address is taken). */
  readonly answering: string;
  /** Told after every change of what is answered. */
  onChange(listener: (answering: string) => void): () => void;
  stop(): Promise<void>;
}

export interface ProbeTarget {
  hostname: string;
  port: number;
  path: string;
}

/** Where the stand-in answers the probe of this gateway Service (loopback), or undefined when nothing outside could reach it. */
export function probeTarget(svc: GatewayServiceLike): ProbeTarget | undefined {
  const port = svc.spec?.ports?.find((p) => p.name === PROBE_PORT_NAME);
  const path = svc.metadata.annotations?.[PROBE_PATH] || "/ready";
  const type = svc.spec?.type ?? "ClusterIP";
  if (type === "LoadBalancer")
    return ingressAddresses(svc).length > 0 && port?.port ? { hostname: "127.0.0.1", port: port.port, path } : undefined;
  if (type === "NodePort") return port?.nodePort ? { hostname: "127.0.0.1", port: port.nodePort, path } : undefined;
  return undefined;
}

const label = (t: ProbeTarget) => `${t.hostname.includes(":") ? `[${t.hostname}]` : t.hostname}:${t.port}${t.path}`;

/** `kubeconfig`: the sandbox's (admin) kubeconfig text; `cluster` names it in logs. */
export async function startGatewayStandIn(
  kubeconfig: string,
  cluster: string,
  log: Logger = logger(`gateway:${cluster}`),
): Promise<GatewayStandIn> {
  const client = await connectKubeconfigText(kubeconfig, `sandbox ${cluster}`);
  const informer = new Informer<KubeObject & GatewayServiceLike>({
    client,
    resource: resources.service,
    namespace: DEFAULT_NAMESPACE,
    fieldSelector: `metadata.name=${GATEWAY_NAME}`,
    log,
  });
  let server: ReturnType<typeof listenProbe> | undefined;
  let answering = "";
  let wanted = "";
  const listeners = new Set<(answering: string) => void>();
  const set = (next: string) => {
    answering = next;
    for (const l of listeners) l(next);
  };
  const follow = (svc: (KubeObject & GatewayServiceLike) | undefined) => {
    const target = svc ? probeTarget(svc) : undefined;
    const key = target ? label(target) : "";
    if (key === wanted) return;
    wanted = key;
    void server?.stop(true);
    server = undefined;
    if (!target) return set("");
    try {
      server = listenProbe(target.hostname, target.port, target.path);
      log.info(`gateway probe answered at ${key} (point mc serve at it: --probe-address ${target.hostname}:${target.port})`);
      set(key);
    } catch (err) {
      log.warn(
        `gateway probe cannot listen at ${key} (${(err as { code?: string }).code ?? "error"}: another sandbox's gateway there?): probes of ${cluster}'s gateway will fail`,
      );
      set("");
    }
  };
  informer.on((e) => follow(e.type === "deleted" ? undefined : e.object));
  informer.start();
  await informer.synced;
  return {
    get answering() {
      return answering;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      await informer.stop();
      await server?.stop(true);
      server = undefined;
    },
  };
}
