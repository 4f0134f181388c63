// The runner: subcommands load only when needed, and each run gets its own global flags.
import { afterAll, expect, test } from "bun:test";
import { defineCommand } from "citty";
import { globalsOf, type Globals } from "../../src/cli/globals.ts";
import { lazyCommand, runCli } from "../../src/cli/run.ts";
import { setLogLevel } from "../../src/log.ts";
import { runMc } from "../cmd/run-mc.ts";

// -v sets the process's log level to debug; put back the default for the files after this one.
afterAll(() => setLogLevel("info"));

function rootWith(load: Parameters<typeof lazyCommand>[2]) {
  return defineCommand({ meta: { name: "mc", version: "1.2.3", description: "root" }, subCommands: { x: lazyCommand("x", "does x", load) } });
}

async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await fn();
  } finally {
    process.stdout.write = write;
  }
}

test("the root's usage lists a lazy subcommand without loading it", async () => {
  const root = rootWith(() => Promise.reject(new Error("loaded")));
  expect(await quietly(() => runCli(root, ["--help"]))).toBe(0);
});

test("a lazy subcommand is loaded once, runs with its own flags, and gets the run's global flags", async () => {
  let loads = 0;
  const seen: Globals[] = [];
  const x = defineCommand({ args: { n: { type: "string", default: "0" } }, run: ({ args, data }) => void seen.push({ ...globalsOf(data), context: `${globalsOf(data).context}:${args.n}` }) });
  const root = rootWith(async () => {
    loads++;
    return { default: x };
  });
  expect(await runCli(root, ["--context", "east", "x", "--n", "1"])).toBe(0);
  expect(await runCli(root, ["x", "-v"])).toBe(0);
  expect(seen).toEqual([
    { verbose: false, context: "east:1" },
    { verbose: true, context: "undefined:0" },
  ]);
  expect(loads).toBe(1);
});

test("mc --version prints the root's version", async () => {
  expect(await runMc(["--version"])).toMatchObject({ code: 0, stderr: "" });
});
