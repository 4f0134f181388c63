// `mc serve` as a process, against two `mc sandbox` processes, checked with kubectl: a Service
// exported in east appears in west through a (fake) gateway that the prober finds alive, and
// disappears when unexported; SIGTERM stops it cleanly. Plus the one-line flag errors.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectKubeconfigText, resources, waitForObject, type KubeObject } from "../../src/kube/index.ts";
import { renderLinkCrd } from "../../src/manifests/crd.ts";
import { hasKubectl, needsKubectl, kubectlFor, type Kubectl } from "../helpers/kubectl.ts";
import { MC, mc, mcUntil } from "../helpers/mc.ts";
import { credentialsSecret, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "mc-serve-cmd-"));
const procs: Bun.Subprocess[] = [];
const servers: Array<{ stop(): void }> = [];
afterAll(() => {
  for (const p of procs) p.kill();
  for (const s of servers) s.stop();
});

async function sandbox(name: string) {
  const path = join(dir, `${name}.kubeconfig`);
  const run = await mcUntil(
    ["sandbox", "--name", name, "--port", "0", "--kubeconfig", path],
    new RegExp(`sandbox ${name} ready at (\\S+)`),
  );
  procs.push(run.proc);
  return { path, kubeconfig: readFileSync(path, "utf8"), kubectl: kubectlFor(readFileSync(path, "utf8")) };
}

