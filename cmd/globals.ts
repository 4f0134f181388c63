// Flags every command accepts, before or after the subcommand (as kubectl and linkerd do).
// They are taken out of argv before citty sees it, since citty would read a flag's value as
// the subcommand name (`mc --context east link`).

export interface Globals {
  kubeconfig?: string;
  context?: string;
  verbose: boolean;
}

export const globals: Globals = { verbose: false };

/** For usage text only: parsing is done by `extractGlobals`. */
export const globalArgs = {
  kubeconfig: { type: "string", description: "Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)" },
  context: { type: "string", description: "Name of the kubeconfig context to use" },
  verbose: { type: "boolean", alias: "v", description: "Print debug logs and stack traces" },
} as const;

const VALUE_FLAGS: Record<string, "kubeconfig" | "context"> = { "--kubeconfig": "kubeconfig", "--context": "context" };

/** Removes the global flags from argv, wherever they stand, and records them in `globals`. */
export function extractGlobals(argv: string[]): string[] {
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
  return rest;
}

export class GlobalFlagError extends Error {}
