// What the two-backend tier does to its clusters, the way a user would: `mc install`, `mc link`, and `mc serve` as a process.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Informer, resources, waitForObject, type KubeClient, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_REMOTE_ACCESS_SA,
  GATEWAY_NAME,
  LINK_CRD_NAME,
  serviceMirrorName,
  tokenSecretName,
} from "../../src/model/names.ts";
import { MC, spawnUntil, type Until } from "../helpers/mc.ts";
import type { Backend, TestCluster } from "./backend.ts";

// What the two-backend tier does to its clusters, the way a user would: `mc install` on both and
// `mc link` of east applied to west with kubectl, the Link's probe made fast (1 s, one failure),
// and the controller as the real `mc serve` process running as the ServiceAccount `mc link`
// renders (its token minted by the cluster's token controller), so any call its RBAC does not
// grant shows as Forbidden in its log.

export const NS = DEFAULT_NAMESPACE;

/** Runs `mc` (bun cmd/mc.ts) with `args`; throws with its stderr on a non-zero exit. */
export async function mcText(args: string[]): Promise<string> {
  const proc = Bun.spawn(["bun", MC, ...args], { env: { ...process.env, NO_COLOR: "1" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`mc ${args.join(" ")} failed (exit ${code}): ${err.trim()}`);
  return out;
}

/** Resolves with the object once `pred` holds (now or at a later watch event). */
export function until<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ResourceType,
  namespace: string | undefined,
  name: string,
  pred: (o: T | undefined) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T | undefined> {
  return waitForObject<T>(client, res, namespace, name, pred, { what, timeoutMs });
}

type TokenSecret = KubeObject & { data?: { token?: string } };

/** Waits for the token controller to fill a ServiceAccount token Secret; returns the token. */
export async function tokenOf(c: TestCluster, namespace: string, secret: string): Promise<string> {
  const s = await until<TokenSecret>(
    c.client,
    resources.secret,
    namespace,
    secret,
    (o) => !!o?.data?.token,
    `the token of Secret ${namespace}/${secret} on ${c.name}`,
  );
  return Buffer.from(s!.data!.token!, "base64").toString();
}

/** `mc install` applied to a cluster, then what `mc link` reads there: the CRD established, the remote-access token, the gateway's address. */
export async function install(c: TestCluster): Promise<void> {
  await c.kubectl(["apply", "-f", "-"], await mcText(["--kubeconfig", c.kubeconfigPath, "install"]));
  await c.kubectl(["wait", "--for=condition=Established", "--timeout=30s", `crd/${LINK_CRD_NAME}`]);
  await tokenOf(c, NS, tokenSecretName(DEFAULT_REMOTE_ACCESS_SA));
  type Lb = KubeObject & { status?: { loadBalancer?: { ingress?: unknown[] } } };
  await until<Lb>(
    c.client,
    resources.service,
    NS,
    GATEWAY_NAME,
    (o) => (o?.status?.loadBalancer?.ingress?.length ?? 0) > 0,
    `${GATEWAY_NAME}'s load balancer address on ${c.name}`,
  );
}

/** The Link's probe at its floor (1 s, one failure). */
export async function fastProbe(b: Backend, cluster = "east"): Promise<void> {
  const probeSpec = { period: "1s", failureThreshold: "1", timeout: "1s" };
  await b.west.kubectl(["patch", "link", cluster, "-n", NS, "--type", "merge", "-p", JSON.stringify({ spec: { probeSpec } })]);
}

/** `mc link` of east (gateway at the backend's address) applied to west, then the fast probe. */
export async function link(b: Backend, extra: string[] = []): Promise<void> {
  const bundle = await mcText([
    "--kubeconfig",
    b.east.kubeconfigPath,
    "link",
    "--cluster-name",
    "east",
    "--gateway-addresses",
    b.east.gateway.address,
    ...extra,
  ]);
  await b.west.kubectl(["apply", "-f", "-"], bundle);
  await fastProbe(b);
}

/** A kubeconfig file for west as a controller's ServiceAccount (what its pod's token is): the link's, by default. */
export async function controllerKubeconfig(b: Backend, dir: string, sa = serviceMirrorName("east")): Promise<string> {
  const secret = `${sa}-test-token`;
  const manifest = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: secret, namespace: NS, annotations: { "kubernetes.io/service-account.name": sa } },
    type: "kubernetes.io/service-account-token",
  };
  await b.west.kubectl(["apply", "-f", "-"], JSON.stringify(manifest));
  const path = join(dir, `${sa}.kubeconfig`);
  writeFileSync(path, b.west.kubeconfigWithToken(await tokenOf(b.west, NS, secret)), { mode: 0o600 });
  return path;
}

/** `mc serve` as a process, probing the backend's gateway; resolves once its admin server listens. */
export function serve(b: Backend, kubeconfig: string, args: string[]): Promise<Until> {
  return spawnUntil(
    ["bun", MC, "--kubeconfig", kubeconfig, "serve", ...args, ...b.east.gateway.probeFlags, "--admin-addr", "127.0.0.1:0"],
    /admin server listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
}

/** Lines of a controller's log that show a call its RBAC refused (a KubeError's reason Forbidden). */
export const forbidden = (log: string): string[] => log.split("\n").filter((l) => /forbidden/i.test(l));

export type EventObj = KubeObject & { reason?: string; type?: string; involvedObject?: { kind?: string; name?: string } };

/** Resolves with the first Event in `namespace` that `pred` accepts (already there or arriving). */
export async function untilEvent(
  client: KubeClient,
  namespace: string,
  pred: (e: EventObj) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<EventObj> {
  const informer = new Informer<EventObj>({ client, resource: resources.event, namespace });
  try {
    return await new Promise<EventObj>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const check = (e: EventObj) => {
        if (!pred(e)) return;
        clearTimeout(timer);
        resolve(e);
      };
      informer.on((ev) => {
        if (ev.type !== "deleted") check(ev.object);
      });
      informer.start();
    });
  } finally {
    await informer.stop();
  }
}

export type Eps = KubeObject & {
  subsets?: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[]; ports?: { port: number }[] }[];
};
export type Svc = KubeObject & { spec?: { ports?: { name?: string; port: number }[]; clusterIP?: string } };
export type LinkObj = KubeObject & {
  status?: {
    gateway?: { alive?: boolean };
    conditions?: { type: string; status: string; reason?: string }[];
    mirrorServices?: { remoteRef: { name: string; namespace: string }; conditions: { reason: string }[] }[];
  };
};
export { linkResource };

export const readyIps = (e: Eps | undefined) => (e?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
export const notReadyIps = (e: Eps | undefined) => (e?.subsets ?? []).flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip));

/** A selector-less Service and its hand-written Endpoints (one ready address), as JSON lines for kubectl. */
export function plainService(
  name: string,
  labels: Record<string, string>,
  o: { namespace?: string; port?: number; ip?: string } = {},
): string {
  const namespace = o.namespace ?? "default";
  return [
    { apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: [{ name: "http", port: o.port ?? 80 }] } },
    {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name, namespace },
      subsets: [{ addresses: [{ ip: o.ip ?? "10.1.0.7" }], ports: [{ name: "http", port: 8080 }] }],
    },
  ]
    .map((x) => JSON.stringify(x))
    .join("\n");
}
