// The Dockerfile, read as a container engine would (none runs on the CI machines), and the
// Deployment `mc link` renders for it: the image's ENTRYPOINT is /mc, so the container's args must
// be a command line the real `mc serve` definition accepts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, type ArgsDef, type CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import { main } from "../../cmd/mc.ts";
import serveCommand from "../../cmd/serve.ts";
import { LINKERD_UID } from "../../src/manifests/gateway.ts";
import { parseManifests } from "../../src/manifests/output.ts";
import { defaultImage } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { installMc } from "../helpers/linkerd.ts";
import { copyArgs, labels, parseDockerfile, type Stage } from "./dockerfile.ts";

const ROOT = join(import.meta.dir, "..", "..");
const stages = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const build = stages[0]!;
const final = stages.at(-1)!;
const only = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

describe("Dockerfile", () => {
  test("builds with the official Bun image at .bun-version, then runs from a separate final stage", () => {
    expect(stages.length).toBe(2);
    expect(build.from).toBe(`oven/bun:${readFileSync(join(ROOT, ".bun-version"), "utf8").trim()}`);
    expect(build.name).toBe("build");
    const runs = only(build, "RUN").map((r) => r.text);
    expect(runs.some((r) => r.includes("bun install --frozen-lockfile"))).toBe(true);
    // The same script CI builds dist/mc with (package.json "build").
    expect(runs.some((r) => r.includes("bun run build"))).toBe(true);
  });

  test("the final stage has no shell or package manager: distroless (not :debug), no RUN or SHELL", () => {
    expect(final.from).toMatch(/^gcr\.io\/distroless\/[a-z-]+-debian\d+(:nonroot|:latest)?$/);
    expect(only(final, "RUN")).toEqual([]);
    expect(only(final, "SHELL")).toEqual([]);
    // Only the binary comes in, from the build stage.
    expect(only(final, "COPY").map(copyArgs)).toEqual([{ from: "build", sources: ["/src/dist/mc"], dest: "/mc" }]);
    expect(only(final, "ADD")).toEqual([]);
  });

  test("runs as a numeric non-root user: Linkerd's uid, as the rendered Deployment does", () => {
    const users = only(final, "USER");
    expect(users.length).toBe(1);
    const [uid, gid] = users[0]!.text.split(":");
    expect(users[0]!.text).toMatch(/^\d+(:\d+)?$/);
    expect(Number(uid)).toBe(LINKERD_UID);
    expect(Number(gid ?? uid)).toBe(LINKERD_UID);
  });

  test('ENTRYPOINT ["/mc"] in exec form, no CMD', () => {
    const entry = only(final, "ENTRYPOINT");
    expect(entry.map((e) => e.exec)).toEqual([["/mc"]]);
    expect(only(final, "CMD")).toEqual([]);
  });

  test("OCI labels name the source, version and licence of package.json, and the source is the image's repository", () => {
    const l = labels(final);
    expect(l["org.opencontainers.image.version"]).toBe(pkg.version);
    expect(l["org.opencontainers.image.licenses"]).toBe(pkg.license);
    expect(l["org.opencontainers.image.source"]).toBe(pkg.repository.url);
    expect(l["org.opencontainers.image.title"]).toBe(pkg.name);
    // ghcr.io links an image to the GitHub repository its source label names.
    const repo = new URL(pkg.repository.url).pathname.slice(1);
    expect(defaultImage(pkg.version)).toBe(`ghcr.io/${repo}:${pkg.version}`);
  });

  test(".dockerignore keeps nothing out that the Dockerfile copies", () => {
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    const copied = only(build, "COPY").flatMap((c) => copyArgs(c).sources);
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied)
      for (const pattern of ignored)
        expect({ source, ignored: new Bun.Glob(pattern).match(source) || source.startsWith(`${pattern}/`) }).toEqual({
          source,
          ignored: false,
        });
  });
});

describe("the Deployment mc link renders, as the image runs it", () => {
  let east: Sandbox;
  let container: { image: string; command?: string[]; args: string[] };

  beforeAll(async () => {
    east = await startSandbox({ name: "east" });
    await installMc(east);
    const kubeconfig = join(mkdtempSync(join(tmpdir(), "mc-ship-")), "east.kubeconfig");
    writeFileSync(kubeconfig, east.kubeconfig);
    const r = await runMc(["--kubeconfig", kubeconfig, "link", "--cluster-name", "east"]);
    if (r.code !== 0) throw new Error(`mc link failed: ${r.stderr}`);
    const deployment = parseManifests(r.stdout).find((o) => o.kind === "Deployment")!;
    container = (deployment as unknown as { spec: { template: { spec: { containers: (typeof container)[] } } } }).spec.template.spec
      .containers[0]!;
  });
  afterAll(() => east?.stop());

  test("runs the image at the package version, with the image's ENTRYPOINT (no command)", () => {
    expect(container.image).toBe(defaultImage(pkg.version));
    expect(container.command).toBeUndefined();
  });

  test("its args are `serve` and flags the real serve command defines, with the link as the one positional", async () => {
    const [name, ...rest] = container.args;
    // `serve` names the command mc runs for it.
    const subCommands = (await resolve(main.subCommands)) as Record<string, unknown>;
    expect(name).toBe("serve");
    expect(await resolve(subCommands[name!])).toBe(serveCommand);
    const defs = (await resolve((serveCommand as CommandDef<ArgsDef>).args)) as ArgsDef;
    const known = new Set(Object.keys(defs));
    for (const arg of rest.filter((a) => a.startsWith("-")))
      expect({ arg, known: known.has(/^--([^=]+)/.exec(arg)?.[1] ?? arg) }).toEqual({ arg, known: true });
    const parsed: Record<string, unknown> = parseArgs(rest, defs);
    expect(parsed._).toEqual(["east"]);
    expect(parsed).toMatchObject({ link: "east" });
    expect(parsed).toMatchObject({
      namespace: "linkerd-multicluster",
      "log-level": "info",
      "log-format": "plain",
      "event-requeue-limit": "3",
      "probe-service": "probe-gateway-east",
    });
  });
});

async function resolve<T>(value: T | (() => T | Promise<T>) | Promise<T>): Promise<T> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}