/** A long-running mc whose stderr can be awaited line by line, more than once. */
function spawnMc(args: string[]) {
  const proc = Bun.spawn(["bun", MC, ...args], { env: { ...process.env, NO_COLOR: "1" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  let text = "";
  const waiters: Array<() => void> = [];
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      text += decoder.decode(chunk);
      for (const w of waiters.splice(0)) w();
    }
    for (const w of waiters.splice(0)) w();
  })();
  const until = (re: RegExp, what = String(re)) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${text}`)), 20_000);
      const check = () => {
        const m = text.match(re);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        } else if (proc.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`mc exited (${proc.exitCode}) before ${what}; stderr:\n${text}`));
        } else waiters.push(check);
      };
      check();
    });
  return { proc, until, stderr: () => text };
}

async function ok(kubectl: Kubectl, args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(args, stdin === undefined ? {} : { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

const json = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join("\n");

describe("mc serve (subprocess)", () => {
  test.skipIf(!hasKubectl)(
    needsKubectl(
      "mirrors an exported Service from one mc sandbox into another through an alive gateway, removes it when unexported, and stops on SIGTERM",
    ),
    async () => {
      const gateway = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (req) =>
          new Response(new URL(req.url).pathname === "/ready" ? "ok" : "no", {
            status: new URL(req.url).pathname === "/ready" ? 200 : 404,
          }),
      });
      servers.push(gateway);
      const [east, west] = await Promise.all([sandbox("east"), sandbox("west")]);
      await ok(east.kubectl, ["create", "namespace", "ns1"]);
      await ok(east.kubectl, ["apply", "-f", "-"], json(remoteService({ name: "web" }), remoteEndpoints({ name: "web" })));
      await ok(west.kubectl, ["apply", "-f", "-"], JSON.stringify(renderLinkCrd("mc/test")));
      await ok(west.kubectl, ["create", "namespace", "linkerd-multicluster"]);
      await ok(west.kubectl, ["create", "namespace", "ns1"]);
      const link = linkObject({
        gatewayAddress: "192.0.2.10",
        gatewayPort: "4143",
        probe: { path: "/ready", port: String(gateway.port), period: "1s" },
      });
      await ok(west.kubectl, ["apply", "-f", "-"], json(credentialsSecret("east", east.kubeconfig), link));

      const serve = spawnMc([
        "serve",
        "--kubeconfig",
        west.path,
        "--namespace",
        "linkerd-multicluster",
        "--admin-addr",
        "127.0.0.1:0",
        `--probe-address=127.0.0.1:${gateway.port}`,
        "--leader-elect=false",
        "east",
      ]);
      const [, admin] = await serve.until(/admin server listening on (http:\/\/127\.0\.0\.1:\d+)/, "the admin server");
      await serve.until(/mirrored ns1\/web as ns1\/web-east/, "the mirror");
      const svc = JSON.parse(await ok(west.kubectl, ["get", "service", "web-east", "-n", "ns1", "-o", "json"]));
      const linkUid = JSON.parse(await ok(west.kubectl, ["get", "link", "east", "-n", "linkerd-multicluster", "-o", "json"])).metadata.uid;
      expect(svc.metadata.labels).toEqual({
        "mirror.linkerd.io/mirrored-service": "true",
        "mirror.linkerd.io/cluster-name": "east",
        "mirror.linkerd.io/link-uid": linkUid,
      });
      expect(svc.spec.ports.map((p: { name: string; port: number }) => `${p.name}:${p.port}`)).toEqual(["port1:555", "port2:666"]);
      const ep = JSON.parse(await ok(west.kubectl, ["get", "endpoints", "web-east", "-n", "ns1", "-o", "json"]));
      expect(ep.subsets).toEqual([
        {
          addresses: [{ ip: "192.0.2.10" }],
          ports: [
            { name: "port1", port: 4143, protocol: "TCP" },
            { name: "port2", port: 4143, protocol: "TCP" },
          ],
        },
      ]);
      await ok(west.kubectl, [
        "wait",
        "--for=jsonpath={.status.gateway.alive}=true",
        "link/east",
        "-n",
        "linkerd-multicluster",
        "--timeout=20s",
      ]);
      expect(await (await fetch(`${admin}/ready`)).text()).toBe("ok\n");
      expect(await (await fetch(`${admin}/metrics`)).text()).toContain('gateway_alive{target_cluster_name="east"} 1');

      await ok(east.kubectl, ["label", "service", "web", "-n", "ns1", "mirror.linkerd.io/exported-"]);
      await ok(west.kubectl, ["wait", "--for=delete", "service/web-east", "-n", "ns1", "--timeout=20s"]);
      expect((await west.kubectl(["get", "endpoints", "web-east", "-n", "ns1"])).code).not.toBe(0);

      serve.proc.kill("SIGTERM");
      expect(await serve.proc.exited).toBe(0);
      expect(serve.stderr()).not.toMatch(/eyJ|Bearer/);
    },
    40_000,
  );

  for (const mode of [[], ["--enable-endpoint-slices"]]) {
    test.skipIf(!hasKubectl)(
      needsKubectl(
        `a selector-less export with unlabelled hand-managed Endpoints and a selector export of a Deployment's Pods are mirrored alike, emptied alike and restored alike${mode.length ? ", reading EndpointSlices" : ""}`,
      ),
      async () => {
        const gateway = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
        servers.push(gateway);
        const [east, west] = await Promise.all([sandbox(`east${mode.length}`), sandbox(`west${mode.length}`)]);
        const exported = { "mirror.linkerd.io/exported": "true" };
        const http = [{ name: "http", port: 80, targetPort: 8080 }];
        await ok(east.kubectl, ["create", "namespace", "ns1"]);
        await ok(east.kubectl, ["create", "deployment", "web", "-n", "ns1", "--image=nginx", "--replicas=2", "--port=8080"]);
        await ok(east.kubectl, ["rollout", "status", "deployment/web", "-n", "ns1", "--timeout=10s"]);
        const hand = (subsets: unknown[]) => ({ apiVersion: "v1", kind: "Endpoints", metadata: { name: "db", namespace: "ns1" }, subsets });
        await ok(
          east.kubectl,
          ["apply", "-f", "-"],
          json(
            { apiVersion: "v1", kind: "Service", metadata: { name: "db", namespace: "ns1", labels: exported }, spec: { ports: http } },
            hand([{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "http", port: 8080 }] }]),
            {
              apiVersion: "v1",
              kind: "Service",
              metadata: { name: "web", namespace: "ns1", labels: exported },
              spec: { selector: { app: "web" }, ports: http },
            },
          ),
        );
        expect(JSON.parse(await ok(east.kubectl, ["get", "endpoints", "db", "-n", "ns1", "-o", "json"])).metadata.labels).toBeUndefined();
        await ok(west.kubectl, ["apply", "-f", "-"], JSON.stringify(renderLinkCrd("mc/test")));
        await ok(west.kubectl, ["create", "namespace", "linkerd-multicluster"]);
        await ok(west.kubectl, ["create", "namespace", "ns1"]);
        const link = linkObject({
          gatewayAddress: "192.0.2.10",
          gatewayPort: "4143",
          probe: { path: "/ready", port: String(gateway.port), period: "1s" },
        });
        await ok(west.kubectl, ["apply", "-f", "-"], json(credentialsSecret("east", east.kubeconfig), link));
        const westClient = await connectKubeconfigText(west.kubeconfig, "west");
        const ready = (n: number) => (o: KubeObject | undefined) =>
          ((o as { subsets?: Array<{ addresses?: unknown[] }> } | undefined)?.subsets ?? []).reduce(
            (k, x) => k + (x.addresses?.length ?? 0),
            0,
          ) === n && !!o;
        const both = (pred: (o: KubeObject | undefined) => boolean, what: string) =>
          Promise.all(
            ["db-east", "web-east"].map((name) =>
              waitForObject(westClient, resources.endpoints, "ns1", name, pred, { what: `${name} ${what}`, timeoutMs: 20_000 }),
            ),
          );

        const serve = spawnMc([
          "serve",
          "--kubeconfig",
          west.path,
          "--namespace",
          "linkerd-multicluster",
          "--admin-addr",
          "127.0.0.1:0",
          `--probe-address=127.0.0.1:${gateway.port}`,
          "--leader-elect=false",
          ...mode,
          "east",
        ]);
        await both(ready(1), "with a ready address");
        const subsets = async (name: string) =>
          JSON.parse(await ok(west.kubectl, ["get", "endpoints", name, "-n", "ns1", "-o", "json"])).subsets;
        const expected = [{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "http", port: 4143, protocol: "TCP" }] }];
        expect(await subsets("db-east")).toEqual(expected);
        expect(await subsets("web-east")).toEqual(expected);

        // No ready target endpoint: the hand-managed Endpoints emptied, every Pod failing readiness.
        await ok(east.kubectl, ["replace", "-f", "-"], JSON.stringify(hand([])));
        const pods = JSON.parse(await ok(east.kubectl, ["get", "pods", "-n", "ns1", "-l", "app=web", "-o", "json"])).items as Array<{
          metadata: { name: string };
          status: { conditions: Array<{ type: string }> };
        }>;
        for (const pod of pods) {
          const i = pod.status.conditions.findIndex((c) => c.type === "Ready");
          await ok(east.kubectl, [
            "patch",
            "pod",
            pod.metadata.name,
            "-n",
            "ns1",
            "--subresource=status",
            "--type",
            "json",
            "-p",
            JSON.stringify([{ op: "replace", path: `/status/conditions/${i}/status`, value: "False" }]),
          ]);
        }
        await both((o) => !!o && ((o as { subsets?: unknown[] }).subsets ?? []).length === 0, "with no subsets");
        expect((await subsets("db-east")) ?? []).toEqual([]);
        expect((await subsets("web-east")) ?? []).toEqual([]);

        // And back: an address in the hand-managed Endpoints, one Pod ready again.
        await ok(
          east.kubectl,
          ["replace", "-f", "-"],
          JSON.stringify(hand([{ addresses: [{ ip: "192.0.2.10" }], ports: [{ name: "http", port: 8080 }] }])),
        );
        const i = pods[0]!.status.conditions.findIndex((c) => c.type === "Ready");
        await ok(east.kubectl, [
          "patch",
          "pod",
          pods[0]!.metadata.name,
          "-n",
          "ns1",
          "--subresource=status",
          "--type",
          "json",
          "-p",
          JSON.stringify([{ op: "replace", path: `/status/conditions/${i}/status`, value: "True" }]),
        ]);
        await both(ready(1), "with a ready address again");
        expect(await subsets("db-east")).toEqual(expected);
        expect(await subsets("web-east")).toEqual(expected);

        serve.proc.kill("SIGTERM");
        expect(await serve.proc.exited).toBe(0);
      },
      60_000,
    );
  }

  test.skipIf(!hasKubectl)(
    needsKubectl("--fast-failure-detection reaches the prober: a failed probe is confirmed at period/10 until the threshold"),
    async () => {
      let up = true;
      const gateway = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () => new Response(up ? "ok" : "down", { status: up ? 200 : 503 }),
      });
      servers.push(gateway);
      const [east, west] = await Promise.all([sandbox("east-ffd"), sandbox("west-ffd")]);
      await ok(west.kubectl, ["apply", "-f", "-"], JSON.stringify(renderLinkCrd("mc/test")));
      await ok(west.kubectl, ["create", "namespace", "linkerd-multicluster"]);
      const link = linkObject({
        gatewayAddress: "192.0.2.10",
        gatewayPort: "4143",
        probe: { path: "/ready", port: String(gateway.port), period: "1s" },
      }); // failureThreshold: the CRD default, 3
      await ok(west.kubectl, ["apply", "-f", "-"], json(credentialsSecret("east", east.kubeconfig), link));
      const serve = spawnMc([
        "serve",
        "--kubeconfig",
        west.path,
        "--namespace",
        "linkerd-multicluster",
        "--admin-addr",
        "127.0.0.1:0",
        `--probe-address=127.0.0.1:${gateway.port}`,
        "--leader-elect=false",
        "--fast-failure-detection",
        "east",
      ]);
      await serve.until(
        /probing gateway east at \/ready every 1s \(timeout 30s, dead after 3 failed probes, confirmed every 100ms, unanswered for 33ms counts as failed once it has answered\)/,
        "the prober's start line",
      );
      await ok(west.kubectl, [
        "wait",
        "--for=jsonpath={.status.gateway.alive}=true",
        "link/east",
        "-n",
        "linkerd-multicluster",
        "--timeout=20s",
      ]);
      up = false;
      await serve.until(
        /gateway east probe failed \(1 of 3 before it counts as dead\): .*HTTP 503; probing again in 100ms/,
        "the first failure, confirmed at period/10",
      );
      await serve.until(/gateway east became unreachable after 3 failed probes/, "the verdict");
      serve.proc.kill("SIGTERM");
      expect(await serve.proc.exited).toBe(0);
    },
    40_000,
  );

  test("flag mistakes are one line naming the flag, with exit code 1", async () => {
    const cases: Array<[string[], string]> = [
      [["serve"], "error: LINK_NAME: is required: the Link to serve, e.g. mc serve --namespace linkerd-multicluster east\n"],
      [["serve", "east", "--log-format=xml"], 'error: --log-format: must be one of plain, json, got "xml"\n'],
      [["serve", "east", "--event-requeue-limit=-1"], 'error: --event-requeue-limit: must be a whole number of retries, got "-1"\n'],
      [
        ["serve", "--all", "--local"],
        "error: --all and --local are mutually exclusive: run one process for the Links and another for the local mirror\n",
      ],
      [
        ["serve", "east", "--all"],
        'error: LINK_NAME: "east" and --all are mutually exclusive: serve one Link, every Link (--all), or the local mirror (--local)\n',
      ],
      [
        ["serve", "--local", "--federated-service-selector=a b"],
        'error: --federated-service-selector: cannot parse selector term "a b" in "a b" (use kubectl\'s selector syntax, e.g. mirror.linkerd.io/exported=true), got "a b"\n',
      ],
    ];
    for (const [args, stderr] of cases) {
      const r = await mc(args);
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ code: 1, stderr, stdout: "" });
    }
  });
});
