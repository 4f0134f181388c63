// Remote discovery, federated services and one process for every Link, end to end: three sandboxes (east and north linked to west with `mc
// install` and `mc link`), the real `mc serve
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resources, type KubeObject, type ResourceType } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";
import { MC, spawnUntil, type Until } from "../helpers/mc.ts";
import { GATEWAY_IP, multiclusterSetup, NS, waitFor, type Setup } from "../helpers/clusters.ts";
import { runMc } from "../cmd/run-mc.ts";

// --all` and `mc serve --local` as subprocesses, every change made and read with the real
// kubectl. In order: a remote-discovery mirror is created, converted to gateway mode and back in
// place; a Link with a broken Secret leaves the other two mirroring; `web-federated` gets members
// from east, north and the local cluster, loses one that leaves and one whose Link is deleted;
// `mc check` names a member whose Link was deleted while no controller watched.

let s: Setup;
let kubectl: Record<"east" | "north" | "west", Kubectl>;
const procs: Until[] = [];

beforeAll(async () => {
  if (!hasKubectl) return;
  s = await multiclusterSetup({ targets: ["east", "north"], exports: { east: [], north: [] }, startControllers: false });
  kubectl = {
    east: kubectlFor(await Bun.file(s.targets.get("east")!.kubeconfigPath).text()),
    north: kubectlFor(await Bun.file(s.targets.get("north")!.kubeconfigPath).text()),
    west: kubectlFor(s.west.kubeconfig),
  };
}, 30_000);
afterAll(async () => {
  for (const p of procs) p.proc.kill();
  await Promise.all(procs.map((p) => p.proc.exited));
  await s?.stop();
});

async function ok(k: Kubectl, args: string[], stdin?: string): Promise<string> {
  const r = await k(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

const json = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join("\n");
const svc = (name: string, labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "default", labels },
  spec: { ports: [{ name: "http", port: 80 }] },
});
const eps = (name: string) => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name, namespace: "default" },
  subsets: [{ addresses: [{ ip: "10.1.0.7" }], ports: [{ name: "http", port: 8080 }] }],
});

async function get(k: Kubectl, kind: string, name: string, namespace = "default"): Promise<KubeObject | undefined> {
  const r = await k(["get", kind, name, "-n", namespace, "-o", "json"]);
  return r.code === 0 ? (JSON.parse(r.stdout) as KubeObject) : undefined;
}

const until = (name: string, pred: (o: KubeObject | undefined) => boolean, what: string, kind: ResourceType = resources.service) =>
  waitFor(s.westClient, kind, "default", name, pred, what, 10_000);
const RD = "multicluster.linkerd.io/remote-discovery";
const members = (o: KubeObject | undefined) =>
  [...(o?.metadata.annotations?.[RD] ?? "").split(",").filter(Boolean)].sort().join(",") +
  (o?.metadata.annotations?.["multicluster.linkerd.io/local-discovery"] ? "+local" : "");

async function serve(args: string[], ready: RegExp): Promise<Until> {
  const p = await spawnUntil(
    ["bun", MC, "--kubeconfig", s.westKubeconfig, "serve", "--namespace", NS, "--admin-addr", "127.0.0.1:0", ...args],
    ready,
  );
  procs.push(p);
  return p;
}

