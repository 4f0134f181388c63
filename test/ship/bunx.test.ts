// `bunx mc <command>`: from a checkout (package.json's devDependency "mc": "link:." puts the bin in node_modules/.bin, which bunx looks in
// first), and from the packed tarball installed in a project of its own, offline. bunx falls back to the npm registry, where "mc" is
// someone else's package: a registry that refuses connections makes such a fallback fail instead of fetching it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, lstatSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { hasKubectl, needsKubectl } from "../helpers/kubectl.ts";
import { installMc } from "../helpers/linkerd.ts";
import { writeConsumer } from "./consumer.ts";

const ROOT = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "mc-bunx-"));
const consumer = join(work, "consumer");
const offline = { ...process.env, NO_COLOR: "1", BUN_CONFIG_REGISTRY: "http://127.0.0.1:9/" };
let listing: string[] = [];

async function sh(command: string[], o: { cwd: string; env?: Record<string, string | undefined> }) {
  const proc = Bun.spawn(command, { cwd: o.cwd, env: o.env ?? offline, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function ok(command: string[], o: { cwd: string; env?: Record<string, string | undefined> }): Promise<string> {
  const r = await sh(command, o);
  if (r.code !== 0) throw new Error(`${command.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  const tarball = (await ok(["bun", "pm", "pack", "--destination", work, "--quiet"], { cwd: ROOT })).trim().split("\n").at(-1)!;
  listing = (await ok(["tar", "tzf", tarball], { cwd: work })).trim().split("\n");
  await ok(["mkdir", consumer], { cwd: work });
  const name = tarball.split("/").at(-1)!;
  copyFileSync(tarball, join(consumer, name));
  const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(readFileSync(tarball)).digest("base64")}`;
  writeConsumer(consumer, { checkoutLock: readFileSync(join(ROOT, "bun.lock"), "utf8"), pkg, tarball: name, integrity });
  // --offline: from Bun's cache only (the checkout's install filled it); the cache is keyed by registry, so not `offline`'s.
  await ok(["bun", "install", "--offline", "--frozen-lockfile"], { cwd: consumer, env: process.env });
}, 60_000);

describe("bunx mc from a checkout", () => {
  test("runs cmd/mc.ts, at the root and from a subdirectory", async () => {
    expect(readFileSync(join(ROOT, "cmd", "mc.ts"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env bun");
    for (const cwd of [ROOT, join(ROOT, "test")])
      expect(await sh(["bunx", "mc", "--version"], { cwd })).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  test("bunx mc install --ignore-cluster prints what mc install prints", async () => {
    expect(await ok(["bunx", "mc", "install", "--ignore-cluster"], { cwd: ROOT })).toBe(
      (await runMc(["install", "--ignore-cluster"])).stdout,
    );
  });
});

describe("bunx mc from the packed tarball, installed in a project of its own", () => {
  test("the tarball holds cmd/, src/, k8s/ (its data, not its generators), package.json and README.md, and no tests, benches or docs", () => {
    const top = new Set(listing.map((p) => p.replace(/^package\//, "").split("/")[0]));
    expect([...top].sort()).toEqual(["README.md", "cmd", "k8s", "package.json", "src"]);
    for (const file of ["cmd/mc.ts", "src/manifests/crd.ts", "k8s/link-crd.yaml", "k8s/sandbox/linkerd-policy-crds.yaml"])
      expect(listing).toContain(`package/${file}`);
    expect(listing.filter((p) => /^package\/k8s\/.*\.ts$/.test(p))).toEqual([]);
  });

  test("its dependencies are mc's own: no devDependency came along", () => {
    for (const dev of Object.keys(pkg.devDependencies).filter((d) => d !== pkg.name))
      expect({ dev, installed: existsSync(join(consumer, "node_modules", dev)) }).toEqual({ dev, installed: false });
    expect(existsSync(join(consumer, "node_modules", ".bin", "mc"))).toBe(true);
    // A copy unpacked from the tarball, not a link back to the checkout.
    expect(lstatSync(join(consumer, "node_modules", "mc")).isSymbolicLink()).toBe(false);
  });

  test("bunx mc --version and install --ignore-cluster run from the project", async () => {
    expect(await sh(["bunx", "mc", "--version"], { cwd: consumer })).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    expect(await ok(["bunx", "mc", "install", "--ignore-cluster"], { cwd: consumer })).toBe(
      (await runMc(["install", "--ignore-cluster"])).stdout,
    );
  });

  describe("the README's bunx line", () => {
    const line = "bunx mc --context east link --cluster-name east | kubectl --context west apply -f -";
    const sandboxes: Sandbox[] = [];
    afterAll(() => Promise.all(sandboxes.map((s) => s.stop())));

    test("is in the README", () => {
      expect(readFileSync(join(ROOT, "README.md"), "utf8").includes(line)).toBe(true);
    });

    test.skipIf(!hasKubectl)(needsKubectl("links east to west as written, with both contexts in KUBECONFIG"), async () => {
      const [east, west] = await Promise.all([startSandbox({ name: "east" }), startSandbox({ name: "west" })]);
      sandboxes.push(east, west);
      await Promise.all([installMc(east), installMc(west)]);
      for (const s of [east, west]) writeFileSync(join(work, `${s.name}.kubeconfig`), s.kubeconfig);
      const env = { ...offline, HOME: work, KUBECONFIG: [join(work, "east.kubeconfig"), join(work, "west.kubeconfig")].join(":") };
      const r = await sh(["bash", "-o", "pipefail", "-c", line], { cwd: consumer, env });
      expect(r.stdout).toContain("link.multicluster.linkerd.io/east created");
      expect(r.code).toBe(0);
      expect(west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, "linkerd-multicluster", "east")).toBeDefined();
    });
  });
});
