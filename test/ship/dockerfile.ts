// A small Dockerfile reader for tests (no container engine runs on the CI machines): the instructions of each stage, with line
// continuations joined and comments dropped, the exec form (JSON array) told apart from the shell form, and LABEL key=value pairs; and a
// stage run on the host.
import { cpSync, mkdirSync } from "node:fs";
import { basename, join, posix } from "node:path";

export interface Instruction {
  /** Upper-cased: FROM, RUN, COPY, USER, LABEL, ENTRYPOINT… */
  keyword: string;
  /** The rest of the instruction, continuations joined. */
  text: string;
  /** The JSON array of the exec form, else undefined (shell form). */
  exec?: string[];
  line: number;
}

export interface Stage {
  /** FROM's image reference. */
  from: string;
  /** FROM … AS name. */
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(source: string): Stage[] {
  const stages: Stage[] = [];
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i]!.trim();
    if (text === "" || text.startsWith("#")) continue;
    while (text.endsWith("\\") && i + 1 < lines.length) {
      text = text.slice(0, -1).trimEnd();
      const next = lines[++i]!.trim();
      if (!next.startsWith("#")) text += ` ${next}`;
    }
    const m = /^(\S+)\s*(.*)$/s.exec(text)!;
    const keyword = m[1]!.toUpperCase();
    const rest = m[2]!.trim();
    const instruction: Instruction = { keyword, text: rest, line: start + 1, exec: execForm(rest) };
    if (keyword === "FROM") {
      const words = rest.split(/\s+/).filter((w) => !w.startsWith("--"));
      const as = words.findIndex((w) => w.toUpperCase() === "AS");
      stages.push({ from: words[0]!, name: as >= 0 ? words[as + 1] : undefined, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`line ${start + 1}: ${keyword} before the first FROM`);
    stage.instructions.push(instruction);
  }
  return stages;
}

function execForm(text: string): string[] | undefined {
  if (!text.startsWith("[")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
  } catch {
    return undefined;
  }
}

/** LABEL k=v k2="v 2" …, over every LABEL of a stage. */
export function labels(stage: Stage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const ins of stage.instructions.filter((i) => i.keyword === "LABEL")) {
    for (const m of ins.text.matchAll(/([^\s=]+)=("((?:[^"\\]|\\.)*)"|\S+)/g))
      out[m[1]!] = m[3] !== undefined ? m[3].replace(/\\(.)/g, "$1") : m[2]!;
  }
  return out;
}

/** COPY's options (--from=build), sources and destination. */
export function copyArgs(ins: Instruction): { from?: string; sources: string[]; dest: string } {
  const words = ins.exec ?? ins.text.split(/\s+/);
  const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
  const paths = words.filter((w) => !w.startsWith("--"));
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/**
 * Runs a stage's WORKDIR, COPY (from the build context) and RUN instructions on this machine,
 * with `root` standing for the container's `/`: what a container engine would do, given that the
 * host has the stage's tools (here: Bun of .bun-version). Any other instruction is refused, so
 * the stage cannot grow a step this does not reproduce.
 */
export async function runStage(stage: Stage, o: { context: string; root: string; env?: Record<string, string> }): Promise<void> {
  let workdir = "/";
  for (const ins of stage.instructions) {
    const here = join(o.root, workdir);
    if (ins.keyword === "WORKDIR") {
      workdir = posix.resolve(workdir, ins.text);
      mkdirSync(join(o.root, workdir), { recursive: true });
    } else if (ins.keyword === "COPY") {
      const { from, sources, dest } = copyArgs(ins);
      if (from !== undefined) throw new Error(`line ${ins.line}: COPY --from in stage ${stage.name} is not reproduced`);
      const target = posix.isAbsolute(dest) ? join(o.root, dest) : join(here, dest);
      const intoDir = dest.endsWith("/") || sources.length > 1;
      for (const source of sources) cpSync(join(o.context, source), intoDir ? join(target, basename(source)) : target, { recursive: true });
    } else if (ins.keyword === "RUN") {
      if (ins.exec) throw new Error(`line ${ins.line}: exec-form RUN is not reproduced`);
      const proc = Bun.spawn(["sh", "-c", ins.text], { cwd: here, env: { ...process.env, ...o.env }, stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) throw new Error(`line ${ins.line}: RUN ${ins.text} exited ${code}:\n${out}${err}`);
    } else {
      throw new Error(`line ${ins.line}: ${ins.keyword} in stage ${stage.name} is not reproduced`);
    }
  }
}
