// One test, two backends: two clusters, east and west, on sandboxes by default or on real Kubernetes with MC_BACKEND=real (backend.ts),
// driven the same way — kubectl, `mc` as a process, the controller as `mc serve` running as the ServiceAccount `mc link` renders.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resources } from "../../src/kube/index.ts";
import { EXPORTED, FEDERATED } from "../../src/model/labels.ts";
import { SHARED_CONTROLLER_NAME } from "../../src/model/names.ts";
import { hasKubectl, kubectlSkipReason } from "../helpers/kubectl.ts";
import { MC, spawnUntil, type Until } from "../helpers/mc.ts";
import { KUBE_SECTION, readmeWalk, type Step } from "../cmd/readme-walk.ts";
import { BACKEND, realUnavailable, startBackend, type Backend } from "./backend.ts";
import { syncServices } from "./bulk.ts";
import * as T from "./tier.ts";

// First the README's walk on real clusters, read from README.md; then, linked again, each behaviour a
// user relies on, ending with the controller's whole log free of Forbidden.

const README = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
const skip = !hasKubectl ? kubectlSkipReason : realUnavailable;
const named = (name: string) => `${name} [${BACKEND}]${skip ? ` (skipped: ${skip})` : ""}`;
const SLOW = BACKEND === "real" ? 120_000 : 30_000;
/** The bulk sync's size: 1,000 on real clusters; 200 on sandboxes, where plain `bun test` must stay fast (MC_TIER_SERVICES overrides). */
const BULK = Number(process.env.MC_TIER_SERVICES) || (BACKEND === "real" ? 1000 : 200);

let b: Backend;
let dir: string;
const procs: Until[] = [];

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), "mc-tier-"));
  b = await startBackend();
}, 180_000);

afterAll(async () => {
  for (const p of procs.reverse()) {
    p.proc.kill("SIGTERM");
    await p.proc.exited;
  }
  await b?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const stopProc = async (p: Until) => {
  p.proc.kill("SIGTERM");
  await p.proc.exited;
  procs.splice(procs.indexOf(p), 1);
};

describe.skipIf(!!skip)(named("the README's walk on two real clusters, read from README.md"), () => {
  test(named(
    "runs as written (the controller as its ServiceAccount), mc check passes, and unlink and uninstall leave west clean",
  ), async () => {
    const walk = readmeWalk(README, KUBE_SECTION);
    // The first block starts the clusters: the backend did that. The walk runs where their kubeconfigs are.
    expect(walk[0]!.command).toBe("bun run kube:build && bun run kube:up && cd .scratch/kube");
    const cwd = join(dir, "walk");
    const bin = join(cwd, ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "mc"), `#!/bin/sh\nexec bun ${JSON.stringify(MC)} "$@"\n`);
    chmodSync(join(bin, "mc"), 0o755);
    writeFileSync(join(cwd, "east.kubeconfig"), readFileSync(b.east.kubeconfigPath));
    writeFileSync(join(cwd, "west.kubeconfig"), readFileSync(b.west.kubeconfigPath));
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      PATH: `${bin}:${process.env.PATH}`,
      HOME: cwd,
      NO_COLOR: "1",
    };
    delete env.KUBECONFIG;
    let checkOut = "";
    let controller: Until | undefined;
    for (const step of walk.slice(1)) {
      if (step.background) {
        expect(step.command).toBe("mc --kubeconfig west.kubeconfig serve east --probe-direct --admin-addr 127.0.0.1:0");
        // As the Deployment's pod would run it: as the controller's ServiceAccount (and on a sandbox
        // probing its loopback gateway stand-in, as the sandbox walk does).
        const kubeconfig = await T.controllerKubeconfig(b, cwd);
        const command = step.command
          .replace("--kubeconfig west.kubeconfig", `--kubeconfig ${kubeconfig}`)
          .replace("--probe-direct", b.east.gateway.probeFlags.join(" "));
        controller = await spawnUntil(["bash", "-c", `exec ${command}`], /admin server listening on/, { env, cwd });
        procs.push(controller);
        continue;
      }
      if (/^mc( --\S+ \S+)* unlink /.test(step.command) && controller) await stopProc(controller);
      const out = await run(step, cwd, env);
      if (/^mc( --\S+ \S+)* link /.test(step.command)) await T.fastProbe(b);
      if (/^mc( --\S+ \S+)* install /.test(step.command)) await T.install(step.command.includes("east.kubeconfig") ? b.east : b.west);
      if (/^kubectl .* label service web /.test(step.command)) {
        const eps = await T.until<T.Eps>(
          b.west.client,
          resources.endpoints,
          "default",
          "web-east",
          (o) => T.readyIps(o).length > 0,
          "web-east's endpoints in west",
        );
        expect(T.readyIps(eps)).toEqual([b.east.gateway.address]);
      }
      if (/^mc( --\S+ \S+)* check\b/.test(step.command)) checkOut = out;
    }
    expect(checkOut).toContain("√ all gateways are alive");
    expect(checkOut).toContain("√ all mirror services have endpoints");
    expect(checkOut).not.toContain("×");
    expect(T.forbidden(controller!.stderr())).toEqual([]);
    expect(
      (await b.west.client.list(resources.service, { namespace: "default", labelSelector: "mirror.linkerd.io/cluster-name=east" })).items,
    ).toEqual([]);
  }, 240_000);
});

