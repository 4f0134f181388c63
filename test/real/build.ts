// `bun run kube:build`: builds kube-apiserver, kube-controller-manager, kube-scheduler and etcd from the Go module test/real/kube
// (k8s.io/kubernetes and its staging modules pinned to one release, etcd's own etcdmain at the version Kubernetes pins) into a cache shared
// by every checkout and CI run on the machine: ${XDG_CACHE_HOME:-~/.cache}/mc-kube/<version>/.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { alive } from "../helpers/pid.ts";

// A build whose stamp (the module's go.mod and go.sum, the flags) matches is reused; otherwise it is
// rebuilt into a temporary directory and renamed into place, under a lock, so parallel callers wait
// for one build.

export const KUBE_VERSION = "v1.37.2";
export const KUBE_BINARIES = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"] as const;
export type KubeBinary = (typeof KUBE_BINARIES)[number];

const MODULE_DIR = join(import.meta.dir, "kube");
const PACKAGES: Record<KubeBinary, string> = {
  "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
  "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
  "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
  etcd: "./etcd",
};

/** The directory holding one version's binaries (MC_KUBE_BIN overrides: binaries built elsewhere). */
export function kubeBinDir(version = KUBE_VERSION): string {
  if (process.env.MC_KUBE_BIN) return process.env.MC_KUBE_BIN;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "mc-kube", version);
}

function ldflags(version: string): string {
  const [major, minor] = version.replace(/^v/, "").split(".");
  const vars = { gitVersion: version, gitMajor: major, gitMinor: minor, gitTreeState: "clean" };
  const x = ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) =>
    Object.entries(vars).map(([k, v]) => `-X ${pkg}.${k}=${v}`),
  );
  return ["-s", "-w", ...x].join(" ");
}

function stamp(version: string): string {
  const mod = readFileSync(join(MODULE_DIR, "go.mod"), "utf8") + readFileSync(join(MODULE_DIR, "go.sum"), "utf8");
  return JSON.stringify({ version, module: Bun.hash(mod).toString(16), ldflags: ldflags(version) });
}

/** True when every binary of `version` is in the cache, built from this module and these flags. */
export function kubeBinariesReady(version = KUBE_VERSION): boolean {
  const dir = kubeBinDir(version);
  if (process.env.MC_KUBE_BIN) return KUBE_BINARIES.every((b) => existsSync(join(dir, b)));
  try {
    return readFileSync(join(dir, "stamp.json"), "utf8") === stamp(version) && KUBE_BINARIES.every((b) => statSync(join(dir, b)).size > 0);
  } catch {
    return false;
  }
}

/** Holds an exclusive lock file next to the cache while `fn` runs; a lock whose holder died is taken over. */
async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  for (let announced = false; ; ) {
    try {
      closeSync(openSync(path, "wx"));
      writeFileSync(path, String(process.pid));
      break;
    } catch {
      const holder = Number(readFileSync(path, "utf8") || "0");
      if (holder && !alive(holder)) {
        rmSync(path, { force: true });
        continue;
      }
      if (!announced) console.error(`kube:build: waiting for the build of process ${holder || "?"} (${path})`);
      announced = true;
      await Bun.sleep(2000);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}

/** Builds the binaries unless cached; returns their directory. Heavy (minutes cold): runs under nice. */
export async function buildKube(o: { version?: string; log?: (line: string) => void } = {}): Promise<string> {
  const version = o.version ?? KUBE_VERSION;
  const log = o.log ?? ((l: string) => console.error(l));
  const dir = kubeBinDir(version);
  if (kubeBinariesReady(version)) return dir;
  if (process.env.MC_KUBE_BIN) throw new Error(`MC_KUBE_BIN=${dir}: missing one of ${KUBE_BINARIES.join(", ")}`);
  if (!Bun.which("go")) throw new Error("kube:build needs Go (https://go.dev/dl/) on PATH");
  mkdirSync(join(dir, ".."), { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    if (kubeBinariesReady(version)) return dir;
    const tmp = `${dir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const started = performance.now();
    log(`kube:build: building Kubernetes ${version} (${KUBE_BINARIES.join(", ")}) into ${dir}; cold, this takes several minutes`);
    const proc = Bun.spawn(
      ["nice", "-n", "10", "go", "build", "-ldflags", ldflags(version), "-o", `${tmp}/`, ...KUBE_BINARIES.map((b) => PACKAGES[b])],
      {
        cwd: MODULE_DIR,
        stdout: "inherit",
        stderr: "inherit",
        env: { ...process.env, GOFLAGS: "-buildvcs=false", GOTOOLCHAIN: "local" },
      },
    );
    if ((await proc.exited) !== 0) {
      rmSync(tmp, { recursive: true, force: true });
      throw new Error(`kube:build: go build failed (exit ${proc.exitCode}) in ${MODULE_DIR}`);
    }
    writeFileSync(join(tmp, "stamp.json"), stamp(version));
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    log(`kube:build: built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return dir;
  });
}

if (import.meta.main) {
  try {
    const dir = await buildKube();
    console.error(`kube:build: Kubernetes ${KUBE_VERSION} binaries ready in ${dir}`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
