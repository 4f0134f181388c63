// CLI cold starts: dist/mc (the compiled binary) run as a shell runs it, a fresh process each time — `--help`, `--version`, `install
// --ignore-cluster`, and `link` against a sandbox east that runs the stand-in Linkerd and mc install.
import { join } from "node:path";
import { ensureBinary, ROOT } from "../lib/binary.ts";
import { startPair } from "../lib/pair.ts";
import { number, say, yes, type Scenario } from "../lib/scenario.ts";
import { median, ms, quantile } from "../lib/stats.ts";

// Medians (and p90) of 20 runs after 2 warm-ups; `bun -e 0` is the runtime's own floor, and `bun
// cmd/mc.ts --help` the same help from source (no bytecode: parsing and loading included). Target:
// `dist/mc --help` ≤ 30 ms.

async function once(argv: string[]): Promise<number> {
  const t = performance.now();
  const proc = Bun.spawn(argv, { env: { ...process.env, NO_COLOR: "1" }, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const code = await proc.exited;
  const wall = performance.now() - t;
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${(await new Response(proc.stderr).text()).trim()}`);
  return wall;
}

export const cli: Scenario = {
  name: "cli",
  title: "CLI cold starts of dist/mc",
  flags: {
    runs: { default: "20", description: "timed runs per command (after 2 warm-ups)" },
    build: { default: "true", description: "rebuild dist/mc first (bun run build)" },
  },
  async run(flags) {
    const runs = number("runs", flags.runs!);
    const bin = await ensureBinary(yes(flags.build!));
    const pair = await startPair({ namespaces: 0, probePeriod: "3s" });
    try {
      const commands: Array<[string, string[]]> = [
        ["mc --help", [bin, "--help"]],
        ["mc --version", [bin, "--version"]],
        ["mc install --ignore-cluster", [bin, "install", "--ignore-cluster"]],
        ["mc link (against a sandbox)", [bin, "--kubeconfig", pair.eastKubeconfig, "link", "--cluster-name", "east"]],
        ["mc link --help", [bin, "link", "--help"]],
        ["bun cmd/mc.ts --help (from source)", ["bun", join(ROOT, "cmd/mc.ts"), "--help"]],
        ["bun -e 0 (the runtime alone)", ["bun", "-e", "0"]],
      ];
      const rows: Array<{ name: string; median: number; p90: number }> = [];
      for (const [name, argv] of commands) {
        for (let i = 0; i < 2; i++) await once(argv);
        const times: number[] = [];
        for (let i = 0; i < runs; i++) times.push(await once(argv));
        rows.push({ name, median: median(times), p90: quantile(times, 0.9) });
        say(`${name}: median ${ms(median(times))}`);
      }
      const help = rows[0]!;
      return {
        tables: [{ headers: ["command", `median of ${runs}`, "p90"], rows: rows.map((r) => [r.name, ms(r.median), ms(r.p90)]) }],
        targets: [
          { name: "dist/mc --help", want: "≤ 30 ms", got: ms(help.median), met: help.median <= 30 },
          { name: "dist/mc --version", want: "", got: ms(rows[1]!.median) },
          { name: "dist/mc install --ignore-cluster", want: "", got: ms(rows[2]!.median) },
          { name: "dist/mc link against a sandbox", want: "", got: ms(rows[3]!.median) },
        ],
        figures: { runs, commands: rows },
      };
    } finally {
      await pair.stop();
    }
  },
};
