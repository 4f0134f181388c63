// mc serve: the service mirror controller for one Link (`mc serve LINK`), for every Link of the namespace in one process (`--all`), or the
// local mirror (`--local`, Linkerd's `-local-mirror`), until SIGINT/SIGTERM.
import * as v from "valibot";
import { parseAddr } from "../src/serve/admin.ts";
import { command } from "../src/cli/command.ts";
import { changedFlags, defineFlags, flagList } from "../src/cli/flags.ts";
import { MIRROR_SETTING_FLAGS, settingsOf } from "../src/cli/serve-flags.ts";
import { namespaceFlag } from "../src/cli/groups.ts";
import { UserError } from "../src/errors.ts";
import { connect } from "../src/kube/index.ts";
import { LEASE_DEFAULTS } from "../src/kube/lease.ts";
import * as log from "../src/log.ts";
import { serve } from "../src/serve/serve.ts";
import { MAX_LEASE_MS, MIN_LEASE_DURATION_MS, MIN_LEASE_RENEW_DEADLINE_MS, MIN_LEASE_RETRY_PERIOD_MS } from "../src/model/limits.ts";
import { DEFAULT_FEDERATED_SERVICE_SELECTOR, isDns1123Label } from "../src/model/names.ts";
import { periodRow as period } from "../src/model/mirror-settings.ts";
import { clusterName, keyList, oneOf, selector } from "../src/model/values.ts";
import { meta } from "./commands.ts";

// Linkerd's `service-mirror` flags, spelled kubectl-style (`--flag=value`), plus `--leader-elect`,
// `--identity`, `--probe-direct`, `--probe-address`, `--status-interval`, `--fast-failure-detection`,
// `--admin-addr` (`127.0.0.1:0` picks a free port) and kube's
// `--leader-elect-lease-duration`/`-renew-deadline`/`-retry-period`.

/** Linkerd's levels; panic and fatal log as error. */
const LEVELS = ["panic", "fatal", "error", "warn", "info", "debug", "trace"] as const;

