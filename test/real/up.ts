// `bun run kube:up` / `bun run kube:down`: the two real test clusters for trying mc by hand.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startRealClusters } from "./clusters.ts";
import { reapStaleHosts } from "./netns.ts";
import { reapOrphans } from "./registry.ts";
import { alive } from "../helpers/pid.ts";

//   kube:up [--dir D] [--foreground]   starts east and west (default D: .scratch/kube), writes
//                                      D/east.kubeconfig and D/west.kubeconfig, and returns; a
//                                      detached supervisor keeps them (logs: D/up.log, D/clusters/*/)
//   kube:down [--dir D]                stops them: no process, network namespace or port is left
// With --foreground it runs in the terminal until Ctrl-C instead.

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  options: { dir: { type: "string" }, foreground: { type: "boolean" }, supervise: { type: "boolean" } },
  allowPositionals: true,
});
const command = positionals[0] ?? "up";
const dir = resolve(values.dir ?? join(import.meta.dir, "../../.scratch/kube"));
const statePath = join(dir, "state.json");
/** Written by a supervisor that could not start the clusters. */
const failedPath = join(dir, "failed");

interface State {
  pid: number;
  east: string;
  west: string;
}

function readState(): State | undefined {
  try {
    return JSON.parse(readFileSync(statePath, "utf8")) as State;
  } catch {
    return undefined;
  }
}

/** Runs the clusters in this process until SIGINT/SIGTERM. */
async function supervise(): Promise<void> {
  const started = performance.now();
  const clusters = await startRealClusters({ root: join(dir, "clusters"), owner: process.pid });
  for (const c of [clusters.east, clusters.west]) writeFileSync(join(dir, `${c.name}.kubeconfig`), c.kubeconfig, { mode: 0o600 });
  const state: State = { pid: process.pid, east: clusters.east.server, west: clusters.west.server };
  writeFileSync(statePath, JSON.stringify(state));
  console.error(`kube:up: east at ${state.east}, west at ${state.west}, up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await clusters.stop();
    rmSync(statePath, { force: true });
    for (const n of ["east", "west"]) rmSync(join(dir, `${n}.kubeconfig`), { force: true });
    console.error("kube:up: stopped");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function up(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const old = readState();
  if (old && alive(old.pid)) throw new Error(`kube:up: already running (pid ${old.pid}) for ${dir}; \`bun run kube:down\` stops it`);
  rmSync(join(dir, "clusters"), { recursive: true, force: true });
  rmSync(failedPath, { force: true });
  if (values.foreground || values.supervise) return supervise();
  const log = join(dir, "up.log");
  rmSync(log, { force: true });
  const args = [process.execPath, import.meta.path, "up", "--supervise", "--dir", dir];
  Bun.spawn(["setsid", "-f", ...args], { stdin: "ignore", stdout: Bun.file(log), stderr: Bun.file(log) });
  const deadline = performance.now() + 120_000;
  while (!readState()) {
    if (existsSync(failedPath)) throw new Error(`kube:up failed (${log}):\n${readFileSync(log, "utf8").trim()}`);
    if (performance.now() > deadline) throw new Error(`kube:up: not up after 120 s; see ${log}`);
    await Bun.sleep(200);
  }
  console.error(readFileSync(log, "utf8").trim().split("\n").at(-1));
  console.log(`export EAST=${join(dir, "east.kubeconfig")} WEST=${join(dir, "west.kubeconfig")}`);
}

async function down(): Promise<void> {
  const state = readState();
  if (state && alive(state.pid)) {
    process.kill(state.pid, "SIGTERM");
    const deadline = performance.now() + 60_000;
    while (alive(state.pid) && performance.now() < deadline) await Bun.sleep(100);
    if (alive(state.pid)) process.kill(state.pid, "SIGKILL");
  }
  // Whatever a supervisor killed with -9 left behind.
  const killed = reapOrphans();
  const hosts = await reapStaleHosts();
  rmSync(statePath, { force: true });
  for (const n of ["east", "west"]) rmSync(join(dir, `${n}.kubeconfig`), { force: true });
  console.error(`kube:down: stopped${killed || hosts.length ? ` (reaped ${killed} processes, ${hosts.length} network namespaces)` : ""}`);
}

try {
  if (command === "up") await up();
  else if (command === "down") await down();
  else throw new Error(`usage: up.ts up|down [--dir D] [--foreground]`);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  if (values.supervise) writeFileSync(failedPath, "");
  process.exit(1);
}
