// The runner: the root's usage loads no subcommand, and each run gets its own global flags.
import { afterAll, expect, test } from "bun:test";
import { defineCommand, type ArgsDef, type CommandDef } from "citty";
import { COMMANDS } from "../../cmd/commands.ts";
import { main } from "../../cmd/mc.ts";
import { globalsOf, type Globals } from "../../src/cli/globals.ts";
import { runCli } from "../../src/cli/run.ts";
import { setLogLevel } from "../../src/log.ts";

// -v sets the process's log level to debug; put back the default for the files after this one.
afterAll(() => setLogLevel("info"));

const rootWith = (load: () => Promise<CommandDef<ArgsDef>>) => defineCommand({ meta: { name: "mc", version: "1.2.3", description: "root" }, subCommands: { x: load } });

async function stdoutOf(fn: () => Promise<number>): Promise<{ code: number; stdout: string }> {
  const write = process.stdout.write;
  let stdout = "";
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  try {
    return { code: await fn(), stdout };
  } finally {
    process.stdout.write = write;
  }
}

test("the root's usage lists the subcommands from their summaries, loading none", async () => {
  const root = rootWith(() => Promise.reject(new Error("loaded")));
  const r = await stdoutOf(() => runCli(root, ["--help"], { x: "does x" }));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("x    does x");
});

test("mc's summaries are what its commands say of themselves", async () => {
  const listed = await stdoutOf(() => runCli(main, ["--help"], COMMANDS));
  const loaded = await stdoutOf(() => runCli(main, ["--help"]));
  expect(listed).toEqual(loaded);
});

test("a subcommand runs with its own flags and gets the run's global flags", async () => {
  const seen: Array<Globals & { n: unknown }> = [];
  const x = defineCommand({ args: { n: { type: "string", default: "0" } }, run: ({ args, data }) => void seen.push({ ...globalsOf(data), n: args.n }) });
  const root = rootWith(async () => x as unknown as CommandDef<ArgsDef>);
  expect(await runCli(root, ["--context", "east", "x", "--n", "1"])).toBe(0);
  expect(await runCli(root, ["x", "-v"])).toBe(0);
  expect(seen).toEqual([
    { verbose: false, context: "east", n: "1" },
    { verbose: true, n: "0" },
  ]);
});
