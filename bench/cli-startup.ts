// CLI start-up: wall time of `bun cmd/mc.ts --help`, `mc link --help` and `mc --version` as a
// shell runs them (a fresh Bun process each time; subcommands are loaded lazily, so the root
// help must not pay for them). Prints the median and the 90th percentile of each.
// `bun bench/cli-startup.ts [runs=30] [entry=cmd/mc.ts]` — pass another checkout's cmd/mc.ts to
// compare (e.g. /work/main/cmd/mc.ts).
import { join } from "node:path";

const runs = Number(process.argv[2] ?? 30);
const entry = process.argv[3] ?? join(import.meta.dir, "..", "cmd", "mc.ts");
if (!Number.isInteger(runs) || runs < 3) {
  console.error("usage: bun bench/cli-startup.ts [runs=30 (≥ 3)] [entry=cmd/mc.ts]");
  process.exit(2);
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function once(args: string[]): Promise<number> {
  const t = performance.now();
  const proc = Bun.spawn(["bun", entry, ...args], { env: { ...process.env, NO_COLOR: "1" }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`mc ${args.join(" ")} exited ${code}`);
  return performance.now() - t;
}

console.log(`${entry}, ${runs} runs each (after 2 warm-up runs)`);
for (const args of [["--help"], ["link", "--help"], ["--version"]]) {
  for (let i = 0; i < 2; i++) await once(args);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once(args));
  console.log(`mc ${args.join(" ").padEnd(12)} median ${quantile(times, 0.5).toFixed(1)} ms  p90 ${quantile(times, 0.9).toFixed(1)} ms`);
}
