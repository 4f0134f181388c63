// Two Links of a namespace with one target cluster: the one created first mirrors it, the other is refused (deterministically:
// creationTimestamp, then name) — its controller never runs, so the two never write the same mirrors.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { linksAreValid, linksTargetOwnClusters } from "../../src/checker/checks/links.ts";
import { createCheckContext } from "../../src/checker/context.ts";
import { runChecks } from "../../src/checker/runner.ts";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import { linkResource, oldestFirst } from "../../src/model/link.ts";
import { DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { serve, type Serving } from "../../src/serve/serve.ts";
import { within } from "../kube/helpers.ts";
import { credentialsSecret, fakeResolver, linkObject, remoteService } from "../mirror/fixtures.ts";
import { startPair, waitFor, type Pair } from "../helpers/clusters.ts";
import { quiet, untilStatus } from "../mirror/harness.ts";

// Both Links say so (a Conflicted condition naming the other, the refused one's Ready False, a Warning
// Event on each), `mc check` names them, and deleting the older Link hands the cluster to the newer
// one.

type Condition = { type: string; status: string; reason: string; message: string };
const NS = DEFAULT_NAMESPACE;
let pair: Pair;
const running: Serving[] = [];
beforeEach(async () => {
  pair = await startPair();
  await pair.eastClient.create(resources.service, remoteService({ name: "web" }));
  await pair.westClient.create(resources.secret, credentialsSecret("east", pair.east.kubeconfig));
  // Created in this order: "east" first (or, within the same second, first by name).
  await pair.westClient.create(linkResource, linkObject({ cluster: "east", probe: null }));
  const copy = linkObject({ cluster: "east", probe: null });
  await pair.westClient.create(linkResource, { ...copy, metadata: { ...copy.metadata, name: "east-copy" } });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await pair.stop();
});

const options = {
  local: undefined as never,
  namespace: NS,
  adminAddr: "127.0.0.1:0",
  log: quiet,
  settings: { probeDirect: true },
} as const;
const controller = {
  resolver: fakeResolver({}),
  log: quiet,
  informerBackoff: { initialMs: 20, maxMs: 100 },
  queueBackoff: { initialMs: 5, maxMs: 20 },
};

async function start(o: { all: true } | { linkName: string }): Promise<Serving> {
  const s = await serve({ ...options, local: pair.westClient, ...o, leaderElect: false, controller });
  running.push(s);
  return s;
}

const conditionOf = (o: KubeObject | undefined, type: string) =>
  ((o as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? []).find((c) => c.type === type);
const linkNamed = (name: string) => pair.westClient.get<KubeObject>(linkResource, NS, name);

/** Resolves with the first Warning Event on Link `name` with this reason (already there or arriving). */
async function warningOn(name: string, reason: string): Promise<KubeObject & { message?: string }> {
  return within(
    (async () => {
      for (;;) {
        const events = (
          await pair.westClient.list<
            KubeObject & { involvedObject?: { kind?: string; name?: string }; type?: string; reason?: string; message?: string }
          >(resources.event, { namespace: NS })
        ).items;
        const found = events.find(
          (e) => e.involvedObject?.kind === "Link" && e.involvedObject.name === name && e.type === "Warning" && e.reason === reason,
        );
        if (found) return found;
        await new Promise<void>((resolve) => {
          const off = pair.west.store.onCommit(() => (off(), resolve()));
        });
      }
    })(),
    `a Warning Event ${reason} on Link ${name}`,
  );
}

describe("two Links with one target cluster", () => {
  test("are ordered by creationTimestamp, then name, whatever order they are listed in", () => {
    const links = [
      { name: "a", creationTimestamp: "2026-12-04T10:00:05Z" },
      { name: "z", creationTimestamp: "2026-12-04T10:00:01Z" },
      { name: "b", creationTimestamp: "2026-12-04T10:00:05Z" },
    ];
    expect(oldestFirst(links).map((l) => l.name)).toEqual(["z", "a", "b"]);
    expect(oldestFirst([...links].reverse()).map((l) => l.name)).toEqual(["z", "a", "b"]);
  });

  test("mc serve --all: the older mirrors, the newer is refused and never runs a controller; both say so, with Events; mc check names them; deleting the older hands the cluster over", async () => {
    const s = await start({ all: true });
    await waitFor(pair.westClient, resources.service, "ns1", "web-east", (o) => o !== undefined, "web-east mirrored by the older Link");
    // Both Links were listed before web-east was mirrored: each has its unit, leading (no election).
    const copy = s.all!.units.get("east-copy")!.runner!;
    await untilStatus(copy, "conflict");
    await copy.settle();
    expect(copy.controller).toBeUndefined();
    expect(s.all!.units.get("east")!.runner!.status).toBe("running");

    await waitFor(
      pair.westClient,
      linkResource,
      NS,
      "east",
      (o) => conditionOf(o, "Conflicted")?.status === "True",
      "Conflicted True on the older Link",
    );
    const refused = await linkNamed("east-copy");
    expect(conditionOf(refused, "Ready")).toMatchObject({ status: "False", reason: "TargetClusterConflict" });
    expect(conditionOf(refused, "Conflicted")).toMatchObject({ status: "True", reason: "TargetClusterConflict" });
    expect(conditionOf(refused, "Conflicted")!.message).toContain(
      `Link ${NS}/east, created earlier, targets cluster east too and mirrors it: this Link is not served`,
    );
    const owner = await linkNamed("east");
    expect(conditionOf(owner, "Ready")?.status).toBe("True");
    expect(conditionOf(owner, "Conflicted")!.message).toContain(
      `Link ${NS}/east-copy, created later, targets cluster east too and is not served: this Link mirrors it`,
    );
    expect((await warningOn("east-copy", "TargetClusterConflict")).message).toContain("Conflicted is True: Link");
    expect((await warningOn("east", "TargetClusterConflict")).message).toContain("Conflicted is True");
    expect(s.ready).toBe(true);

    const ctx = createCheckContext({ local: pair.westClient, linkerdNamespace: "linkerd" });
    const report = await runChecks([linksAreValid, linksTargetOwnClusters], ctx);
    const unique = report.results.find((r) => r.id === "links-unique")!;
    expect(unique.status).toBe("error");
    expect(unique.details).toEqual([
      `east: Links ${NS}/east and ${NS}/east-copy target it; ${NS}/east-copy, created later, is not served (delete it, or give it another spec.targetClusterName)`,
    ]);

    await pair.westClient.delete(linkResource, NS, "east");
    await untilStatus(copy, "running");
    await waitFor(
      pair.westClient,
      linkResource,
      NS,
      "east-copy",
      (o) => conditionOf(o, "Conflicted")?.reason === "NoConflict",
      "Conflicted False on the Link left",
    );
    expect(conditionOf(await linkNamed("east-copy"), "Conflicted")?.status).toBe("False");
  }, 30_000);

  test("mc serve LINK (a process per Link): the newer Link's own controller sees the older one and refuses", async () => {
    const s = await start({ linkName: "east-copy" });
    await untilStatus(s.supervisor!, "conflict");
    await s.supervisor!.settle();
    expect(s.supervisor!.controller).toBeUndefined();
    expect(conditionOf(await linkNamed("east-copy"), "Ready")).toMatchObject({ status: "False", reason: "TargetClusterConflict" });
    expect(await pair.westClient.get(resources.service, "ns1", "web-east").catch(() => undefined)).toBeUndefined();
  });
});
