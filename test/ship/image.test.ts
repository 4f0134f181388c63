// The image without a container engine: the Dockerfile's build stage run on this machine, then its binary run as the final stage runs it —
// `/mc` with nothing of the checkout beside it (so every k8s/ file it reads must be embedded) — including `serve` with exactly the args of
// the Deployment `mc link` renders. Building takes a few seconds (bun build --compile).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { parseManifests } from "../../src/manifests/output.ts";
import { leaseName } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { applyObjects } from "../helpers/apply.ts";
import { hasKubectl, kubectlFor, needsKubectl } from "../helpers/kubectl.ts";
import { installMc } from "../helpers/linkerd.ts";
import { spawnUntil } from "../helpers/mc.ts";
import { holdProbePort } from "../helpers/probe-port.ts";
import { copyArgs, parseDockerfile, runStage } from "./dockerfile.ts";

const ROOT = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "mc-image-"));
/** The final stage's filesystem: only the binary. */
const image = join(work, "image");
let entrypoint: string[];
const procs: Bun.Subprocess[] = [];
const sandboxes: Sandbox[] = [];

/** What a pod's runtime gives the container: no HOME of ours, no checkout, no KUBECONFIG. */
const podEnv = (extra: Record<string, string> = {}) => ({
  PATH: "/usr/bin:/bin",
  HOME: image,
  HOSTNAME: "mc-image-test",
  NO_COLOR: "1",
  ...extra,
});

async function run(args: string[], o: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn([...entrypoint, ...args], {
    cwd: o.cwd ?? image,
    env: o.env ?? podEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  const stages = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
  const [build, final] = [stages[0]!, stages.at(-1)!];
  const buildRoot = join(work, "build");
  await runStage(build, { context: ROOT, root: buildRoot });
  // The final stage: COPY --from=build, then ENTRYPOINT (dockerfile.test.ts checks there is nothing else).
  mkdirSync(image);
  for (const copy of final.instructions.filter((i) => i.keyword === "COPY").map(copyArgs)) {
    for (const source of copy.sources) cpSync(join(buildRoot, source), join(image, copy.dest));
  }
  const exec = final.instructions.find((i) => i.keyword === "ENTRYPOINT")!.exec!;
  entrypoint = [join(image, exec[0]!), ...exec.slice(1)];
}, 120_000);

let releaseProbePort = () => {};
afterAll(async () => {
  for (const p of procs) p.kill();
  await Promise.all([...sandboxes.map((s) => s.stop()), ...procs.map((p) => p.exited)]);
  releaseProbePort();
});

describe("the image's binary, run with nothing of the checkout beside it", () => {
  test("--version prints the package version", async () => {
    expect(await run(["--version"])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  test("install --ignore-cluster prints what the source prints, the embedded Link CRD included", async () => {
    const binary = await run(["install", "--ignore-cluster"]);
    const source = await runMc(["install", "--ignore-cluster"]);
    expect(binary.code).toBe(0);
    expect(binary.stdout).toBe(source.stdout);
    expect(binary.stdout).toContain("name: links.multicluster.linkerd.io");
  });

  test("a bunfig.toml or .env in the directory it runs in is not read", async () => {
    const withBunfig = mkdtempSync(join(tmpdir(), "mc-image-bunfig-"));
    writeFileSync(join(withBunfig, "bunfig.toml"), 'preload = ["./missing.ts"]\n');
    expect(await run(["--version"], { cwd: withBunfig })).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    const withDotenv = mkdtempSync(join(tmpdir(), "mc-image-dotenv-"));
    writeFileSync(join(withDotenv, ".env"), "KUBECONFIG=/nonexistent/from-dotenv\n");
    const r = await run(["install"], { cwd: withDotenv });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("from-dotenv");
  });

  test("serve runs with exactly the Deployment's args (plus a free admin port): finds its Link, leads, stops on SIGTERM", async () => {
    const [east, west] = await Promise.all([startSandbox({ name: "east" }), startSandbox({ name: "west" })]);
    sandboxes.push(east, west);
    await Promise.all([installMc(east), installMc(west)]);
    const eastKubeconfig = join(work, "east.kubeconfig");
    const westKubeconfig = join(work, "west.kubeconfig");
    writeFileSync(eastKubeconfig, east.kubeconfig);
    writeFileSync(westKubeconfig, west.kubeconfig);
    const link = await run(["--kubeconfig", eastKubeconfig, "link", "--cluster-name", "east"]);
    expect(link.stderr).toBe("");
    const objects = parseManifests(link.stdout);
    applyObjects(west, objects);
    const deployment = objects.find((o) => o.kind === "Deployment") as unknown as {
      spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
    };
    const args = deployment.spec.template.spec.containers[0]!.args;
    // The pod's kube credentials come from its environment, not from flags.
    const serve = await spawnUntil(
      [...entrypoint, ...args, "--admin-addr=127.0.0.1:0"],
      /admin server listening on (\S+)[\s\S]*mirroring east/,
      {
        cwd: image,
        env: podEnv({ KUBECONFIG: westKubeconfig }),
      },
    );
    procs.push(serve.proc);
    const admin = /admin server listening on (\S+)/.exec(serve.stderr())![1]!;
    expect((await fetch(`${admin}/live`)).status).toBe(200);
    // The pod's HOSTNAME, as the Lease holder (with a per-process suffix).
    const lease = west.store.get({ group: "coordination.k8s.io", plural: "leases" }, "linkerd-multicluster", leaseName("east"));
    expect((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity).toMatch(/^mc-image-test_[0-9a-f]{8}$/);
    serve.proc.kill("SIGTERM");
    expect(await serve.proc.exited).toBe(0);
    expect(serve.stderr()).not.toMatch(/\berror\b/i);
  });

  test.skipIf(!hasKubectl)(
    needsKubectl("sandbox serves kubectl, which applies what install prints (but Linkerd's policy kinds)"),
    async () => {
      const kubeconfig = join(work, "sandbox.kubeconfig");
      releaseProbePort = await holdProbePort(); // its gateway's stand-in answers at 127.0.0.1:4191 once install is applied
      const sandbox = await spawnUntil(
        [...entrypoint, "sandbox", "--name", "s", "--port", "0", "--kubeconfig", kubeconfig],
        /sandbox s ready at/,
        { cwd: image, env: podEnv() },
      );
      procs.push(sandbox.proc);
      const kubectl = kubectlFor(readFileSync(kubeconfig, "utf8"));
      const install = await run(["install", "--ignore-cluster"]);
      // A bare sandbox has no Linkerd, so no policy.linkerd.io CRDs.
      const objects = parseManifests(install.stdout).filter((o) => !o.apiVersion.startsWith("policy.linkerd.io/"));
      const applied = await kubectl(["apply", "-f", "-"], { stdin: objects.map((o) => JSON.stringify(o)).join("\n") });
      expect(applied.stderr).toBe("");
      expect(applied.stdout).toContain("customresourcedefinition.apiextensions.k8s.io/links.multicluster.linkerd.io created");
      expect((await kubectl(["get", "links", "-A"])).code).toBe(0);
      sandbox.proc.kill("SIGTERM");
      expect(await sandbox.proc.exited).toBe(0);
      releaseProbePort();
    },
  );
});
