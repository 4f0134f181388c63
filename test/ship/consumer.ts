// A project that depends on a packed mc tarball, installable without the network: its bun.lock
// is the checkout's, cut down to what mc's dependencies reach (so a package mc needs but only
// lists as a devDependency would be missing, as it would be for a user), plus the tarball.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

type LockEntry = [string, ...unknown[]];
interface Meta {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  /** Peers installed only if something else brings them. */
  optionalPeers?: string[];
}
interface Lockfile {
  workspaces: Record<string, unknown>;
  packages: Record<string, LockEntry>;
  [key: string]: unknown;
}

/** Package names along a lock key: "a/@s/b" → ["a", "@s/b"]. */
function names(key: string): string[] {
  const parts = key.split("/");
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) out.push(parts[i]!.startsWith("@") ? `${parts[i]}/${parts[++i]}` : parts[i]!);
  return out;
}

/** The lock key that `name`, required from the package at `from`, resolves to (node_modules lookup). */
function resolveKey(packages: Lockfile["packages"], from: string[], name: string): string | undefined {
  for (let depth = from.length; depth >= 0; depth--) {
    const key = [...from.slice(0, depth), name].join("/");
    if (packages[key]) return key;
  }
  return undefined;
}

export function writeConsumer(
  dir: string,
  o: {
    checkoutLock: string;
    pkg: { name: string; dependencies: Record<string, string>; bin: Record<string, string> };
    tarball: string;
    integrity: string;
  },
): void {
  const lock = Bun.JSONC.parse(o.checkoutLock) as Lockfile;
  const spec = `./${o.tarball}`;
  const keep = new Set<string>();
  const visit = (from: string[], deps: Record<string, string> = {}, optional = false) => {
    for (const name of Object.keys(deps)) {
      const key = resolveKey(lock.packages, from, name);
      if (key === undefined) {
        if (optional) continue;
        throw new Error(`${name} (needed by ${from.join("/") || "mc"}) is not in the checkout's bun.lock`);
      }
      if (keep.has(key)) continue;
      keep.add(key);
      const meta = (lock.packages[key]!.find((x) => typeof x === "object" && x !== null) ?? {}) as Meta;
      const peers = Object.fromEntries(Object.entries(meta.peerDependencies ?? {}).filter(([peer]) => !meta.optionalPeers?.includes(peer)));
      visit(names(key), meta.dependencies);
      visit(names(key), peers);
      visit(names(key), meta.optionalDependencies, true);
    }
  };
  visit([], o.pkg.dependencies);
  const packages: Lockfile["packages"] = Object.fromEntries([...keep].sort().map((k) => [k, lock.packages[k]!]));
  packages[o.pkg.name] = [`${o.pkg.name}@${spec}`, { dependencies: o.pkg.dependencies, bin: o.pkg.bin }, o.integrity];
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, dependencies: { [o.pkg.name]: spec } }, null, 2),
  );
  writeFileSync(
    join(dir, "bun.lock"),
    JSON.stringify({ ...lock, workspaces: { "": { name: "consumer", dependencies: { [o.pkg.name]: spec } } }, packages }, null, 2),
  );
}
