// mc serve: the service mirror controller for one Link, until SIGINT/SIGTERM. Linkerd's
// `service-mirror` flags, spelled kubectl-style (`--flag=value`), plus `--leader-elect`,
// `--identity`, `--probe-direct`, `--status-interval` and `--admin-addr` (`127.0.0.1:0` picks a
// free port).
import { defineCommand } from "citty";
import * as v from "valibot";
import { parseAddr } from "../src/admin.ts";
import { UserError } from "../src/errors.ts";
import { connect } from "../src/kube/index.ts";
import * as log from "../src/log.ts";
import { serve } from "../src/mirror/serve.ts";
import { DurationError, parseDuration } from "../src/model/duration.ts";
import { DEFAULT_NAMESPACE, isDns1123Label } from "../src/model/names.ts";
import { namespace, oneOf, wholeNumber } from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

/** Linkerd's levels; panic and fatal log as error. */
const LEVELS = ["panic", "fatal", "error", "warn", "info", "debug", "trace"] as const;

const duration = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      const ms = parseDuration(dataset.value);
      if (ms > 0) return ms;
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
    }
    addIssue({ message: "must be a positive Go duration such as 1m or 30s" });
    return NEVER;
  }),
);

const Flags = v.object({
  namespace,
  adminAddr: v.pipe(
    v.string(),
    v.check((s) => {
      try {
        parseAddr(s);
        return true;
      } catch {
        return false;
      }
    }, "must be host:port, e.g. :9999 or 127.0.0.1:0"),
  ),
  logLevel: oneOf(LEVELS),
  logFormat: oneOf(["plain", "json"] as const),
  eventRequeueLimit: wholeNumber(0, "retries"),
  endpointRefreshPeriod: duration,
  statusInterval: duration,
});

export default defineCommand({
  meta: { name: "serve", description: "Run the service mirror controller for one Link: mirror the target's exported Services into this cluster" },
  args: {
    link: { type: "positional", required: false, description: "Name of the Link to serve (usually the target cluster's name)" },
    namespace: { type: "string", alias: "n", default: DEFAULT_NAMESPACE, description: "Namespace of the Link, its credentials Secret and the Lease" },
    "admin-addr": { type: "string", default: ":9999", description: "Address of the admin server (/metrics, /ready, /live, /ping); 127.0.0.1:0 picks a free port" },
    "log-level": { type: "string", default: "info", description: `Log level: ${LEVELS.join(", ")}` },
    "log-format": { type: "string", default: "plain", description: "Log format: plain or json" },
    "event-requeue-limit": { type: "string", default: "3", description: "Retries of a failing Service before it is reported in the Link status" },
    "endpoint-refresh-period": { type: "string", default: "1m", description: "How often the gateway address is re-resolved and every mirror re-checked" },
    "enable-headless-services": { type: "boolean", default: false, description: "Mirror headless Services pod by pod (StatefulSets)" },
    "enable-namespace-creation": { type: "boolean", default: false, description: "Create a missing namespace instead of skipping its Services" },
    "leader-elect": { type: "boolean", default: true, description: "Hold the Lease service-mirror-write-<link> so only one replica writes (--leader-elect=false to turn off)" },
    identity: { type: "string", description: "Identity in the Lease (default: $HOSTNAME)" },
    "probe-service": { type: "string", description: "Local probe Service of the gateway (default: probe-gateway-<cluster>)" },
    "probe-direct": { type: "boolean", default: false, description: "Probe the gateway addresses themselves, not the probe Service (for running outside a cluster)" },
    "status-interval": { type: "string", default: "10s", description: "The fastest a steady gateway status is rewritten in the Link (a liveness change is written at once)" },
  },
  async run({ args }) {
    const link = args.link ?? "";
    if (link === "") throw new UserError("LINK_NAME: is required: the Link to serve, e.g. mc serve --namespace linkerd-multicluster east");
    if (!isDns1123Label(link)) throw new UserError(`LINK_NAME: must be a Link name (a DNS-1123 label: lowercase letters, digits, '-'), got ${JSON.stringify(link)}`);
    const f = parseFlags(Flags, {
      namespace: args.namespace,
      adminAddr: args["admin-addr"],
      logLevel: args["log-level"],
      logFormat: args["log-format"],
      eventRequeueLimit: args["event-requeue-limit"],
      endpointRefreshPeriod: args["endpoint-refresh-period"],
      statusInterval: args["status-interval"],
    });
    const level = f.logLevel === "panic" || f.logLevel === "fatal" ? "error" : f.logLevel;
    log.setLogLevel(globals.verbose ? "debug" : level);
    const out = log.logger(`mirror:${link}`);
    log.setLogFormat(f.logFormat);
    const stopped = new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
    const local = await connect({ kubeconfig: globals.kubeconfig, context: globals.context });
    const serving = await serve({
      local,
      namespace: f.namespace,
      linkName: link,
      adminAddr: f.adminAddr,
      leaderElect: args["leader-elect"],
      identity: args.identity || undefined,
      statusIntervalMs: f.statusInterval,
      controller: {
        requeueLimit: f.eventRequeueLimit,
        refreshPeriodMs: f.endpointRefreshPeriod,
        enableHeadless: args["enable-headless-services"],
        enableNamespaceCreation: args["enable-namespace-creation"],
        probeService: args["probe-service"] || undefined,
        probeDirect: args["probe-direct"],
      },
      log: out,
    });
    await stopped;
    out.info("stopping");
    await serving.stop();
  },
});
