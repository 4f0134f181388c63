// Kubeconfig as data: parse and validate (valibot), merge the way kubectl merges KUBECONFIG, pick a
// context. Pure: no file or network I/O. Every failure is a one-line UserError that names the
// source and what is wrong, never a value from the file (tokens and keys live there).
import * as v from "valibot";
import { isAbsolute, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { UserError } from "../errors.ts";

const name = v.pipe(v.string(), v.minLength(1));
const optString = v.nullish(v.string());

const ClusterSchema = v.looseObject({
  server: optString,
  "certificate-authority": optString,
  "certificate-authority-data": optString,
  "insecure-skip-tls-verify": v.nullish(v.boolean()),
  "tls-server-name": optString,
  "proxy-url": optString,
});

const UserSchema = v.looseObject({
  token: optString,
  tokenFile: optString,
  "client-certificate": optString,
  "client-certificate-data": optString,
  "client-key": optString,
  "client-key-data": optString,
  username: optString,
  password: optString,
  as: optString,
  exec: v.nullish(v.looseObject({ command: name })),
  "auth-provider": v.nullish(v.looseObject({ name })),
});

const ContextSchema = v.looseObject({ cluster: name, user: optString, namespace: optString });

const KubeconfigSchema = v.looseObject({
  apiVersion: optString,
  kind: optString,
  clusters: v.nullish(v.array(v.looseObject({ name, cluster: ClusterSchema })), []),
  users: v.nullish(v.array(v.looseObject({ name, user: v.nullish(UserSchema, {}) })), []),
  contexts: v.nullish(v.array(v.looseObject({ name, context: ContextSchema })), []),
  "current-context": optString,
});

type KubeconfigCluster = v.InferOutput<typeof ClusterSchema>;
type KubeconfigUser = v.InferOutput<typeof UserSchema>;
type KubeconfigContext = v.InferOutput<typeof ContextSchema>;

export interface Kubeconfig {
  clusters: Array<{ name: string; cluster: KubeconfigCluster }>;
  users: Array<{ name: string; user: KubeconfigUser }>;
  contexts: Array<{ name: string; context: KubeconfigContext }>;
  currentContext?: string;
}

/** The context chosen for a connection, with its cluster and user resolved. */
export interface SelectedContext {
  context: string;
  clusterName: string;
  cluster: KubeconfigCluster & { server: string };
  userName?: string;
  user: KubeconfigUser;
  namespace: string;
}

/**
 * Parses and validates one kubeconfig. `source` names it in errors (`kubeconfig ~/.kube/config`,
 * `Secret ns/name`); relative file paths inside it are made absolute against `dir` when given.
 */
export function parseKubeconfig(text: string, source: string, dir?: string): Kubeconfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new UserError(`${source}: not valid YAML${yamlWhere(err)}`);
  }
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw new UserError(`${source}: not a kubeconfig (expected a mapping)`);
  const parsed = v.safeParse(KubeconfigSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    // "<path> must be …", not "<path>: …": a path ending in `token:` would read as a secret to redact().
    const what =
      issue.received === "undefined" ? "is missing" : issue.expected ? `must be ${describeExpected(issue.expected)}` : "is invalid";
    throw new UserError(`${source}: ${issuePath(issue)} ${what}`);
  }
  const out = parsed.output;
  const config: Kubeconfig = {
    clusters: out.clusters.map((c) => ({ name: c.name, cluster: c.cluster })),
    users: out.users.map((u) => ({ name: u.name, user: u.user })),
    contexts: out.contexts.map((c) => ({ name: c.name, context: c.context })),
    currentContext: out["current-context"] || undefined,
  };
  return dir === undefined ? config : absolutePaths(config, dir);
}

/**
 * Merges kubeconfigs in KUBECONFIG order, as kubectl does: for clusters, users and contexts the
 * first file that defines a name wins; current-context comes from the first file that sets one.
 */
export function mergeKubeconfigs(configs: Kubeconfig[]): Kubeconfig {
  const firstWins = <T extends { name: string }>(lists: T[][]): T[] => {
    const seen = new Map<string, T>();
    for (const list of lists) for (const item of list) if (!seen.has(item.name)) seen.set(item.name, item);
    return [...seen.values()];
  };
  return {
    clusters: firstWins(configs.map((c) => c.clusters)),
    users: firstWins(configs.map((c) => c.users)),
    contexts: firstWins(configs.map((c) => c.contexts)),
    currentContext: configs.find((c) => c.currentContext)?.currentContext,
  };
}

/** Resolves `context` (or current-context) to its cluster and user, or says in one line what is missing. */
export function selectContext(config: Kubeconfig, source: string, context?: string): SelectedContext {
  const names = config.contexts.map((c) => c.name);
  const known = names.length ? ` (contexts: ${names.join(", ")})` : " (it defines no contexts)";
  const wanted = context || config.currentContext;
  if (!wanted) throw new UserError(`${source}: no current-context; pass --context${known}`);
  const ctx = config.contexts.find((c) => c.name === wanted);
  if (!ctx) throw new UserError(`${source}: context "${wanted}" not found${known}`);
  const cluster = config.clusters.find((c) => c.name === ctx.context.cluster);
  if (!cluster) throw new UserError(`${source}: context "${wanted}" refers to cluster "${ctx.context.cluster}", which is not defined`);
  const server = cluster.cluster.server;
  if (!server) throw new UserError(`${source}: cluster "${cluster.name}" has no server`);
  if (!isHttpUrl(server)) throw new UserError(`${source}: cluster "${cluster.name}" server is not an http(s) URL`);
  const userName = ctx.context.user || undefined;
  const user = userName === undefined ? undefined : config.users.find((u) => u.name === userName);
  if (userName !== undefined && !user) {
    throw new UserError(`${source}: context "${wanted}" refers to user "${userName}", which is not defined`);
  }
  return {
    context: wanted,
    clusterName: cluster.name,
    cluster: { ...cluster.cluster, server },
    userName,
    user: user?.user ?? {},
    namespace: ctx.context.namespace || "default",
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

function absolutePaths(config: Kubeconfig, dir: string): Kubeconfig {
  const abs = (p: string | null | undefined) => (p ? (isAbsolute(p) ? p : resolve(dir, p)) : p);
  return {
    ...config,
    clusters: config.clusters.map((c) => ({
      name: c.name,
      cluster: { ...c.cluster, "certificate-authority": abs(c.cluster["certificate-authority"]) },
    })),
    users: config.users.map((u) => ({
      name: u.name,
      user: {
        ...u.user,
        tokenFile: abs(u.user.tokenFile),
        "client-certificate": abs(u.user["client-certificate"]),
        "client-key": abs(u.user["client-key"]),
      },
    })),
  };
}

/** `clusters[1].cluster.server`, from a valibot issue; never the value. */
function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    out += typeof key === "number" ? `[${key}]` : `${out ? "." : ""}${String(key)}`;
  }
  return out || "top level";
}

function describeExpected(expected: string): string {
  const map: Record<string, string> = { string: "a string", boolean: "true or false", Array: "a list", Object: "a mapping" };
  return map[expected] ?? (expected.startsWith(">=") ? "a non-empty string" : expected);
}

function yamlWhere(err: unknown): string {
  const pos = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
  return pos ? ` (line ${pos.line}, column ${pos.col})` : "";
}
