// Every command's --help, as a user in an 80-column terminal (or a pipe) reads it: no line over
// 100 columns, every flag with words under it, defaults written one way, and every line of the
// README that runs the command among its Examples.
import { describe, expect, test } from "bun:test";
import { main } from "../../cmd/mc.ts";
import { GLOBAL_ARGS } from "../../src/cli/globals.ts";
import { runMc } from "./run-mc.ts";
import { shellBlocks } from "./readme-walk.ts";

const README = await Bun.file(new URL("../../README.md", import.meta.url)).text();

type Loader = () => Promise<{ meta?: { name?: string; hidden?: boolean } }>;
const loaded = await Promise.all(
  Object.entries(main.subCommands as unknown as Record<string, Loader>).map(async ([name, load]) => [name, (await load()).meta] as const),
);
const COMMANDS = loaded.filter(([, meta]) => !meta?.hidden).map(([name]) => name);

/** Help's lines as the shell reads them: a line ending in ` \` goes on in the next one; spaces collapsed. */
const asShellReads = (help: string): string[] =>
  help
    .replace(/ \\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " "));

/** The command a README line runs: `mc [--context east] link …` → link ("" for the root). */
function commandOf(line: string): string {
  const words = line.split(/\s+/).slice(1);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--context" || w === "--kubeconfig") i++;
    else if (!w.startsWith("-")) return w;
    else return "";
  }
  return "";
}

/** Each README shell line that runs `mc`, without its comment and a trailing `&`. */
function readmeExamples(): Array<{ command: string; line: string }> {
  return shellBlocks(README)
    .flatMap((block) => block.split("\n"))
    .filter((line) => line.startsWith("mc "))
    .map((line) =>
      line
        .replace(/\s+#.*$/, "")
        .replace(/\s+&$/, "")
        .trim(),
    )
    .map((line) => ({ command: commandOf(line), line }));
}

const helpOf = async (argv: string[]) => {
  const saved = process.env.COLUMNS;
  delete process.env.COLUMNS;
  try {
    const r = await runMc([...argv, "--help"]);
    expect(r.code).toBe(0);
    return r.stdout;
  } finally {
    if (saved !== undefined) process.env.COLUMNS = saved;
  }
};

describe("--help of each command", () => {
  test.each([[""], ...COMMANDS.map((c) => [c])])(
    "mc %s --help: no line over 100 columns, no flag without words, defaults one way",
    async (name) => {
      const help = await helpOf(name ? [name] : []);
      const lines = help.split("\n");
      expect(lines.filter((l) => l.length > 100)).toEqual([]);
      // Not a terminal: wrapped at 80, where a word allows.
      expect(lines.filter((l) => l.length > 80 && l.trim().includes(" "))).toEqual([]);
      const flagLines = lines.map((l, i) => [l, lines[i + 1] ?? ""] as const).filter(([l]) => /^ {2}-/.test(l));
      if (name) expect(flagLines.length).toBeGreaterThan(0);
      expect(flagLines.filter(([, next]) => !/^ {6}\S/.test(next)).map(([l]) => l)).toEqual([]);
      expect(help).not.toMatch(/\((default:|Default)/);
      // The global flags, in every command's help.
      for (const flag of Object.keys(GLOBAL_ARGS)) expect(help).toContain(`--${flag}`);
    },
  );

  test("the README runs only commands mc has, and each of its lines is among that command's Examples", async () => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(10);
    const missing: string[] = [];
    for (const { command, line } of examples) {
      expect(["", ...COMMANDS]).toContain(command);
      const help = asShellReads(await helpOf(command ? [command] : []));
      if (!help.includes(line.replace(/\s+/g, " "))) missing.push(`mc ${command} --help lacks: ${line}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("the layout", () => {
  test("flags come sorted by name, each --flag=VALUE on its line and its words under it, a true boolean with its --no- form", async () => {
    const help = await helpOf(["link"]);
    const options = help.slice(help.indexOf("\nOptions:\n"), help.indexOf("\nGlobal options:\n"));
    const names = [...options.matchAll(/^ {2}(?:-\w, )?--([\w-]+)/gm)].map((m) => m[1]!);
    expect(names).toEqual(names.toSorted((a, b) => a.localeCompare(b)));
    expect(options).toContain("\n  --gateway, --no-gateway\n      Link through the gateway");
    expect(options).toContain("\n  -o, --output=yaml|json\n      Output format: yaml or json (default yaml)\n");
    expect(options).toContain("\n  --cluster-name=NAME\n      Name of this (target) cluster");
    expect(help.startsWith("Print, for the source cluster, the credentials, Link and controller")).toBe(true);
  });

  test("a wider terminal gets longer lines: $COLUMNS is the width", async () => {
    process.env.COLUMNS = "160";
    try {
      const wide = (await runMc(["link", "--help"])).stdout;
      expect(Math.max(...wide.split("\n").map((l) => l.length))).toBeGreaterThan(100);
      expect(wide.split("\n").filter((l) => l.length > 160)).toEqual([]);
    } finally {
      delete process.env.COLUMNS;
    }
  });
});
