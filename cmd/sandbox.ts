// mc sandbox: an in-memory Kubernetes API server on 127.0.0.1 that kubectl can drive. With
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import * as v from "valibot";
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { fakeLinkerd } from "../src/demo/fake-linkerd.ts";
import { startGatewayStandIn, type GatewayStandIn } from "../src/demo/gateway-standin.ts";
import { generateTrustAnchor, sharedTrustAnchor } from "../src/demo/trust-anchor.ts";
import { UserError } from "../src/errors.ts";
import { logger } from "../src/log.ts";
import { durationFlag } from "../src/cli/groups.ts";
import { formatDuration } from "../src/model/duration.ts";
import { MIN_FAULT_PERIOD_MS } from "../src/model/limits.ts";
import { fraction, wholeNumber } from "../src/model/values.ts";
import { DurableStoreError, startSandbox } from "../src/sandbox/index.ts";
import { meta } from "./commands.ts";

// --linkerd it also holds what a cluster with Linkerd installed has (src/demo/fake-linkerd.ts) and
// answers its gateway's probe (src/demo/gateway-standin.ts), so the real-cluster walk runs on it.
// The reliability suite's switches: --data (durable state), --enforce-rbac, and the fault flags
// (all off by default; MC_FAULT_SEED seeds the fault rates).

const flags = defineFlags(
  {
    name: {
      type: "string",
      default: "sandbox",
      description: "Cluster, user and context name in the kubeconfig",
      schema: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS-1123 label (lowercase letters, digits, '-')")),
    },
    port: {
      type: "string",
      default: "0",
      description: "Port on 127.0.0.1 (0 = any free port)",
      schema: v.pipe(
        v.string(),
        v.regex(/^\d+$/, "must be a port number (0 picks a free port)"),
        v.transform(Number),
        v.maxValue(65535, "must be at most 65535"),
      ),
    },
    tls: { type: "boolean", default: false, description: "Serve HTTPS with a generated CA and a bearer token" },
    linkerd: {
      type: "boolean",
      default: false,
      description:
        "Look like a cluster with Linkerd installed (namespace linkerd, linkerd-config, policy CRDs) and answer its gateway's probe",
    },
    "trust-anchor": {
      type: "string",
      value: "FILE",
      description:
        "With --linkerd: the PEM trust anchor in linkerd-config; generated and written there if the file does not exist (give sandboxes the same file to share it)",
      schema: v.optional(v.pipe(v.string(), v.minLength(1, "needs a file path, e.g. --trust-anchor ./trust-anchor.pem"))),
    },
    "enforce-rbac": {
      type: "boolean",
      default: false,
      description:
        "Authorize every request by RBAC (implies --tls): service-account tokens get what their bindings grant, the kubeconfig's admin token everything",
    },
    data: {
      type: "string",
      value: "FILE",
      description: "Keep objects and the resourceVersion counter in this file (bun:sqlite): a restart on the same file and --port resumes",
      schema: v.optional(
        v.pipe(
          v.string(),
          v.check((s) => !s.endsWith("/"), "must be a file path, e.g. --data ./east.db"),
          v.check((s) => existsSync(dirname(resolve(s))), "must be in a directory that exists, e.g. --data ./east.db"),
        ),
      ),
    },
    "drop-watches-every": durationFlag({
      default: "0",
      description: "Fault: end every watch stream this often (Go duration, 0 = never)",
      message: "must be a Go duration such as 5s (0 = never)",
      min: MIN_FAULT_PERIOD_MS,
      zeroIsOff: true,
      tooSmall: `must be 0 (never) or at least ${formatDuration(MIN_FAULT_PERIOD_MS)}`,
      bareNumber: "plain",
    }),
    "forget-history": {
      type: "boolean",
      default: false,
      description:
        "Fault: answer 410 Gone to every watch resumed from a resourceVersion and every list at an exact one, as kube-apiserver with a short history",
    },
    "fail-rate": {
      type: "string",
      default: "0",
      description: "Fault: fraction (0..1) of requests answered 500, 503 or 429 with Retry-After",
      schema: fraction(),
    },
    latency: durationFlag({
      default: "0",
      description: "Fault: added to every response (Go duration)",
      message: "must be a Go duration such as 50ms (0 = none)",
      min: 0,
      bareNumber: "plain",
    }),
    "max-requests-inflight": {
      type: "string",
      default: "0",
      description:
        "Fault: API requests served at once (kube-apiserver's flag); more are shed with 429 and Retry-After as priority and fairness sheds them (0 = no limit)",
      schema: wholeNumber(0, "requests"),
    },
    "conflict-rate": {
      type: "string",
      default: "0",
      description: "Fault: fraction (0..1) of writes carrying a resourceVersion answered 409 Conflict",
      schema: fraction(),
    },
    // The global --kubeconfig, listed for its meaning here; the runner takes it out of argv.
    kubeconfig: {
      type: "string",
      value: "FILE",
      description: "Where to write this sandbox's kubeconfig (written before it reports ready)",
    },
  },
  { command: "sandbox" },
);