async function run(step: Step, cwd: string, env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn(["bash", "-o", "pipefail", "-c", step.command], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`README step failed (exit ${code}): ${step.command}\n${stdout}\n${stderr}`);
  return stdout;
}

describe.skipIf(!!skip)(named("east linked to west, the controller as its ServiceAccount"), () => {
  let ctl: Until;
  /** Where in the controller's log west's API server was restarting (start, end offsets). */
  const startingWest: [number, number][] = [];
  const east = () => b.east;
  const west = () => b.west;
  const mirror = (name: string, pred: (o: T.Svc | undefined) => boolean, what: string, ms?: number) =>
    T.until<T.Svc>(west().client, resources.service, "default", name, pred, what, ms);
  const mirrorEps = (name: string, pred: (o: T.Eps | undefined) => boolean, what: string) =>
    T.until<T.Eps>(west().client, resources.endpoints, "default", name, pred, what);
  const gatewayReady = (o: T.Eps | undefined) => T.readyIps(o).join() === b.east.gateway.address;

  beforeAll(async () => {
    if (skip) return;
    await Promise.all([T.install(east()), T.install(west())]);
    await T.link(b);
    ctl = await T.serve(b, await T.controllerKubeconfig(b, dir), ["east", "--enable-headless-services"]);
    procs.push(ctl);
    await T.until<T.LinkObj>(
      west().client,
      T.linkResource,
      T.NS,
      "east",
      (l) => l?.status?.gateway?.alive === true,
      "east's gateway alive on the Link",
    );
  }, 60_000);

  test(
    named("a selector-less export is mirrored to the gateway; a port change reaches the mirror; unexport deletes it"),
    async () => {
      await east().kubectl(["apply", "-f", "-"], T.plainService("plain", { [EXPORTED]: "true" }));
      await mirrorEps("plain-east", gatewayReady, "plain-east's endpoints at east's gateway");
      await east().kubectl([
        "patch",
        "service",
        "plain",
        "--type",
        "merge",
        "-p",
        JSON.stringify({ spec: { ports: [{ name: "http", port: 81 }] } }),
      ]);
      await mirror("plain-east", (o) => o?.spec?.ports?.[0]?.port === 81, "plain-east on port 81");
      await east().kubectl(["label", "service", "plain", `${EXPORTED}-`]);
      await mirror("plain-east", (o) => o === undefined, "plain-east deleted");
    },
    SLOW,
  );

  test(
    named("a Deployment's Service is mirrored; its Pods failing readiness empty the mirror's Endpoints, recovering refills them"),
    async () => {
      await east().kubectl(["create", "deployment", "shop", "--image=nginx", "--port=8080"]);
      await east().kubectl(["expose", "deployment", "shop", "--port=80", "--target-port=8080"]);
      await east().kubectl(["label", "service", "shop", `${EXPORTED}=true`]);
      await mirrorEps("shop-east", gatewayReady, "shop-east's endpoints at east's gateway");
      const pod = (await east().kubectl(["get", "pods", "-l", "app=shop", "-o", "name"])).trim();
      const ready = (status: string) => JSON.stringify({ status: { conditions: [{ type: "Ready", status }] } });
      await east().kubectl(["patch", pod, "--subresource=status", "-p", ready("False")]);
      await mirrorEps("shop-east", (o) => T.readyIps(o).length === 0, "shop-east without ready endpoints");
      await east().kubectl(["patch", pod, "--subresource=status", "-p", ready("True")]);
      await mirrorEps("shop-east", gatewayReady, "shop-east's endpoints back");
    },
    SLOW,
  );

  test(
    named("a headless export is mirrored headless"),
    async () => {
      const svc = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "db", namespace: "default", labels: { [EXPORTED]: "true" } },
        spec: { clusterIP: "None", ports: [{ name: "tcp", port: 5432 }] },
      };
      const eps = {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "db", namespace: "default" },
        subsets: [{ addresses: [{ ip: "10.1.0.9", hostname: "db-0" }], ports: [{ name: "tcp", port: 5432 }] }],
      };
      await east().kubectl(["apply", "-f", "-"], `${JSON.stringify(svc)}\n${JSON.stringify(eps)}`);
      await mirror("db-east", (o) => o?.spec?.clusterIP === "None", "db-east headless");
      await mirror("db-0-east", (o) => o !== undefined, "the endpoint mirror db-0-east");
      await east().kubectl(["delete", "service", "db"]);
      await mirror("db-east", (o) => o === undefined, "db-east deleted");
    },
    SLOW,
  );

  test(
    named("remote discovery: mirrored with its labels and no Endpoints; federated: web-federated names east's member"),
    async () => {
      await east().kubectl(["apply", "-f", "-"], T.plainService("rd", { [EXPORTED]: "remote-discovery" }));
      const rd = await mirror(
        "rd-east",
        (o) => o?.metadata.labels?.["multicluster.linkerd.io/remote-discovery"] === "east",
        "the remote-discovery mirror rd-east",
      );
      expect(rd!.metadata.labels?.["multicluster.linkerd.io/remote-service"]).toBe("rd");
      expect(
        await west()
          .client.get(resources.endpoints, "default", "rd-east")
          .catch(() => undefined),
      ).toBeUndefined();
      await east().kubectl(["apply", "-f", "-"], T.plainService("fed", { [FEDERATED]: "member" }));
      await mirror(
        "fed-federated",
        (o) => (o?.metadata.annotations?.["multicluster.linkerd.io/remote-discovery"] ?? "").includes("fed@east"),
        "fed-federated with fed@east",
      );
      await east().kubectl(["delete", "service", "rd", "fed"]);
      await mirror("rd-east", (o) => o === undefined, "rd-east deleted");
    },
    SLOW,
  );

  test(
    named(
      "conditions and Events: a Service whose namespace west lacks is named on the Link and gets a ServiceMirroringSkipped Event in east",
    ),
    async () => {
      await east().kubectl(["create", "namespace", "only-east"]);
      await east().kubectl(["apply", "-f", "-"], T.plainService("lonely", { [EXPORTED]: "true" }, { namespace: "only-east" }));
      const conditions = (l: T.LinkObj | undefined) =>
        (l?.status?.conditions ?? [])
          .map((c) => `${c.type}=${c.status}`)
          .sort()
          .join();
      const all = "CredentialsValid=True,Ready=True,ServicesSelected=True,TargetReachable=True";
      await T.until<T.LinkObj>(west().client, T.linkResource, T.NS, "east", (l) => conditions(l) === all, `the Link's conditions ${all}`);
      const failing = (l: T.LinkObj | undefined) =>
        l?.status?.mirrorServices?.find((m) => m.remoteRef.name === "lonely")?.conditions[0]?.reason;
      await T.until<T.LinkObj>(
        west().client,
        T.linkResource,
        T.NS,
        "east",
        (l) => failing(l) === "MissingNamespace",
        "MissingNamespace for only-east/lonely on the Link",
      );
      const event = await T.untilEvent(
        east().client,
        "only-east",
        (e) => e.reason === "ServiceMirroringSkipped" && e.involvedObject?.name === "lonely",
        "a ServiceMirroringSkipped Event on only-east/lonely in east",
      );
      expect(event.type).toBe("Normal"); // as Linkerd records it
      await west().kubectl(["create", "namespace", "only-east"]);
      await T.until<T.Svc>(
        west().client,
        resources.service,
        "only-east",
        "lonely-east",
        (o) => o !== undefined,
        "lonely-east once its namespace exists",
      );
      await T.until<T.LinkObj>(
        west().client,
        T.linkResource,
        T.NS,
        "east",
        (l) => failing(l) === undefined,
        "the Link's entry for lonely gone",
      );
    },
    SLOW,
  );

  test(
    named("the gateway dies: mirrors go not ready and the Link says not alive; back: ready again"),
    async () => {
      await east().kubectl(["apply", "-f", "-"], T.plainService("edge", { [EXPORTED]: "true" }));
      await mirrorEps("edge-east", gatewayReady, "edge-east ready");
      await east().gateway.kill();
      await mirrorEps(
        "edge-east",
        (o) => T.readyIps(o).length === 0 && T.notReadyIps(o).join() === b.east.gateway.address,
        "edge-east not ready",
      );
      await T.until<T.LinkObj>(
        west().client,
        T.linkResource,
        T.NS,
        "east",
        (l) => l?.status?.gateway?.alive === false,
        "the Link's gateway not alive",
      );
      await east().gateway.start();
      await mirrorEps("edge-east", gatewayReady, "edge-east ready again");
    },
    SLOW,
  );

  for (const side of ["east", "west"] as const) {
    test(
      named(`${side}'s API server killed with -9 and restarted: the mirrors follow changes made after it`),
      async () => {
        const from = ctl.stderr().length;
        await b[side].restartApiServer();
        const name = `after-${side}`;
        await east().kubectl(["apply", "-f", "-"], T.plainService(name, { [EXPORTED]: "true" }));
        await mirrorEps(`${name}-east`, gatewayReady, `${name}-east after ${side}'s restart`);
        if (side === "west") startingWest.push([from, ctl.stderr().length]);
        await east().kubectl(["label", "service", name, `${EXPORTED}-`]);
        await mirror(`${name}-east`, (o) => o === undefined, `${name}-east deleted`);
      },
      SLOW,
    );
  }

  test(named("east's storage restored from an older copy: deleted exports come back, newer ones go, a later change arrives"), async () => {
    await east().kubectl(["apply", "-f", "-"], T.plainService("old", { [EXPORTED]: "true" }));
    await mirrorEps("old-east", gatewayReady, "old-east");
    const copy = await east().backup();
    await east().kubectl(["apply", "-f", "-"], T.plainService("new", { [EXPORTED]: "true" }));
    await east().kubectl(["delete", "service", "old"]);
    await Promise.all([
      mirror("new-east", (o) => o !== undefined, "new-east"),
      mirror("old-east", (o) => o === undefined, "old-east deleted"),
    ]);
    await east().restore(copy);
    await Promise.all([
      mirror("new-east", (o) => o === undefined, "new-east gone with the restore", 60_000),
      mirror("old-east", (o) => o !== undefined, "old-east back with the restore", 60_000),
    ]);
    await east().kubectl(["label", "service", "old", "team=after-restore"]);
    await mirror("old-east", (o) => o?.metadata.labels?.team === "after-restore", "a label set after the restore", 60_000);
  }, 180_000);

  test(named(`${BULK.toLocaleString("en")} exported Services are mirrored, and all go when their namespace is deleted`), async () => {
    const figures = await syncServices(b, BULK);
    console.error(
      `two-backends [${BACKEND}]: ${BULK} services mirrored in ${figures.syncMs.toFixed(0)} ms, removed in ${figures.removeMs.toFixed(0)} ms`,
    );
  }, 300_000);

  test(
    named("the controller, as the ServiceAccount mc link renders, was never Forbidden (but by west's API server while it restarted)"),
    () => {
      // A kube-apiserver answers 403 to a request that comes before its RBAC cache has synced (after
      // a restart, before /readyz passes): the server's, not a grant missing. Those lines are left out.
      const log = ctl.stderr();
      let outside = "";
      let at = 0;
      for (const [from, to] of startingWest) {
        outside += log.slice(at, from);
        at = to;
      }
      outside += log.slice(at);
      expect(T.forbidden(outside)).toEqual([]);
    },
  );

  test(
    named("mc serve --all, as the shared controller install renders, serves a Link made with --controller=shared"),
    async () => {
      await stopProc(ctl);
      await west().kubectl(["apply", "-f", "-"], await T.mcText(["--kubeconfig", west().kubeconfigPath, "install", "--shared-controller"]));
      await T.link(b, ["--controller=shared"]);
      const shared = await T.serve(b, await T.controllerKubeconfig(b, dir, SHARED_CONTROLLER_NAME), ["--all"]);
      procs.push(shared);
      await east().kubectl(["apply", "-f", "-"], T.plainService("shared", { [EXPORTED]: "true" }));
      await mirrorEps("shared-east", gatewayReady, "shared-east from the shared controller");
      await east().kubectl(["label", "service", "shared", `${EXPORTED}-`]);
      await mirror("shared-east", (o) => o === undefined, "shared-east deleted");
      expect(T.forbidden(shared.stderr())).toEqual([]);
    },
    SLOW,
  );
});
