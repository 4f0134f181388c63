// The README's sandbox walk, run as written (docs/decisions.md#d92): two `mc sandbox --linkerd` processes, then every command of "Using it
// on real clusters" with --kubeconfig for --context, with the real kubectl and `mc` = `bun cmd/mc.ts` on PATH, in an empty directory. `mc
// check` must pass at its end. The commands come from README.md (test/cmd/readme-walk.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, resources, waitForObject, type KubeObject } from "../../src/kube/index.ts";
import { hasKubectl, needsKubectl } from "../helpers/kubectl.ts";
import { MC, spawnUntil, type Until } from "../helpers/mc.ts";
import { holdProbePort } from "../helpers/probe-port.ts";
import { commands, readmeWalk, section, shellBlocks, withKubeconfigs, type Step } from "./readme-walk.ts";

const README = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
const releaseProbePort = await holdProbePort();

/** Every sandbox's stand-in gateway answers on 127.0.0.1 at the probe port, so east's needs 127.0.0.1:4191 free. */
function probePortFree(): boolean {
  try {
    Bun.listen({ hostname: "127.0.0.1", port: 4191, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}
const portFree = probePortFree();
const skipWhy = !hasKubectl ? undefined : portFree ? undefined : "127.0.0.1:4191 is in use by another process";

describe("the README's sandbox walk, read from README.md", () => {
  test("has the sandbox blocks around the real-cluster block, the controller right after mc link", () => {
    const steps = readmeWalk(README);
    const text = steps.map((s) => `${s.background ? "& " : ""}${s.command.split("\n")[0]}`);
    expect(text.slice(0, 2)).toEqual([
      "& mc sandbox --name east --tls --linkerd --trust-anchor trust-anchor.pem --kubeconfig east.kubeconfig",
      "& mc sandbox --name west --tls --linkerd --trust-anchor trust-anchor.pem --kubeconfig west.kubeconfig",
    ]);
    expect(text.slice(2, 4)).toEqual([
      "kubectl --kubeconfig east.kubeconfig create deployment web --image=nginx --port=8080",
      "kubectl --kubeconfig east.kubeconfig expose deployment web --port=80 --target-port=8080",
    ]);
    const link = text.findIndex((t) => t.startsWith("mc --kubeconfig east.kubeconfig link --cluster-name east"));
    expect(text[link + 1]).toBe(
      "& mc --kubeconfig west.kubeconfig serve east --fast-failure-detection --probe-address 127.0.0.1:4191 --admin-addr 127.0.0.1:0",
    );
    expect(text.some((t) => t.includes("--context"))).toBe(false);
    const real = commands(shellBlocks(section(README, "Using it on real clusters"))[0]!, "real");
    expect(steps.filter((s) => s.from === "real").map((s) => s.command)).toEqual(real.map((s) => withKubeconfigs(s.command)));
    expect(real.map((s) => s.command.split(/\s+/).slice(0, 3).join(" "))).toContain("mc --context west");
  });

  test("a heredoc is one command; a trailing & starts it in the background", () => {
    const steps = commands("a one &\ncat <<'EOF'\nx: 1\nEOF\n# a comment\n\nb two  # note\n", "sandbox");
    expect(steps).toEqual([
      { command: "a one", background: true, from: "sandbox" },
      { command: "cat <<'EOF'\nx: 1\nEOF", background: false, from: "sandbox" },
      { command: "b two  # note", background: false, from: "sandbox" },
    ]);
    expect(withKubeconfigs("mc --context east link | kubectl --context=west apply -f -")).toBe(
      "mc --kubeconfig east.kubeconfig link | kubectl --kubeconfig west.kubeconfig apply -f -",
    );
  });

  const name = needsKubectl("runs on two mc sandbox --linkerd processes with the real kubectl, and mc check passes at its end");
  test.skipIf(!hasKubectl || !portFree)(
    skipWhy ? `${name} (skipped: ${skipWhy})` : name,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mc-readme-walk-"));
      const bin = join(dir, ".bin");
      mkdirSync(bin);
      writeFileSync(join(bin, "mc"), `#!/bin/sh\nexec bun ${JSON.stringify(MC)} "$@"\n`);
      chmodSync(join(bin, "mc"), 0o755);
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        PATH: `${bin}:${process.env.PATH}`,
        HOME: dir,
        NO_COLOR: "1",
      };
      delete env.KUBECONFIG;
      const ran: string[] = [];
      let checkOut = "";
      for (const step of readmeWalk(README)) {
        ran.push(step.command);
        if (step.background) {
          background.push({ step, run: await spawnUntil(["bash", "-c", `exec ${step.command}`], readyLine(step), { env, cwd: dir }) });
          continue;
        }
        const proc = Bun.spawn(["bash", "-o", "pipefail", "-c", step.command], {
          cwd: dir,
          env,
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
        const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        if (code !== 0)
          throw new Error(
            `README step failed (exit ${code}): ${step.command}\n${stdout}\n${stderr}\n${background.map((b) => b.run.stderr()).join("\n")}`,
          );
        if (/^mc( --\S+ \S+)* check\b/.test(step.command)) {
          checkOut = stdout;
          // Before the walk unlinks: the mirror is there, pointing at east's gateway.
          const west = await connect({ kubeconfig: join(dir, "west.kubeconfig") });
          type Eps = KubeObject & { subsets?: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[] }[] };
          const ep = await waitForObject<Eps>(
            west,
            resources.endpoints,
            "default",
            "web-east",
            (o) => (o?.subsets?.[0]?.addresses?.length ?? 0) > 0,
            {
              what: "web-east's endpoints in west",
              timeoutMs: 15_000,
            },
          );
          expect(ep?.subsets?.[0]?.addresses?.[0]?.ip).toBe("192.0.2.1"); // the load balancer's: data, never contacted
        }
      }
      expect(checkOut).toContain("√ clusters share trust anchors");
      expect(checkOut).toContain("√ service mirror controllers are running");
      expect(checkOut).toContain("√ all gateways are alive");
      expect(checkOut).toContain("√ all mirror services have endpoints");
      expect(checkOut).not.toContain("×");
      expect(checkOut.trimEnd().endsWith("Status check results are √")).toBe(true);
      // The walk ended with unlink and uninstall: west has neither the mirror nor the extension.
      const west = await connect({ kubeconfig: join(dir, "west.kubeconfig") });
      expect((await west.list(resources.service, { namespace: "default", fieldSelector: "metadata.name=web-east" })).items).toEqual([]);
      // The README says so: east, installed first, answers the probe on 127.0.0.1:4191; west says its address is taken.
      const [east, westSandbox] = background.filter((b) => b.step.command.startsWith("mc sandbox"));
      expect(east!.run.stderr()).toContain("gateway probe answered at 127.0.0.1:4191/ready");
      expect(westSandbox!.run.stderr()).toContain("gateway probe cannot listen at 127.0.0.1:4191/ready");
      expect(ran.length).toBe(readmeWalk(README).length);
    },
    180_000,
  );
});

const background: { step: Step; run: Until }[] = [];
afterAll(async () => {
  // The controller first, so it releases its Lease while west still answers.
  for (const b of [...background].reverse()) {
    b.run.proc.kill("SIGTERM");
    await b.run.proc.exited;
  }
  releaseProbePort();
});

function readyLine(step: Step): RegExp {
  if (/^mc sandbox\b/.test(step.command)) return /sandbox \S+ ready at/;
  if (/\bserve\b/.test(step.command)) return /admin server listening on/;
  throw new Error(`the test does not know when this background step of the README is up: ${step.command}`);
}