export default command(meta("sandbox"), flags, async (f, g) => {
  const path = g.kubeconfig;
  if (!path) throw new UserError("--kubeconfig: needs a path to write the sandbox's kubeconfig to, e.g. --kubeconfig ./east.kubeconfig");
  if (f.trustAnchor !== undefined && !f.linkerd)
    throw new UserError("--trust-anchor: only means something with --linkerd; add --linkerd or leave --trust-anchor out");
  const log = logger("sandbox");
  const anchor = f.linkerd ? await trustAnchor(f.trustAnchor) : undefined;
  // Listen for signals before saying ready, so a stop right after the ready line is clean.
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  const seed = process.env.MC_FAULT_SEED;
  if (seed !== undefined && !/^\d+$/.test(seed))
    throw new UserError(`MC_FAULT_SEED: must be a whole number (the seed of the fault rates), got ${JSON.stringify(seed)}`);
  const sb = await startSandbox({
    name: f.name,
    port: f.port,
    tls: f.tls,
    enforceRbac: f.enforceRbac,
    data: f.data,
    faults: {
      dropWatchesEveryMs: f.dropWatchesEvery,
      forgetHistory: f.forgetHistory,
      failRate: f.failRate,
      delayMs: f.latency,
      maxInflight: f.maxRequestsInflight,
      conflictRate: f.conflictRate,
      seed: seed === undefined ? undefined : Number(seed),
    },
  }).catch((err: unknown) => {
    if (f.data && err instanceof DurableStoreError)
      throw new UserError(`--data: ${err.message}; pass a new file, or the file an earlier mc sandbox --data wrote`);
    throw err;
  });
  let gateway: GatewayStandIn | undefined;
  if (anchor) {
    fakeLinkerd(sb, { anchors: anchor.pem });
    gateway = await startGatewayStandIn(sb.kubeconfig, f.name);
    log.info(
      `sandbox ${f.name} runs a stand-in Linkerd: namespace linkerd, linkerd-config (trust anchor ${anchor.from}), policy CRDs, and its gateway's probe`,
    );
  }
  // Written once everything is seeded: a client that finds the file finds Linkerd there too.
  await Bun.write(path, sb.kubeconfig, { mode: 0o600 });
  log.info(`sandbox ${f.name} ready at ${sb.url} (kubeconfig ${path})`);
  await stopped;
  await gateway?.stop();
  await sb.stop();
});

async function trustAnchor(file: string | undefined): Promise<{ pem: string; from: string }> {
  if (file === undefined) return { pem: await generateTrustAnchor(), from: "generated, not saved: --trust-anchor FILE shares one" };
  const { pem, created } = await sharedTrustAnchor(file);
  return { pem, from: created ? `generated and written to ${file}` : `read from ${file}` };
}
