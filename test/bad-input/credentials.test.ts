// The Link's credentials Secret gone wrong in every way a user can get it wrong: one log line, reported on the Link, nothing else written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { resources, type KubeClient, type KubeObject } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import { credentialsSecretName, DEFAULT_NAMESPACE } from "../../src/model/names.ts";
import { serve } from "../../src/serve/serve.ts";
import { proberFactory } from "../../src/prober/index.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { recordingLog, type RecordingLog } from "../helpers/log.ts";
import { MC, spawnUntil } from "../helpers/mc.ts";
import { within } from "../kube/helpers.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { untilStatus } from "../mirror/harness.ts";
import { credentialsSecret, linkObject, remoteService } from "../mirror/fixtures.ts";

// The Link's credentials Secret gone wrong in every way a user can get it wrong — missing, the
// wrong type, no kubeconfig key, not base64, garbage YAML, a kubeconfig naming a context it does
// not have, a token the target does not accept, a target that is not listening, a CA that is
// not the target's — served by the controller (`serve()`, as `mc serve` runs it): one log line
// that names the Secret (or the server) and what to fix, and nothing written on either cluster
// but what reports it on the Link (docs/decisions.md#d53): its conditions (CredentialsValid,
// TargetReachable, Ready) and a Warning Event; the controller keeps running, picking the Secret
// up once it is fixed.

let pair: Pair;
let east: Sandbox;
let west: Sandbox;
let otherCa: Sandbox;
let westClient: KubeClient;
beforeAll(async () => {
  [pair, otherCa] = await Promise.all([startPair({ tls: true, namespaces: ["ns1"] }), startSandbox({ name: "other", tls: true })]);
  ({ east, west, westClient } = pair);
  await pair.eastClient.create(resources.service, remoteService());
  await westClient.create(linkResource, linkObject({ gatewayAddress: "192.0.2.10" }));
});
afterAll(async () => {
  await Promise.all([pair?.stop(), otherCa?.stop()]);
});

const NAME = credentialsSecretName("east");
const WHERE = `Secret ${DEFAULT_NAMESPACE}/${NAME} on west`;
const b64 = (s: string) => Buffer.from(s).toString("base64");
const kubeconfigWith = (edit: (cfg: Record<string, any>) => void) => {
  const cfg = YAML.parse(east.kubeconfig);
  edit(cfg);
  return YAML.stringify(cfg);
};
const secretWith = (o: { type?: string; data?: Record<string, string> }): KubeObject => ({
  ...credentialsSecret("east", east.kubeconfig),
  ...o,
});

/** The writes that only report on the Link: its status (conditions) and Events in west. */
const reporting = (w: string) => /^west: (MODIFIED multicluster\.linkerd\.io\/links east|ADDED \/events )/.test(w);

/** The Link's condition of this type, as stored in west. */
function condition(type: string): { status?: string; reason?: string; message?: string } | undefined {
  const link = west.store.get({ group: "multicluster.linkerd.io", plural: "links" }, DEFAULT_NAMESPACE, "east") as {
    status?: { conditions?: Array<{ type: string; status?: string; reason?: string; message?: string }> };
  };
  return link.status?.conditions?.find((c) => c.type === type);
}

/** Resolves once the Link's condition `type` has `reason` (at once, or at a later write). */
function untilCondition(type: string, reason: string): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      const check = () => condition(type)?.reason === reason;
      if (check()) return resolve();
      const off = west.store.onCommit(() => {
        if (!check()) return;
        off();
        resolve();
      });
    }),
    `the Link's ${type} condition to say ${reason}`,
    15_000,
  );
}

/** Resolves once west holds a Warning Event on the Link east with this reason (written from now on). */
function untilLinkEvent(reason: string): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      const off = west.store.onCommit((e) => {
        const ev = e.object as { involvedObject?: { kind?: string; name?: string }; type?: string; reason?: string };
        if (
          e.type !== "ADDED" ||
          ev.involvedObject?.kind !== "Link" ||
          ev.involvedObject.name !== "east" ||
          ev.type !== "Warning" ||
          ev.reason !== reason
        )
          return;
        off();
        resolve();
      });
    }),
    `a Warning Event ${reason} on the Link`,
    15_000,
  );
}

