// mc check: run the multicluster checks against this (source) cluster and print each as it finishes.
import { defineCommand } from "citty";
import * as v from "valibot";
import { checkMulticluster, renderHeader, renderJson, renderResult, renderSummary } from "../src/checker/index.ts";
import { UserError } from "../src/errors.ts";
import { logger } from "../src/log.ts";
import { DurationError, parseDuration } from "../src/model/duration.ts";
import { DEFAULT_LINKERD_NAMESPACE } from "../src/model/names.ts";
import * as V from "../src/model/values.ts";
import { parseFlags } from "./flags.ts";
import { globals } from "./globals.ts";

/** A Go duration such as 30s or 5m, to milliseconds. */
const duration = (example: string, min: number) =>
  v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        const ms = parseDuration(dataset.value);
        if (ms >= min) return ms;
      } catch (err) {
        if (!(err instanceof DurationError)) throw err;
      }
      addIssue({ message: `must be a duration such as ${example}${min > 0 ? "" : " (0s: no retries)"}` });
      return NEVER;
    }),
  );

const Flags = v.object({
  output: V.oneOf(["table", "json"] as const),
  wait: duration("5m", 0),
  timeout: duration("10s", 1),
  "linkerd-namespace": V.namespace,
});

export default defineCommand({
  meta: { name: "check", description: "Check that the links of this (source) cluster work: credentials, trust, controllers, gateways, mirrors" },
  args: {
    output: { type: "string", alias: "o", default: "table", description: "Output format: table or json" },
    wait: { type: "string", default: "0s", description: "Retry failing checks that can recover (controller start, probes, sync) for this long, e.g. 5m" },
    timeout: { type: "string", default: "10s", description: "Timeout of each API call, here and on the targets" },
    "linkerd-namespace": { type: "string", alias: "L", default: DEFAULT_LINKERD_NAMESPACE, description: "Namespace of Linkerd's control plane (its trust anchors)" },
  },
  async run({ args }) {
    if (args._.length > 0) throw new UserError(`unexpected argument ${JSON.stringify(args._[0])}: mc check takes flags only`);
    const f = parseFlags(Flags, args);
    const table = f.output === "table";
    const log = logger("check");
    let started = false;
    const report = await checkMulticluster({
      kubeconfig: globals.kubeconfig,
      context: globals.context,
      linkerdNamespace: f["linkerd-namespace"],
      timeoutMs: f.timeout,
      waitMs: f.wait,
      onResult: (r) => {
        if (!table) return;
        // Nothing reaches stdout until the first check ran (a bad kubeconfig prints only its error).
        if (!started) process.stdout.write(renderHeader());
        started = true;
        process.stdout.write(renderResult(r));
      },
      onRetry: (check, outcome, attempt) => {
        if (attempt !== 1) return;
        const why = outcome.message?.endsWith(":") ? (outcome.details?.[0] ?? outcome.message) : (outcome.message ?? outcome.details?.[0] ?? "");
        log.info(`waiting for "${check.title}" (${why}); retrying for up to --wait ${args.wait}`);
      },
    });
    process.stdout.write(table ? renderSummary(report) : renderJson(report));
    const failed = report.results.filter((r) => r.status === "error").length;
    if (failed > 0) throw new UserError(`${failed} of ${report.results.length} checks failed (see the hints above)`);
  },
});
