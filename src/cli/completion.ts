// Shell completion from @bomb.sh/tab: its scripts for bash, zsh, fish and PowerShell (`mc completion SHELL`), which call back `mc complete
// -- WORDS…` on each TAB, and its engine, which answers that call from a tree of commands and flags built here from mc's own tables — only
// the command being completed is loaded.
import { RootCommand, script } from "@bomb.sh/tab";
import type { ArgsDef } from "citty";
import type { HelpArg } from "./usage.ts";

// Flags with choices (`-o`) complete them; a flag or argument that names a Link, or `--context`, asks
// `sources` (the cluster, the kubeconfig), and only when the word being completed is one of those.

export const SHELLS = ["bash", "zsh", "fish", "powershell"] as const;
export type Shell = (typeof SHELLS)[number];

/** What a dynamic completion needs: where the Links are, and which kubeconfig and context to read. */
interface CompletionScope {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

/** Names read from outside: never throws, answers [] when it cannot (a cluster down, no kubeconfig). */
export interface CompletionSources {
  links(scope: CompletionScope): Promise<string[]>;
  contexts(scope: CompletionScope): Promise<string[]>;
}

/** Names read from outside: the cluster's Links (a flag row's `suggest`), the kubeconfig's contexts (--context). */
type Suggest = "links" | "contexts";

/** What completion knows of mc: its commands' one lines, the global flags, and a loader per command. */
export interface CompletionTree {
  name: string;
  commands: Readonly<Record<string, string>>;
  globals: ArgsDef;
  load(command: string): Promise<ArgsDef | undefined>;
}

/** The script a shell sources: `source <(mc completion bash)`. */
export function completionScript(shell: Shell, name: string): string {
  let text = captureLog(() => script(shell, name, name));
  // tab's bash script offers `json` where the word is `--output=j`: offer `--output=json` there.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
  if (shell === "bash") text = text.replace('COMPREPLY=( $(compgen -W "${completions[*]}" -- "$cur") )', BASH_EQUALS);
  return text;
}

const BASH_EQUALS = `if [[ "$cur" == -*=* ]]; then
        COMPREPLY=( $(compgen -P "\${cur%%=*}=" -W "\${completions[*]}" -- "\${cur#*=}") )
    else
        COMPREPLY=( $(compgen -W "\${completions[*]}" -- "$cur") )
    fi`;

/** The answer to `mc complete -- WORDS…` (the last word is the one being completed): tab's lines, `value\tdescription` and `:directive`. */
export async function complete(tree: CompletionTree, words: string[], sources: CompletionSources): Promise<string> {
  const scope = scopeOf(words);
  const command = commandOf(words, tree.commands);
  const args = command ? await tree.load(command) : undefined;
  // First without asking anyone; only if a handler wanted Links or contexts, ask and answer again.
  const wanted = new Set<Suggest>();
  const first = answer(tree, command, args, words, { wanted });
  if (wanted.size === 0) return first;
  const [links, contexts] = await Promise.all([
    wanted.has("links") ? sources.links(scope) : [],
    wanted.has("contexts") ? sources.contexts(scope) : [],
  ]);
  return answer(tree, command, args, words, { wanted, names: { links, contexts } });
}

interface Lookup {
  wanted: Set<Suggest>;
  names?: Record<Suggest, string[]>;
}

function answer(tree: CompletionTree, command: string | undefined, args: ArgsDef | undefined, words: string[], lookup: Lookup): string {
  const root = new RootCommand();
  const suggest = (kind: Suggest) => (complete: (value: string, description: string) => void) => {
    lookup.wanted.add(kind);
    for (const name of lookup.names?.[kind] ?? []) complete(name, kind === "links" ? "Link" : "context");
  };
  const addFlags = (target: { option: RootCommand["option"] }, defs: ArgsDef) => {
    for (const [name, raw] of Object.entries(defs)) {
      const def = raw as HelpArg;
      if (def.type === "positional") continue;
      const alias = [("alias" in def ? def.alias : undefined) ?? []].flat()[0];
      const words = def.description ?? "";
      if (def.type === "boolean") {
        if (alias) target.option(name, words, alias);
        else target.option(name, words);
        continue;
      }
      // A handler (even one offering nothing) makes tab read the next word as this flag's value.
      const handler = def.suggest
        ? suggest(def.suggest)
        : name === "context"
          ? suggest("contexts")
          : (complete: (v: string, d: string) => void) => def.choices?.forEach((c) => complete(c, ""));
      target.option(name, words, handler, alias);
    }
  };
  addFlags(root, tree.globals);
  for (const [name, summary] of Object.entries(tree.commands)) {
    const cmd = root.command(name, summary);
    if (name !== command || !args) continue;
    addFlags(cmd, { ...tree.globals, ...args });
    for (const [arg, raw] of Object.entries(args)) {
      const def = raw as HelpArg;
      if (def.type !== "positional") continue;
      cmd.argument(arg, def.suggest ? suggest(def.suggest) : (complete) => def.choices?.forEach((c) => complete(c, "")));
    }
  }
  return captureLog(() => root.parse([...words]));
}

/** The command the words run: the first word that is no flag nor a global flag's value. */
function commandOf(words: string[], commands: Readonly<Record<string, string>>): string | undefined {
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!;
    if (w === "--context" || w === "--kubeconfig") i++;
    else if (!w.startsWith("-")) return w in commands ? w : undefined;
  }
  return undefined;
}

/** --kubeconfig, --context and -n/--namespace as the words give them. */
function scopeOf(words: string[]): CompletionScope {
  const scope: CompletionScope = {};
  const keys: Record<string, keyof CompletionScope> = {
    "--kubeconfig": "kubeconfig",
    "--context": "context",
    "--namespace": "namespace",
    "-n": "namespace",
  };
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!;
    const eq = w.indexOf("=");
    const key = keys[eq > 0 ? w.slice(0, eq) : w];
    if (!key) continue;
    const value = eq > 0 ? w.slice(eq + 1) : words[i + 1];
    if (value) scope[key] = value;
    if (eq < 0) i++;
  }
  return scope;
}

/** What tab prints with console.log, as text. */
function captureLog(fn: () => void): string {
  const log = console.log;
  const lines: string[] = [];
  console.log = (...parts: unknown[]) => void lines.push(parts.join(" "));
  try {
    fn();
  } finally {
    console.log = log;
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}