describe.skipIf(!hasKubectl)(needsKubectl("remote discovery, federated services and mc serve --all (east, north → west)"), () => {
  let all: Until;

  test("mc serve --all serves both Links; a remote-discovery Service is mirrored with its labels and no Endpoints", async () => {
    await ok(kubectl.east, ["apply", "-f", "-"], json(svc("web", { "mirror.linkerd.io/exported": "remote-discovery" }), eps("web")));
    all = await serve(
      [
        "--all",
        `--probe-address=${["east", "north"].map((c) => `${c}=127.0.0.1:${s.targets.get(c)!.gateway.port}`).join(",")}`,
        "--identity=e2e-all",
      ],
      /admin server listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    await until("web-east", (o) => o?.metadata.labels?.[RD] === "east", "the remote-discovery mirror web-east");
    const mirror = (await get(kubectl.west, "service", "web-east"))!;
    const link = (await get(kubectl.west, "link", "east", "linkerd-multicluster"))!;
    expect(mirror.metadata.labels).toEqual({
      "mirror.linkerd.io/mirrored-service": "true",
      "mirror.linkerd.io/cluster-name": "east",
      "mirror.linkerd.io/link-uid": link.metadata.uid!,
      "multicluster.linkerd.io/remote-discovery": "east",
      "multicluster.linkerd.io/remote-service": "web",
    });
    expect(await get(kubectl.west, "endpoints", "web-east")).toBeUndefined();
  }, 20_000);

  test("exported=true converts it to gateway mode in place (Endpoints appear, same uid); remote-discovery again removes them", async () => {
    const uid = (await get(kubectl.west, "service", "web-east"))!.metadata.uid;
    await ok(kubectl.east, ["label", "service", "web", "mirror.linkerd.io/exported=true", "--overwrite"]);
    await until("web-east", (o) => o !== undefined && o.metadata.labels?.[RD] === undefined, "web-east in gateway mode");
    await until(
      "web-east",
      (o) => (o as { subsets?: unknown[] } | undefined)?.subsets?.length === 1,
      "web-east's gateway Endpoints",
      resources.endpoints,
    );
    const ep = (await get(kubectl.west, "endpoints", "web-east")) as KubeObject & { subsets: unknown[] };
    expect(ep.subsets).toEqual([{ addresses: [{ ip: GATEWAY_IP }], ports: [{ name: "http", port: 4143, protocol: "TCP" }] }]);
    expect((await get(kubectl.west, "service", "web-east"))!.metadata.uid).toBe(uid);

    await ok(kubectl.east, ["label", "service", "web", "mirror.linkerd.io/exported=remote-discovery", "--overwrite"]);
    await until("web-east", (o) => o === undefined, "web-east's Endpoints to go", resources.endpoints);
    const back = (await get(kubectl.west, "service", "web-east"))!;
    expect(back.metadata.uid).toBe(uid);
    expect(back.metadata.labels?.[RD]).toBe("east");
  }, 20_000);

  test("a third Link with a broken Secret: east and north keep mirroring, /ready stays ok", async () => {
    const broken = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cluster-credentials-south", namespace: NS },
      type: "mirror.linkerd.io/remote-kubeconfig",
      data: { kubeconfig: Buffer.from("not: [a kubeconfig").toString("base64") },
    };
    const link = (await get(kubectl.west, "link", "east", NS))!;
    const south = {
      apiVersion: link.apiVersion,
      kind: "Link",
      metadata: { name: "south", namespace: NS },
      spec: { ...(link.spec as object), targetClusterName: "south", clusterCredentialsSecret: "cluster-credentials-south" },
    };
    await ok(kubectl.west, ["apply", "-f", "-"], json(broken, south));
    await waitFor(
      s.westClient,
      resources.lease,
      NS,
      "service-mirror-write-south",
      (l) => (l?.spec as { holderIdentity?: string } | undefined)?.holderIdentity === "e2e-all",
      "south's Lease held by the shared process",
      10_000,
    );
    await ok(kubectl.east, ["apply", "-f", "-"], json(svc("api", { "mirror.linkerd.io/exported": "true" }), eps("api")));
    await ok(kubectl.north, ["apply", "-f", "-"], json(svc("api", { "mirror.linkerd.io/exported": "true" }), eps("api")));
    await Promise.all([until("api-east", (o) => o !== undefined, "api-east"), until("api-north", (o) => o !== undefined, "api-north")]);
    expect(all.stderr()).toContain("Secret linkerd-multicluster/cluster-credentials-south");
    expect(all.stderr()).not.toMatch(/eyJ|Bearer/);
    expect(await (await fetch(`${all.match[1]}/ready`)).text()).toBe("ok\n");
    await ok(kubectl.west, ["delete", "link", "south", "-n", NS]);
  }, 20_000);

  test("web-federated unions east, north and the local cluster; east leaving and north's Link deleted remove their members", async () => {
    const member = { "mirror.linkerd.io/federated": "member" };
    await ok(kubectl.east, ["label", "service", "web", "mirror.linkerd.io/federated=member"]);
    await ok(kubectl.north, ["apply", "-f", "-"], json(svc("web", member), eps("web")));
    await ok(kubectl.west, ["apply", "-f", "-"], json(svc("web", member)));
    await serve(["--local", "--identity=e2e-local"], /campaigning for lease/);
    await until("web-federated", (o) => members(o) === "web@east,web@north+local", "web-federated with three members");
    const fed = (await get(kubectl.west, "service", "web-federated"))!;
    expect(fed.metadata.labels).toEqual({ "mirror.linkerd.io/mirrored-service": "true" });
    expect((fed.spec as { ports: unknown[] }).ports).toEqual([{ name: "http", port: 80, protocol: "TCP", targetPort: 80 }]);
    expect(await get(kubectl.west, "endpoints", "web-federated")).toBeUndefined();
    const status = (await get(kubectl.west, "link", "east", NS))!.status as {
      federatedServices?: Array<{ conditions: Array<{ reason: string }> }>;
    };
    expect(status.federatedServices?.[0]?.conditions[0]?.reason).toBe("Mirrored");

    await ok(kubectl.east, ["label", "service", "web", "mirror.linkerd.io/federated-"]);
    await until("web-federated", (o) => members(o) === "web@north+local", "east's member to leave");

    await ok(kubectl.west, ["delete", "link", "north", "-n", NS]);
    await until("web-federated", (o) => members(o) === "+local", "north's member to go with its Link");
    const check = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
    const federatedCheck = (
      JSON.parse(check.stdout) as { categories: Array<{ checks: Array<{ description: string; result: string }> }> }
    ).categories[0]!.checks.find((c) => c.description === "all federated service members are part of a Link");
    expect(federatedCheck?.result).toBe("success");
  }, 30_000);

  test("a Link deleted while no controller runs leaves its member, and mc check names it", async () => {
    await ok(kubectl.east, ["label", "service", "web", "mirror.linkerd.io/federated=member"]);
    await until("web-federated", (o) => members(o) === "web@east+local", "east's member back");
    for (const p of procs.splice(0)) {
      p.proc.kill("SIGTERM");
      expect(await p.proc.exited).toBe(0);
    }
    await ok(kubectl.west, ["delete", "link", "east", "-n", NS]);
    const r = await runMc(["--kubeconfig", s.westKubeconfig, "check"]);
    expect(r.stdout).toContain(
      "‼ all federated service members are part of a Link\n    federated services with members whose Link is gone:\n    * default/web-federated: web@east has no Link\n",
    );
    expect(members(await get(kubectl.west, "service", "web-federated"))).toBe("web@east+local");
    expect(await s.westClient.get<KubeObject>(linkResource, NS, "east").catch(() => undefined)).toBeUndefined();
  }, 20_000);
});
