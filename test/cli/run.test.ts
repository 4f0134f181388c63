// The runner: the root's usage loads no subcommand, and each run gets its own global flags.
import { afterAll, expect, test } from "bun:test";
import { defineCommand, type ArgsDef, type CommandDef } from "citty";
import { COMMAND_GROUPS } from "../../cmd/help.ts";
import { main } from "../../cmd/mc.ts";
import { globalsOf, type Globals } from "../../src/cli/globals.ts";
import { runCli } from "../../src/cli/run.ts";
import { setLogLevel } from "../../src/log.ts";

// -v sets the process's log level to debug; put back the default for the files after this one.
afterAll(() => setLogLevel("info"));

const rootWith = (load: () => Promise<CommandDef<ArgsDef>>) =>
  defineCommand({ meta: { name: "mc", version: "1.2.3", description: "root" }, subCommands: { x: load } });

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
  const r = await stdoutOf(() => runCli(root, ["--help"], { groups: [{ title: "Things", commands: [["x", "does x"]] }] }));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Things:\n  x  does x\n");
});

test("mc's groups list every visible command once, with what the command says of itself", async () => {
  const listed = COMMAND_GROUPS.flatMap((g) => g.commands.map(([name, summary]) => [name, summary]));
  const subs = Object.entries(
    main.subCommands as unknown as Record<string, () => Promise<{ meta?: { description?: string; hidden?: boolean } }>>,
  );
  const loaded = await Promise.all(subs.map(async ([name, load]) => [name, (await load()).meta] as const));
  const visible = loaded.filter(([, m]) => !m?.hidden).map(([name, m]) => [name, m?.description ?? ""]);
  expect(listed.toSorted()).toEqual(visible.toSorted());
});

test("a subcommand runs with its own flags and gets the run's global flags", async () => {
  const seen: Array<Globals & { n: unknown }> = [];
  const x = defineCommand({
    args: { n: { type: "string", default: "0" } },
    run: ({ args, data }) => void seen.push({ ...globalsOf(data), n: args.n }),
  });
  const root = rootWith(async () => x as unknown as CommandDef<ArgsDef>);
  expect(await runCli(root, ["--context", "east", "x", "--n", "1"])).toBe(0);
  expect(await runCli(root, ["x", "-v"])).toBe(0);
  expect(seen).toEqual([
    { verbose: false, context: "east", n: "1" },
    { verbose: true, n: "0" },
  ]);
});