/** Puts the Secret (or removes it), serves the Link, and waits until the controller has acted on it. */
async function serveWith(
  secret: KubeObject | undefined,
  until: "no-secret" | "bad-secret",
): Promise<{ log: RecordingLog; written: string[]; stop(): Promise<void>; stillRunning(): boolean }> {
  const current = west.store.get({ group: "", plural: "secrets" }, DEFAULT_NAMESPACE, NAME);
  if (current) await westClient.delete(resources.secret, DEFAULT_NAMESPACE, NAME);
  if (secret) await westClient.create(resources.secret, secret);
  await westClient.patch(linkResource, DEFAULT_NAMESPACE, "east", { status: { conditions: null } }, { subresource: "status" }); // each case starts from none
  const written: string[] = [];
  const offs = [west, east].map((sb) => sb.store.onCommit((e) => written.push(`${sb.name}: ${e.type} ${e.key} ${e.object.metadata.name}`)));
  const log = recordingLog();
  const serving = await serve({
    local: westClient,
    namespace: DEFAULT_NAMESPACE,
    linkName: "east",
    adminAddr: "127.0.0.1:0",
    leaderElect: false,
    log,
    settings: { probeAddress: { "": "127.0.0.1:1" } },
    controller: { proberFactory: proberFactory(), informerBackoff: { initialMs: 20, maxMs: 200 } },
  });
  await untilStatus(serving.supervisor!, until);
  await serving.supervisor!.settle();
  return {
    log,
    written,
    stillRunning: () => serving.supervisor?.status !== "stopped",
    async stop() {
      await serving.stop();
      offs.forEach((off) => off());
    },
  };
}

describe("a credentials Secret that cannot be used", () => {
  const rows: [string, () => KubeObject | undefined, "no-secret" | "bad-secret", string][] = [
    ["missing", () => undefined, "no-secret", `credentials ${WHERE.replace(" on west", "")} not found; waiting for it`],
    [
      "of the wrong type",
      () => secretWith({ type: "Opaque" }),
      "bad-secret",
      `${WHERE}: type is "Opaque", want mirror.linkerd.io/remote-kubeconfig`,
    ],
    [
      "without the kubeconfig key",
      () => secretWith({ data: { config: b64(east.kubeconfig) } }),
      "bad-secret",
      `${WHERE}: has no data.kubeconfig`,
    ],
    [
      "with garbage YAML",
      () => secretWith({ data: { kubeconfig: b64("users: [unclosed\n  - {") } }),
      "bad-secret",
      `kubeconfig in ${WHERE}`,
    ],
  ];
  for (const [what, secret, state, line] of rows) {
    test(`${what}: one line naming the Secret and the problem, reported on the Link (CredentialsValid False, an Event), nothing else written, the controller waits`, async () => {
      const s = await serveWith(secret(), state);
      try {
        const said = [...s.log.at("error"), ...s.log.at("warn")];
        expect(said).toHaveLength(1);
        expect(said[0]).toContain(line);
        expect(s.written.filter((w) => !reporting(w))).toEqual([]);
        expect(s.written.filter((w) => w.includes("/events "))).toHaveLength(1);
        expect(condition("CredentialsValid")).toMatchObject({
          status: "False",
          reason: state === "no-secret" ? "SecretNotFound" : "SecretInvalid",
        });
        expect(condition("CredentialsValid")!.message).toContain(line.replace("; waiting for it", ""));
        expect(condition("Ready")).toMatchObject({ status: "False", reason: "CredentialsInvalid" });
        expect(s.stillRunning()).toBe(true);
      } finally {
        await s.stop();
      }
    });
  }

  test("with data that is not base64: the API server refuses the Secret itself (as kube-apiserver does)", async () => {
    const bad = {
      ...secretWith({ data: { kubeconfig: "%%%not base64%%%" } }),
      metadata: { name: "not-base64", namespace: DEFAULT_NAMESPACE },
    };
    const err = await westClient.create(resources.secret, bad).catch((e: unknown) => e);
    expect((err as Error).message).toContain('400 BadRequest: Secret in version "v1" cannot be handled as a Secret: illegal base64 data');
  });

  test("with a kubeconfig whose current-context is not in it: the context is named, and the ones there are", async () => {
    const text = kubeconfigWith((cfg) => (cfg["current-context"] = "nowhere"));
    const s = await serveWith(secretWith({ data: { kubeconfig: b64(text) } }), "bad-secret");
    try {
      const said = s.log.at("error");
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`kubeconfig in ${WHERE}`);
      expect(said[0]).toContain('"nowhere"');
      expect(s.written.filter((w) => !reporting(w))).toEqual([]);
      expect(condition("CredentialsValid")).toMatchObject({ status: "False", reason: "SecretInvalid" });
    } finally {
      await s.stop();
    }
  });
});

