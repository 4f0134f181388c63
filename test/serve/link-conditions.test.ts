// The Link's conditions: what goes wrong with a Link is on the Link, with an Event on each change.
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { connectKubeconfigText, Informer, resources, type KubeObject } from "../../src/kube/index.ts";
import type { ConnectRemote, LinkSupervisor } from "../../src/serve/supervisor.ts";
import type { Condition } from "../../src/model/conditions.ts";
import { linkResource } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { nextStatus, recordingLog, within } from "../kube/helpers.ts";
import { credentialsSecret, linkObject, remoteEndpoints, remoteService } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { linkSupervisor, list, nextController, read, readLink } from "../mirror/harness.ts";

// The Link's conditions (docs/decisions.md#d53): what goes wrong with a Link is on the Link.
// status.conditions (Ready, CredentialsValid, TargetReachable, ServicesSelected: reason, message,
// lastTransitionTime, observedGeneration) and an Event on each change; a request the target rejects
// as it is (400) is not retried; a Link that selects nothing though its mirrors existed keeps
// saying so; status.gateway.alive does not stay true while the credentials are unusable.

/** A target API that answers `list services` with 400 BadRequest (counted), and everything else with an empty list and a quiet watch. */
const rejected: string[] = [];
const target = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/api/v1/services") {
      rejected.push(url.search);
      const message = 'unable to parse requirement: values[0][mirror.linkerd.io/exported]: Invalid value: "true false"';
      return Response.json(
        { kind: "Status", apiVersion: "v1", status: "Failure", message, reason: "BadRequest", code: 400 },
        { status: 400 },
      );
    }
    if (url.searchParams.get("watch") === "true")
      return new Response(new ReadableStream({ start() {} }), { headers: { "content-type": "application/json" } });
    return Response.json({ kind: "List", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] });
  },
});
afterAll(() => target.stop(true));
const targetKubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: east, cluster: { server: "http://127.0.0.1:${target.port}" } }]
users: [{ name: u, user: {} }]
contexts: [{ name: east, context: { cluster: east, user: u } }]
current-context: east
`;

describe("a request the target rejects as it is (400)", () => {
  test("stops the informer for good: synced fails with the answer, no retry is even scheduled, one line at error", async () => {
    rejected.length = 0;
    const clock = new ManualClock();
    const log = recordingLog();
    const client = await connectKubeconfigText(targetKubeconfig, "fake", { name: "east" });
    const inf = new Informer<KubeObject>({
      client,
      resource: resources.service,
      labelSelector: "a=b",
      clock,
      log,
      backoff: { initialMs: 10, maxMs: 10 },
    });
    const failed = nextStatus(inf, (s) => s.state === "failed", "the informer to give up");
    inf.start();
    const status = await failed;
    expect(status.state === "failed" && status.error.message).toContain("400 BadRequest: unable to parse requirement");
    await expect(inf.synced).rejects.toThrow("400 BadRequest");
    expect(clock.pending).toBe(0); // a retrying informer would be waiting on a backoff timer here
    expect(rejected).toHaveLength(1);
    expect(log.at("error")).toHaveLength(1);
    expect(log.at("error")[0]).toContain("not retried");
    await inf.stop();
  });
});

let pair: Pair;
let sup: LinkSupervisor | undefined;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(async () => {
  await sup?.stop();
  sup = undefined;
  await pair.stop();
});

function supervise(connect?: ConnectRemote): LinkSupervisor {
  sup = linkSupervisor(pair, { connect });
  return sup;
}

const conditions = (): Condition[] => (readLink(pair.west)?.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
const conditionOf = (type: string) => conditions().find((c) => c.type === type);
const linkEvents = () =>
  (
    list(pair.west, "events", DEFAULT_NAMESPACE) as Array<
      KubeObject & { involvedObject: { kind: string; name: string; uid?: string }; type: string; reason: string; message: string }
    >
  ).filter((e) => e.involvedObject.kind === "Link" && e.involvedObject.name === "east");

/** Resolves once `pred` holds for the stored Link (at once, or after a later write to west). */
function untilLink(pred: () => boolean, what: string): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      if (pred()) return resolve();
      const off = pair.west.store.onCommit(() => {
        if (!pred()) return;
        off();
        resolve();
      });
    }),
    what,
  );
}

async function patchSpec(spec: Record<string, unknown>): Promise<void> {
  await pair.westClient.patch(linkResource, DEFAULT_NAMESPACE, "east", { spec });
}

describe("the Link's conditions", () => {
  test("a healthy Link: Ready, CredentialsValid, TargetReachable and ServicesSelected True, as API conventions have them", async () => {
    await pair.eastClient.create(resources.service, remoteService());
    await pair.eastClient.create(resources.endpoints, remoteEndpoints());
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    const link = await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    const started = nextController(s);
    s.start();
    await started;
    await untilLink(
      () => conditionOf("Ready")?.status === "True" && conditionOf("ServicesSelected")?.status === "True",
      "Ready and ServicesSelected True",
    );
    await s.settle();
    expect(conditions().map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Ready", "True", "Mirroring"],
      ["CredentialsValid", "True", "Accepted"],
      ["TargetReachable", "True", "Reachable"],
      ["ServicesSelected", "True", "Selected"],
    ]);
    for (const c of conditions()) {
      expect(c.message).not.toBe("");
      expect(Date.parse(c.lastTransitionTime)).not.toBeNaN();
      expect(c.observedGeneration).toBe((link.metadata as { generation?: number }).generation!);
    }
    expect(linkEvents().every((e) => e.type === "Normal")).toBe(true);
    expect(linkEvents().map((e) => e.involvedObject.uid)).toContain(link.metadata.uid);
  });

  test("a selector the target rejects (400) is reported on the Link, Ready False TargetRejected with a Warning Event, and not retried", async () => {
    rejected.length = 0;
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise(async () => connectKubeconfigText(targetKubeconfig, "fake", { name: "east" }));
    s.start();
    await untilLink(() => conditionOf("Ready")?.reason === "TargetRejected", "Ready False TargetRejected");
    await s.settle();
    expect(conditionOf("Ready")).toMatchObject({ status: "False", reason: "TargetRejected" });
    expect(conditionOf("Ready")!.message).toContain("400 BadRequest: unable to parse requirement");
    expect(conditionOf("Ready")!.message).toContain("not retried");
    const warning = linkEvents().find((e) => e.reason === "TargetRejected");
    expect(warning?.type).toBe("Warning");
    expect(rejected).toHaveLength(1);
    expect(s.controller?.informers.remoteServices?.counters.failures).toBe(1);
  });

  test("a missing Secret: CredentialsValid False SecretNotFound, a Warning Event, and status.gateway.alive no longer true", async () => {
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    await pair.westClient.patch(
      linkResource,
      DEFAULT_NAMESPACE,
      "east",
      { status: { gateway: { alive: true, lastProbeTime: new Date().toISOString() } } },
      { subresource: "status" },
    );
    const s = supervise();
    const started = nextController(s);
    s.start();
    await started;
    await pair.westClient.delete(resources.secret, DEFAULT_NAMESPACE, "cluster-credentials-east");
    await untilLink(() => conditionOf("CredentialsValid")?.reason === "SecretNotFound", "CredentialsValid False SecretNotFound");
    await s.settle();
    expect(conditionOf("Ready")).toMatchObject({ status: "False", reason: "CredentialsInvalid" });
    expect(
      linkEvents()
        .filter((e) => e.type === "Warning")
        .map((e) => e.reason),
    ).toEqual(["SecretNotFound"]);
    const gateway = (readLink(pair.west)!.status as { gateway?: { alive?: boolean; lastProbeTime?: string } }).gateway;
    expect(gateway?.alive).toBeUndefined();
    expect(gateway?.lastProbeTime).toBeString(); // the rest of what the prober wrote stays
  });

  test("a Link that selects nothing though its mirrors existed: ServicesSelected False SelectsNothing with a Warning Event, kept across a restart, True again once it selects", async () => {
    await pair.eastClient.create(resources.service, remoteService());
    await pair.eastClient.create(resources.endpoints, remoteEndpoints());
    await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
    await pair.westClient.create(linkResource, linkObject());
    const s = supervise();
    let started = nextController(s);
    s.start();
    await started;
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();

    started = nextController(s);
    await patchSpec({ selector: { matchLabels: null } }); // leaves `selector: {}`, what `mc link -l ''` renders: selects nothing
    await started;
    await untilLink(() => conditionOf("ServicesSelected")?.reason === "SelectsNothing", "ServicesSelected False SelectsNothing");
    await s.settle();
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeUndefined(); // Linkerd's semantics: the mirrors go
    expect(conditionOf("ServicesSelected")!.status).toBe("False");
    expect(conditionOf("ServicesSelected")!.message).toContain("though this Link's mirrors existed");
    expect(linkEvents().find((e) => e.reason === "SelectsNothing")?.type).toBe("Warning");
    const since = conditionOf("ServicesSelected")!.lastTransitionTime;

    started = nextController(s);
    await patchSpec({ excludedLabels: ["x/y"] }); // any other spec change: a new controller, no mirrors left
    await started;
    await s.settle();
    expect(conditionOf("ServicesSelected")).toMatchObject({ status: "False", reason: "SelectsNothing", lastTransitionTime: since });

    started = nextController(s);
    await patchSpec({ selector: { matchLabels: { "mirror.linkerd.io/exported": "true" } } });
    await started;
    await untilLink(() => conditionOf("ServicesSelected")?.status === "True", "ServicesSelected True");
    expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
  });
});
