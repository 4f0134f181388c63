// mc complete -- WORDS…: what the completion script calls on each TAB (hidden). It prints tab's
// answer for the last word; it never fails loudly (a TAB must not print errors).
import { defineCommand, type ArgsDef } from "citty";
import { complete } from "../src/cli/completion.ts";
import { GLOBAL_ARGS } from "../src/cli/globals.ts";
import { contextNames, linkNames } from "../src/kube/index.ts";
import { COMMANDS } from "./commands.ts";

/** Each command's flags, loaded only for the command being completed (cmd/mc.ts's loaders). */
export type CommandLoader = (name: string) => Promise<ArgsDef | undefined>;

export const completeCommand = (load: CommandLoader) =>
  defineCommand({
    meta: { name: "complete", description: "Answer the completion script's callback (see mc completion)", hidden: true },
    async run({ rawArgs }) {
      const dash = rawArgs.indexOf("--");
      const words = dash < 0 ? rawArgs : rawArgs.slice(dash + 1);
      const tree = { name: "mc", commands: COMMANDS, globals: GLOBAL_ARGS, load };
      process.stdout.write(await complete(tree, words, { links: (s) => linkNames(s), contexts: (s) => contextNames(s) }));
    },
  });
