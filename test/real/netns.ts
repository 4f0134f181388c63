// A test host of the project's own: a network namespace joined to this one by a veth pair on a /30 of 10.213.0.0/24 (block k: this side
// 10.213.0.(4k+1), the host 10.213.0.(4k+2)).
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { alive } from "../helpers/pid.ts";

// A real API server refuses loopback addresses in Endpoints, so a test cluster's gateway lives here:
// the load-balancer stand-in gives the gateway Service this address, and `gateway-host.ts` runs inside
// the namespace, answering the gateway's probe. Only these namespaces are ever contacted. Blocks are
// claimed by files under /run/mc-test-netns (one per block, holding the owner's pid), so parallel runs
// get different blocks; a claim whose owner died is cleaned up (namespace, veth) and taken over. Needs
// root (CAP_NET_ADMIN), as CI has.

const CLAIMS = "/run/mc-test-netns";
const BLOCKS = 64;

export interface NetnsHost {
  /** The host's address (inside the namespace). */
  address: string;
  /** This side's address of the veth pair. */
  peer: string;
  netns: string;
  block: number;
  /** Starts the gateway stand-in inside the namespace (probe on 4191, traffic on 4143); resolves once it listens. */
  startGateway(): Promise<void>;
  /** Kills the gateway stand-in: probes get "connection refused". */
  killGateway(): Promise<void>;
  /** Kills the gateway, deletes the namespace (and with it the veth pair) and releases the claim. */
  stop(): Promise<void>;
}

async function ip(args: string[], allowFail = false): Promise<void> {
  const proc = Bun.spawn(["ip", ...args], { stdout: "ignore", stderr: "pipe" });
  const err = await new Response(proc.stderr).text();
  if ((await proc.exited) !== 0 && !allowFail) throw new Error(`ip ${args.join(" ")}: ${err.trim()}`);
}

const names = (block: number) => ({ netns: `mc-test-gw-${block}`, outer: `mcgw${block}o`, inner: `mcgw${block}i` });

/** Deletes the namespace and veth of a block (whatever is left of them). */
async function removeBlock(block: number): Promise<void> {
  const n = names(block);
  await ip(["netns", "del", n.netns], true);
  await ip(["link", "del", n.outer], true);
}

/** Cleans up every claim whose owner is gone (a run killed before it could clean up). */
export async function reapStaleHosts(): Promise<number[]> {
  mkdirSync(CLAIMS, { recursive: true });
  const reaped: number[] = [];
  for (const f of readdirSync(CLAIMS)) {
    const block = Number(f);
    if (!Number.isInteger(block)) continue;
    const pid = Number(readFileSync(join(CLAIMS, f), "utf8") || "0");
    if (pid && alive(pid)) continue;
    await removeBlock(block);
    rmSync(join(CLAIMS, f), { force: true });
    reaped.push(block);
  }
  return reaped;
}

function claimBlock(owner: number): number {
  for (let block = 0; block < BLOCKS; block++) {
    try {
      closeSync(openSync(join(CLAIMS, String(block)), "wx"));
    } catch {
      continue;
    }
    writeFileSync(join(CLAIMS, String(block)), String(owner));
    return block;
  }
  throw new Error(`no free test network block in 10.213.0.0/24 (all ${BLOCKS} claimed under ${CLAIMS})`);
}

/** Makes a host; `owner` is the pid whose death frees it (default this process). */
export async function startNetnsHost(o: { owner?: number; logFile?: string } = {}): Promise<NetnsHost> {
  if (process.getuid?.() !== 0) throw new Error("the real-cluster tier needs root to create its test network namespace (ip netns)");
  await reapStaleHosts();
  const block = claimBlock(o.owner ?? process.pid);
  const n = names(block);
  const peer = `10.213.0.${4 * block + 1}`;
  const address = `10.213.0.${4 * block + 2}`;
  try {
    await removeBlock(block);
    await ip(["netns", "add", n.netns]);
    await ip(["link", "add", n.outer, "type", "veth", "peer", "name", n.inner]);
    await ip(["link", "set", n.inner, "netns", n.netns]);
    await ip(["addr", "add", `${peer}/30`, "dev", n.outer]);
    await ip(["link", "set", n.outer, "up"]);
    await ip(["-n", n.netns, "addr", "add", `${address}/30`, "dev", n.inner]);
    await ip(["-n", n.netns, "link", "set", n.inner, "up"]);
    await ip(["-n", n.netns, "link", "set", "lo", "up"]);
  } catch (err) {
    await removeBlock(block);
    rmSync(join(CLAIMS, String(block)), { force: true });
    throw err;
  }
  let gateway: Subprocess | undefined;
  const host: NetnsHost = {
    address,
    peer,
    netns: n.netns,
    block,
    async startGateway() {
      if (gateway && gateway.exitCode === null) return;
      const proc = Bun.spawn(["ip", "netns", "exec", n.netns, process.execPath, join(import.meta.dir, "gateway-host.ts"), address], {
        stdout: "pipe",
        stderr: o.logFile ? Bun.file(o.logFile) : "inherit",
      });
      gateway = proc;
      // The stand-in prints one line once both ports listen.
      const reader = proc.stdout.getReader();
      const { value } = await reader.read();
      reader.releaseLock();
      if (!value || !new TextDecoder().decode(value).includes("listening")) throw new Error(`gateway stand-in in ${n.netns} did not start`);
    },
    async killGateway() {
      const proc = gateway;
      gateway = undefined;
      if (!proc) return;
      proc.kill("SIGKILL");
      await proc.exited;
    },
    async stop() {
      await host.killGateway();
      await removeBlock(block);
      rmSync(join(CLAIMS, String(block)), { force: true });
    },
  };
  return host;
}
