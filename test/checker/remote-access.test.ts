// The remote access check against a fake target API that denies what the controller needs
// (unit level; test/checker/access-denied.test.ts does it live through the sandbox's RBAC), and one that is not there at all.
import { afterAll, describe, expect, test } from "bun:test";
import { remoteAccess } from "../../src/checker/checks/remote.ts";
import { createCheckContext } from "../../src/checker/context.ts";
import { runChecks } from "../../src/checker/runner.ts";
import { connectKubeconfigText, type KubeClient } from "../../src/kube/index.ts";
import { serviceMirrorName } from "../../src/model/names.ts";
import { link } from "./fixtures.ts";

const reviews: string[] = [];
/** What the fake target denies: `verb resource`. */
let deny = new Set<string>();
const denying = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/version") return Response.json({ major: "1", minor: "32" });
    if (url.pathname.endsWith("/selfsubjectaccessreviews")) {
      const body = (await req.json()) as {
        spec: { resourceAttributes: { verb: string; resource: string; group: string; name?: string; namespace?: string } };
      };
      const a = body.spec.resourceAttributes;
      reviews.push(`${a.verb} ${a.resource}${a.group ? `.${a.group}` : ""}${a.name ? ` ${a.namespace}/${a.name}` : ""}`);
      const allowed = !deny.has(`${a.verb} ${a.resource}`);
      return Response.json({ ...body, status: { allowed, reason: allowed ? "" : "no RBAC rule" } }, { status: 201 });
    }
    return new Response("{}", { status: 404 });
  },
});
afterAll(() => denying.stop(true));

const kubeconfigFor = (server: string) => `apiVersion: v1
kind: Config
clusters: [{ name: t, cluster: { server: "${server}", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: {} }]
contexts: [{ name: t, context: { cluster: t, user: u } }]
current-context: t
`;

/** A source cluster holding only the Link's controller Deployment, run with `args` (none: no Deployment). */
const sourceWith = (args?: string[]) =>
  ({
    get: async (_res: unknown, _ns: string, name: string) => {
      if (args && name === serviceMirrorName("east"))
        return { metadata: { name }, spec: { template: { spec: { containers: [{ name: "service-mirror", args }] } } } };
      throw Object.assign(new Error("not found"), { code: 404 });
    },
  }) as unknown as KubeClient;

async function run(remote: () => Promise<KubeClient>, local: KubeClient = sourceWith()) {
  const ctx = createCheckContext({ local, linkerdNamespace: "linkerd", connectRemote: remote });
  ctx.links = [link()];
  return { report: await runChecks([remoteAccess], ctx), ctx };
}

describe("remote cluster access credentials", () => {
  test("every verb and resource the controller and mc check need is reviewed: the table the ClusterRole is rendered from", async () => {
    reviews.length = 0;
    deny = new Set();
    const { report } = await run(() => connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }));
    expect(reviews).toEqual([
      "list services",
      "watch services",
      "list endpoints",
      "watch endpoints",
      "create events",
      "get configmaps linkerd/linkerd-config",
      "list serviceexports.multicluster.x-k8s.io",
      "watch serviceexports.multicluster.x-k8s.io",
    ]);
    expect(report.results[0]!.status).toBe("success");
  });

  test("credentials that may not read ServiceExports pass with a note: the Multi-Cluster Services import is off", async () => {
    reviews.length = 0;
    deny = new Set(["list serviceexports"]);
    const { report } = await run(() => connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }));
    expect(report.results[0]!.status).toBe("success");
    expect(report.results[0]!.details).toEqual([
      "east",
      "east: the credentials may not list, watch serviceexports.multicluster.x-k8s.io: the Multi-Cluster Services import is off (apply mc install or mc allow on the target)",
    ]);
  });

  test("credentials that may not list and watch services fail, naming the verbs denied", async () => {
    deny = new Set(["list services", "watch services"]);
    const { report, ctx } = await run(() =>
      connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }),
    );
    expect(report.results[0]).toMatchObject({
      status: "error",
      details: [
        "east: the credentials may not list (no RBAC rule), watch (no RBAC rule) services (apply mc install or mc allow on the target, then mc link again)",
      ],
    });
    expect(ctx.remotes.size).toBe(0);
  });

  test("credentials that may read services but not their Endpoints, nor write Events, fail too", async () => {
    deny = new Set(["watch endpoints", "create events"]);
    const { report } = await run(() => connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }));
    expect(report.results[0]).toMatchObject({
      status: "error",
      details: [
        "east: the credentials may not watch (no RBAC rule) endpoints; create (no RBAC rule) events (apply mc install or mc allow on the target, then mc link again)",
      ],
    });
  });

  test("a controller run with --enable-endpoint-slices: its EndpointSlice reads are reviewed too", async () => {
    reviews.length = 0;
    deny = new Set();
    const { report } = await run(
      () => connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }),
      sourceWith(["serve", "--enable-endpoint-slices", "east"]),
    );
    expect(reviews).toEqual([
      "list services",
      "watch services",
      "list endpoints",
      "watch endpoints",
      "create events",
      "get configmaps linkerd/linkerd-config",
      "list endpointslices.discovery.k8s.io",
      "watch endpointslices.discovery.k8s.io",
      "list serviceexports.multicluster.x-k8s.io",
      "watch serviceexports.multicluster.x-k8s.io",
    ]);
    expect(report.results[0]!.status).toBe("success");
  });

  test("credentials that may not watch EndpointSlices fail for such a controller, naming the install flag that grants it", async () => {
    deny = new Set(["watch endpointslices"]);
    const slices = sourceWith(["serve", "--enable-endpoint-slices", "east"]);
    const { report } = await run(
      () => connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }),
      slices,
    );
    expect(report.results[0]).toMatchObject({
      status: "error",
      details: [
        "east: the credentials may not watch (no RBAC rule) endpointslices.discovery.k8s.io (apply mc install --endpoint-slices-access (or mc allow --endpoint-slices-access) on the target, then mc link again)",
      ],
    });
    // The same credentials are enough for a controller that reads Endpoints.
    const plain = await run(
      () => connectKubeconfigText(kubeconfigFor(`http://127.0.0.1:${denying.port}`), "test", { name: "east" }),
      sourceWith(["serve", "east"]),
    );
    expect(plain.report.results[0]!.status).toBe("success");
  });

  test("an unreachable target API fails with the one-line connection error", async () => {
    const { report } = await run(() =>
      connectKubeconfigText(kubeconfigFor("http://127.0.0.1:9"), "test", { name: "east", timeoutMs: 2000 }),
    );
    expect(report.results[0]!.status).toBe("error");
    expect(report.results[0]!.details[0]).toStartWith("east: ");
    expect(report.results[0]!.details[0]).not.toContain("\n");
  });
});