const seconds = (ms: number) => `${ms / 1000}s`;
/** mc serve's table: the process's own flags and the mirroring settings' rows (src/model/mirror-settings.ts). */
export const SERVE_FLAGS = defineFlags(
  {
    link: {
      type: "positional",
      required: false,
      suggest: "links",
      description: "Name of the Link to serve (usually the target cluster's name); or --all, or --local",
    },
    all: {
      type: "boolean",
      default: false,
      description: "Serve every Link in --namespace from this one process, each with its own Lease, as Links appear and go",
    },
    local: {
      type: "boolean",
      default: false,
      description: "Run the local mirror: this cluster's own Services join their federated Services (Linkerd's -local-mirror)",
    },
    "federated-service-selector": {
      type: "string",
      default: DEFAULT_FEDERATED_SERVICE_SELECTOR,
      description: "With --local: selector of the local Services that join federated Services",
      schema: selector,
    },
    "excluded-labels": {
      type: "string",
      description: "With --local: label keys (or prefix/*) not copied to federated Services, comma-separated",
      schema: v.optional(keyList, ""),
    },
    "excluded-annotations": {
      type: "string",
      description: "With --local: annotation keys (or prefix/*) not copied to federated Services, comma-separated",
      schema: v.optional(keyList, ""),
    },
    "cluster-name": {
      type: "string",
      description:
        "With --local: this cluster's name in the ClusterSet; its ServiceExports are then imported here too and get Valid, Ready and Conflict conditions (Multi-Cluster Services API)",
      schema: v.optional(v.union([v.literal(""), clusterName]), ""),
    },
    namespace: namespaceFlag("Namespace of the Link, its credentials Secret and the Lease", "n"),
    "admin-addr": {
      type: "string",
      default: ":9999",
      description: "Address of the admin server (/metrics, /ready, /live, /ping); 127.0.0.1:0 picks a free port",
      schema: v.pipe(
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
    },
    "log-level": { type: "string", default: "info", description: `Log level: ${LEVELS.join(", ")}`, schema: oneOf(LEVELS) },
    "log-format": { type: "string", default: "plain", description: "Log format: plain or json", schema: oneOf(["plain", "json"] as const) },
    "leader-elect": {
      type: "boolean",
      default: true,
      description: "Hold the Lease service-mirror-write-<link> so only one replica writes (--leader-elect=false to turn off)",
    },
    identity: {
      type: "string",
      description: "Identity in the Lease",
      defaultText: "$HOSTNAME plus a random per-process suffix, so two processes never share one",
    },
    "leader-elect-lease-duration": period(
      seconds(LEASE_DEFAULTS.leaseDurationMs),
      "How long a standby waits after the last renewal before taking the Lease (kube's --leader-elect-lease-duration)",
      MIN_LEASE_DURATION_MS,
      "a standby would take over from a live leader",
      MAX_LEASE_MS,
      "a dead leader's Lease blocks the next one this long",
    ),
    "leader-elect-renew-deadline": period(
      seconds(LEASE_DEFAULTS.renewDeadlineMs),
      "How long the leader keeps trying to renew before it steps down",
      MIN_LEASE_RENEW_DEADLINE_MS,
      "the leader would step down at the first slow answer",
      MAX_LEASE_MS,
      "a leader cut off keeps writing this long",
    ),
    "leader-elect-retry-period": period(
      seconds(LEASE_DEFAULTS.retryPeriodMs),
      "How often replicas try to acquire or renew the Lease",
      MIN_LEASE_RETRY_PERIOD_MS,
      "each one writes or reads the Lease",
      MAX_LEASE_MS,
      "a standby notices a free Lease this late",
    ),
    ...MIRROR_SETTING_FLAGS,
  },
  { command: "serve" },
);

export default command(meta("serve"), SERVE_FLAGS, async (f, g) => {
  const link = f.link ?? "";
  if (f.all && f.local)
    throw new UserError("--all and --local are mutually exclusive: run one process for the Links and another for the local mirror");
  if (link !== "" && (f.all || f.local))
    throw new UserError(
      `LINK_NAME: ${JSON.stringify(link)} and --${f.all ? "all" : "local"} are mutually exclusive: serve one Link, every Link (--all), or the local mirror (--local)`,
    );
  if (link === "" && !f.all && !f.local)
    throw new UserError("LINK_NAME: is required: the Link to serve, e.g. mc serve --namespace linkerd-multicluster east");
  if (link !== "" && !isDns1123Label(link))
    throw new UserError(`LINK_NAME: must be a Link name (a DNS-1123 label: lowercase letters, digits, '-'), got ${JSON.stringify(link)}`);
  if (!(f.leaderElectLeaseDuration > f.leaderElectRenewDeadline && f.leaderElectRenewDeadline > f.leaderElectRetryPeriod)) {
    throw new UserError(
      "--leader-elect-lease-duration: must be longer than --leader-elect-renew-deadline, which must be longer than --leader-elect-retry-period (defaults 30s, 10s, 2s)",
    );
  }
  // Flags the chosen mode would ignore: refused, so a setting never silently does nothing.
  const ignored = (names: Parameters<typeof changedFlags<typeof SERVE_FLAGS.rows>>[2], why: string, fix: string) => {
    const set = changedFlags(SERVE_FLAGS, f, names);
    const them = set.length > 1;
    if (set.length) throw new UserError(`${flagList(set)}: ${them ? "have" : "has"} no effect ${why}: drop ${them ? "them" : "it"}${fix}`);
  };
  if (!f.local) {
    ignored(
      ["federated-service-selector", "excluded-labels", "excluded-annotations"],
      `without --local (a Link's selectors and exclusions are its spec's, set by mc link)`,
      ", or serve the local mirror with --local",
    );
  } else {
    ignored(
      ["probe-service", "probe-direct", "probe-address", "status-interval", "fast-failure-detection", "enable-endpoint-slices"],
      "with --local (the local mirror probes no gateway and reads no target Endpoints)",
      "",
    );
  }
  if (f.all && changedFlags(SERVE_FLAGS, f, ["probe-service"]).length) {
    throw new UserError(
      "--probe-service: with --all every Link's controller would point this one probe Service at its own gateway (each uses its own probe-gateway-<cluster>): drop it, or serve that Link alone (mc serve LINK)",
    );
  }
  const others = Object.keys(f.probeAddress).filter((k) => k !== "" && k !== link);
  if (link !== "" && others.length) {
    throw new UserError(
      `--probe-address: ${others.map((k) => `${k}=`).join(", ")} names another Link than ${link}, which this process does not serve: use ${link}=host:port or host:port`,
    );
  }
  if (!f.leaderElect) {
    ignored(
      ["identity", "leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period"],
      "with --leader-elect=false (no Lease is held)",
      ", or leave leader election on",
    );
  }
  const name = f.all ? "all" : f.local ? "local" : link;
  const level = f.logLevel === "panic" || f.logLevel === "fatal" ? "error" : f.logLevel;
  log.setLogLevel(g.verbose ? "debug" : level);
  const out = log.logger(`mirror:${name}`);
  log.setLogFormat(f.logFormat);
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  const local = await connect({ kubeconfig: g.kubeconfig, context: g.context });
  const serving = await serve({
    local,
    namespace: f.namespace,
    ...(f.all
      ? { all: true }
      : f.local
        ? {
            localMirror: {
              federatedServiceSelector: f.federatedServiceSelector,
              excludedLabels: f.excludedLabels,
              excludedAnnotations: f.excludedAnnotations,
              clusterName: f.clusterName || undefined,
            },
          }
        : { linkName: link }),
    adminAddr: f.adminAddr,
    leaderElect: f.leaderElect,
    identity: f.identity || undefined,
    lease: {
      leaseDurationMs: f.leaderElectLeaseDuration,
      renewDeadlineMs: f.leaderElectRenewDeadline,
      retryPeriodMs: f.leaderElectRetryPeriod,
    },
    settings: settingsOf(f),
    log: out,
  });
  await stopped;
  out.info("stopping");
  await serving.stop();
});
