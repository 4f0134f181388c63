// CPU profiles of a real west over a timed window (`BENCH_WEST_PPROF=DIR`): kube-apiserver's (as the admin, with kubectl) and
// kube-controller-manager's, taken back to back in pieces of a few seconds until stopped (`go tool pprof -top DIR/<label>-apiserver-*`
// merges the pieces).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PIECE_S = 5;

export interface WindowProfiles {
  /** Stops after the piece in progress; resolves once every piece is written. */
  stop(): Promise<number>;
}

/** kube-apiserver's CPU profile over the next `seconds`, asked for as the admin of `kubeconfig`. */
export async function apiserverProfile(kubeconfig: string, seconds: number): Promise<Uint8Array> {
  const proc = Bun.spawn(["kubectl", "--kubeconfig", kubeconfig, "get", "--raw", `/debug/pprof/profile?seconds=${seconds}`], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), proc.exited]);
  if (code !== 0) throw new Error(`pprof of kube-apiserver: kubectl exited ${code}`);
  return new Uint8Array(out);
}

/** kube-controller-manager's CPU profile over the next `seconds`, from its debug URL (its own self-signed certificate). */
export async function controllerManagerProfile(base: string, seconds: number): Promise<Uint8Array> {
  const res = await fetch(`${base}/debug/pprof/profile?seconds=${seconds}`, { tls: { rejectUnauthorized: false } });
  if (!res.ok) throw new Error(`pprof of kube-controller-manager: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Starts profiling west now: files `<dir>/<label>-apiserver-<i>.pprof` (and `-controller-manager-` with its debug URL). */
export function profileWindow(o: { kubeconfig: string; controllerManager?: string; dir: string; label: string }): WindowProfiles {
  mkdirSync(o.dir, { recursive: true });
  let stopped = false;
  const loop = async (part: string, piece: () => Promise<Uint8Array>) => {
    let i = 0;
    while (!stopped) writeFileSync(join(o.dir, `${o.label}-${part}-${i++}.pprof`), await piece());
    return i;
  };
  const runs = [
    loop("apiserver", () => apiserverProfile(o.kubeconfig, PIECE_S)),
    ...(o.controllerManager ? [loop("controller-manager", () => controllerManagerProfile(o.controllerManager!, PIECE_S))] : []),
  ];
  return {
    async stop() {
      stopped = true;
      const [pieces] = await Promise.all(runs);
      return pieces ?? 0;
    },
  };
}

/** The profiling asked for by the environment, or undefined. */
export const pprofDir = (): string | undefined => process.env.BENCH_WEST_PPROF || undefined;
