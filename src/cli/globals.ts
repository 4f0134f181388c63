// Flags every command accepts, before or after the subcommand (as kubectl and linkerd do). They
// are taken out of argv before citty sees it, since citty would read a flag's value as the
// subcommand name (`mc --context east link`), and handed to the command as `data`. Pure.
import { UserError } from "../errors.ts";

export interface Globals {
  kubeconfig?: string;
  context?: string;
  verbose: boolean;
}

/** For usage text only: parsing is done by `extractGlobals`. */
export const GLOBAL_ARGS = {
  kubeconfig: {
    type: "string",
    valueHint: "FILE",
    description: "Path to the kubeconfig file",
    defaultText: "$KUBECONFIG or ~/.kube/config",
  },
  context: { type: "string", valueHint: "NAME", description: "Name of the kubeconfig context to use" },
  verbose: { type: "boolean", alias: "v", description: "Print debug logs and stack traces" },
} as const;

/** A global flag without its value: a user error (one line, no stack even with -v). */
class GlobalFlagError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "GlobalFlagError";
  }
}

const VALUE_FLAGS: Record<string, "kubeconfig" | "context"> = { "--kubeconfig": "kubeconfig", "--context": "context" };

/** The global flags, wherever they stand in argv, and argv without them. */
export function extractGlobals(argv: readonly string[]): { globals: Globals; rest: string[] } {
  const globals: Globals = { verbose: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const key = VALUE_FLAGS[flag];
    if (key) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === "") {
        // No "kubeconfig:" or "kubeconfig=" here: the error redaction would read what follows as a secret.
        const sep = key === "kubeconfig" ? "" : ":";
        throw new GlobalFlagError(`${flag}${sep} needs a value, e.g. ${flag} ${key === "context" ? "east" : "./east.kubeconfig"}`);
      }
      globals[key] = value;
    } else if (arg === "-v" || arg === "--verbose") {
      globals.verbose = true;
    } else {
      rest.push(arg);
    }
  }
  return { globals, rest };
}

/** The global flags a command was run with (citty's `data`, set by the runner). */
export function globalsOf(data: unknown): Globals {
  if (typeof data === "object" && data !== null && typeof (data as Globals).verbose === "boolean") return data as Globals;
  throw new Error("a command ran without the global flags: run it through src/cli/run.ts");
}
