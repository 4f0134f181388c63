// mc link-gen: Linkerd 2.18's name for `mc link --controller=false` — the same Secrets and Link,
// no controller, and none of mc link's controller flags.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifests } from "../../src/manifests/output.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { installMc } from "../helpers/linkerd.ts";
import { runMc } from "./run-mc.ts";

let sb: Sandbox;
let kubeconfig: string;
beforeAll(async () => {
  sb = await startSandbox({ name: "east" });
  kubeconfig = join(mkdtempSync(join(tmpdir(), "mc-link-gen-")), "east");
  writeFileSync(kubeconfig, sb.kubeconfig);
  await installMc(sb);
});
afterAll(() => sb?.stop());

/** The output without the token, which the API server mints anew for each read. */
const kindsAndNames = (yaml: string) => parseManifests(yaml).map((o) => `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`);

test("prints what mc link --controller=false prints: the credentials Secrets and the Link, no controller", async () => {
  const gen = await runMc(["--kubeconfig", kubeconfig, "link-gen", "--cluster-name", "east", "--selector", "app=web"]);
  const link = await runMc(["--kubeconfig", kubeconfig, "link", "--cluster-name", "east", "--selector", "app=web", "--controller=false"]);
  expect(gen.code).toBe(0);
  expect(gen.stderr).toBe(link.stderr);
  expect(kindsAndNames(gen.stdout)).toEqual(kindsAndNames(link.stdout));
  expect(kindsAndNames(gen.stdout)).toEqual([
    "Secret linkerd-multicluster/cluster-credentials-east",
    "Secret linkerd/cluster-credentials-east",
    "Link linkerd-multicluster/east",
  ]);
  const specOf = (yaml: string) => parseManifests(yaml).find((o) => o.kind === "Link")!.spec;
  expect(specOf(gen.stdout)).toEqual(specOf(link.stdout));
});

test("takes none of mc link's controller flags", async () => {
  const r = await runMc(["--kubeconfig", kubeconfig, "link-gen", "--cluster-name", "east", "--image", "x"]);
  expect(r).toEqual({ code: 1, stdout: "", stderr: "error: unknown flag: --image (see mc link-gen --help)\n" });
});
