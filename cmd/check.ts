// mc check: run the multicluster checks against this (source) cluster and print each as it finishes.
import { checkMulticluster, renderHeader, renderJson, renderResult, renderSummary } from "../src/checker/index.ts";
import { command } from "../src/cli/command.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { durationFlag, linkerdNamespaceFlag, outputFlag } from "../src/cli/groups.ts";
import { UserError } from "../src/errors.ts";
import { logger } from "../src/log.ts";
import { formatDuration, shortDuration } from "../src/model/duration.ts";
import { MAX_API_TIMEOUT_MS, MIN_API_TIMEOUT_MS } from "../src/model/limits.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  {
    // short: Linkerd's third format, only what did not pass (and the closing line).
    output: outputFlag(["table", "json", "short"]),
    wait: durationFlag({
      default: "0s",
      description: "Retry failing checks that can recover (controller start, probes, sync) for this long, e.g. 5m",
      message: "must be a duration such as 5m (0s: no retries)",
      min: 0,
    }),
    timeout: durationFlag({
      default: "10s",
      description: "Timeout of each API call, here and on the targets",
      message: "must be a duration such as 10s",
      min: MIN_API_TIMEOUT_MS,
      tooSmall: `must be at least ${formatDuration(MIN_API_TIMEOUT_MS)}, e.g. 10s`,
      max: MAX_API_TIMEOUT_MS,
      tooLarge: `must be at most ${shortDuration(MAX_API_TIMEOUT_MS)}, e.g. 10s`,
    }),
    "linkerd-namespace": linkerdNamespaceFlag("Namespace of Linkerd's control plane (its trust anchors)"),
  },
  { command: "check" },
);

export default command(meta("check"), flags, async (f, g, args) => {
  const table = f.output !== "json";
  const log = logger("check");
  let started = false;
  const report = await checkMulticluster({
    kubeconfig: g.kubeconfig,
    context: g.context,
    linkerdNamespace: f.linkerdNamespace,
    timeoutMs: f.timeout,
    waitMs: f.wait,
    onResult: (r) => {
      if (!table || (f.output === "short" && r.status !== "error" && r.status !== "warning")) return;
      // Nothing reaches stdout until the first check ran (a bad kubeconfig prints only its error).
      if (!started) process.stdout.write(renderHeader());
      started = true;
      process.stdout.write(renderResult(r));
    },
    onRetry: (check, outcome, attempt) => {
      if (attempt !== 1) return;
      const why = outcome.message?.endsWith(":")
        ? (outcome.details?.[0] ?? outcome.message)
        : (outcome.message ?? outcome.details?.[0] ?? "");
      log.info(`waiting for "${check.title}" (${why}); retrying for up to --wait ${args.wait}`);
    },
  });
  // Short and nothing shown: the closing line alone, as Linkerd's `check -o short`.
  process.stdout.write(!table ? renderJson(report) : started ? renderSummary(report) : renderSummary(report).trimStart());
  const failed = report.results.filter((r) => r.status === "error").length;
  if (failed > 0) throw new UserError(`${failed} of ${report.results.length} checks failed (see the hints above)`);
});