describe("a Secret that connects, but to the wrong place or with the wrong credentials: mc serve's log says so in words", () => {
  /** `mc serve` as a process with the Secret in place, until its stderr shows `expected` (escaped) and the Link's `type` condition says `reason`; what it wrote meanwhile. */
  async function serveLog(
    kubeconfig: string,
    expected: string,
    type: string,
    reason: string,
    event?: string,
  ): Promise<{ stderr: string; written: string[] }> {
    const current = west.store.get({ group: "", plural: "secrets" }, DEFAULT_NAMESPACE, NAME);
    if (current) await westClient.delete(resources.secret, DEFAULT_NAMESPACE, NAME);
    await westClient.create(resources.secret, secretWith({ data: { kubeconfig: b64(kubeconfig) } }));
    await westClient.patch(linkResource, DEFAULT_NAMESPACE, "east", { status: { conditions: null } }, { subresource: "status" }); // each case starts from none
    const written: string[] = [];
    const offs = [west, east].map((sb) =>
      sb.store.onCommit((e) => written.push(`${sb.name}: ${e.type} ${e.key} ${e.object.metadata.name}`)),
    );
    // With `event`: also wait for the Warning Event of that reason on the Link before stopping mc serve.
    const evented = event === undefined ? Promise.resolve() : untilLinkEvent(event);
    const path = join(mkdtempSync(join(tmpdir(), "mc-bad-creds-")), "west.kubeconfig");
    writeFileSync(path, west.kubeconfig);
    const run = await within(
      spawnUntil(
        [
          "bun",
          MC,
          "--kubeconfig",
          path,
          "serve",
          `--namespace=${DEFAULT_NAMESPACE}`,
          "--admin-addr=127.0.0.1:0",
          "--probe-address=127.0.0.1:1",
          "--leader-elect=false",
          "east",
        ],
        new RegExp(expected.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
      ),
      `mc serve to log: ${expected}`,
      15_000,
    );
    await untilCondition(type, reason);
    await evented;
    run.proc.kill("SIGTERM");
    await run.proc.exited;
    offs.forEach((off) => off());
    return { stderr: run.stderr(), written };
  }

  test("a token the target does not accept (expired, revoked): 401 in words, a Warning Event on the Link, the token itself never shown", async () => {
    const { stderr, written } = await serveLog(
      kubeconfigWith((cfg) => (cfg.users[0].user.token = "expired-token-abc")),
      "on east: 401 Unauthorized: the server rejected the credentials; the token or certificate in the kubeconfig is wrong, expired or revoked",
      "CredentialsValid",
      "Unauthorized",
      "Unauthorized",
    );
    expect(stderr).not.toContain("expired-token-abc");
    expect(written.filter((w) => !reporting(w))).toEqual([]);
    expect(condition("CredentialsValid")!.message).toContain("401 Unauthorized");
    expect(condition("CredentialsValid")!.message).not.toContain("expired-token-abc");
    expect(condition("TargetReachable")).toMatchObject({ status: "True" });
    expect(condition("Ready")).toMatchObject({ status: "False", reason: "CredentialsInvalid" });
  });

  test("a target that is not listening: the server named and what to check", async () => {
    const { written } = await serveLog(
      kubeconfigWith((cfg) => (cfg.clusters[0].cluster.server = "https://127.0.0.1:1")),
      "the connection to https://127.0.0.1:1 was refused; is the API server running, and are the context and kubeconfig the right ones? [ECONNREFUSED]",
      "TargetReachable",
      "Unreachable",
    );
    expect(written.filter((w) => !reporting(w))).toEqual([]);
    expect(condition("TargetReachable")!.message).toContain("was refused");
    expect(condition("Ready")).toMatchObject({ status: "False", reason: "TargetUnreachable" });
  });

  test("a CA that is not the target's: the server named and the CA to fix", async () => {
    const { written } = await serveLog(
      kubeconfigWith((cfg) => (cfg.clusters[0].cluster["certificate-authority-data"] = b64(otherCa.ca!.cert))),
      `the certificate of ${east.url} is signed by an unknown authority; the kubeconfig's certificate-authority(-data) is not this server's CA`,
      "TargetReachable",
      "Unreachable",
    );
    expect(written.filter((w) => !reporting(w))).toEqual([]);
    expect(condition("TargetReachable")!.message).toContain("signed by an unknown authority");
  });
});
