// Connecting: kubeconfig files, a Link's credentials Secret and the in-cluster ServiceAccount.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import YAML from "yaml";
import { formatError, UserError } from "../../src/errors.ts";
import { connect, connectFromSecret, connectInCluster, REMOTE_KUBECONFIG_SECRET_TYPE } from "../../src/kube/connect.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { KubeError } from "../../src/kube/kube-error.ts";
import { resources } from "../../src/kube/resources.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { freshNamespace } from "./helpers.ts";

let east: Sandbox; // TLS: CA data + bearer token, and client certificates
let west: Sandbox; // plain http
let dir: string;
const noEnv = { HOME: "/nonexistent-home" };

beforeAll(async () => {
  [east, west] = await Promise.all([startSandbox({ name: "east", tls: true }), startSandbox({ name: "west" })]);
  dir = mkdtempSync(join(tmpdir(), "mc-connect-"));
});
afterAll(async () => {
  await Promise.all([east.stop(), west.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Proves a client reaches its cluster: a read that needs authentication. */
async function reaches(client: KubeClient): Promise<string[]> {
  const list = await client.list(resources.namespace);
  return list.items.map((n) => n.metadata.name ?? "");
}

/** Runs `fn`, expects a one-line UserError, returns its message. */
async function userError(fn: () => Promise<unknown>): Promise<string> {
  const err = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  const line = formatError(err);
  expect(line).not.toContain("\n");
  expect(line).not.toContain("    at "); // no stack
  for (const secret of [east.token!, "c2VjcmV0"]) expect(line).not.toContain(secret);
  return line;
}

describe("connect", () => {
  test("a --kubeconfig file: its current context, over TLS with CA data and a bearer token", async () => {
    const path = file("east.yaml", east.kubeconfig);
    const client = await connect({ kubeconfig: path, env: noEnv });
    expect(client.cluster).toBe("east");
    expect(client.server).toBe(east.url);
    expect(await reaches(client)).toContain("default");
  });

  test("--context picks another context from the same file", async () => {
    const both = YAML.parse(east.kubeconfig);
    const w = YAML.parse(west.kubeconfig);
    both.clusters.push(...w.clusters);
    both.users.push(...w.users);
    both.contexts.push({ name: "west", context: { cluster: "west", user: "west", namespace: "mirror" } });
    const path = file("both.yaml", YAML.stringify(both));
    const client = await connect({ kubeconfig: path, context: "west", env: noEnv });
    expect([client.cluster, client.server, client.namespace]).toEqual(["west", west.url, "mirror"]);
    const ns = await freshNamespace(client, "only-west");
    expect(await reaches(client)).toContain(ns);
  });

  test("KUBECONFIG with several paths merges like kubectl: first file wins per name, first current-context wins", async () => {
    const first = file("merge/a.yaml", east.kubeconfig);
    // The second file also defines a cluster "east" (pointing nowhere) and sets its own current-context.
    const second = YAML.parse(west.kubeconfig);
    second.clusters.push({ name: "east", cluster: { server: "https://127.0.0.1:1" } });
    const secondPath = file("merge/b.yaml", YAML.stringify(second));
    const env = { ...noEnv, KUBECONFIG: [join(dir, "missing.yaml"), first, secondPath].join(delimiter) };
    const current = await connect({ env });
    expect([current.cluster, current.server]).toEqual(["east", east.url]);
    expect(await reaches(current)).toContain("default");
    const other = await connect({ env, context: "west" });
    expect(await reaches(other)).toContain("default");
  });

  test("a kubeconfig held in a Secret of type mirror.linkerd.io/remote-kubeconfig", async () => {
    const local = await connect({ kubeconfig: file("west-local.yaml", west.kubeconfig), env: noEnv });
    const ns = await freshNamespace(local, "linkerd-multicluster");
    await local.create(resources.secret, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cluster-credentials-east", namespace: ns },
      type: REMOTE_KUBECONFIG_SECRET_TYPE,
      data: { kubeconfig: Buffer.from(east.kubeconfig).toString("base64") },
    });
    const remote = await connectFromSecret(local, ns, "cluster-credentials-east", { name: "east" });
    expect([remote.cluster, remote.server]).toEqual(["east", east.url]);
    expect(await reaches(remote)).toContain("default");
  });

  test("a client certificate authenticates on its own, and one from another CA does not", async () => {
    const alice = await east.clientCert("alice", ["system:masters"]);
    const withCert = await connect({
      kubeconfig: file("cert.yaml", east.kubeconfigWith({ token: undefined, clientCert: alice })),
      env: noEnv,
    });
    expect(await reaches(withCert)).toContain("default");
    // The sandbox's own `east-cert` context does the same.
    const certContext = await connect({ kubeconfig: file("east2.yaml", east.kubeconfig), context: "east-cert", env: noEnv });
    expect(await reaches(certContext)).toContain("default");

    const stranger = await startSandbox({ name: "stranger", tls: true });
    try {
      const foreign = await stranger.clientCert("mallory");
      const bad = await connect({
        kubeconfig: file("foreign.yaml", east.kubeconfigWith({ token: undefined, clientCert: foreign })),
        env: noEnv,
      });
      const err = await reaches(bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeError);
      expect((err as KubeError).code).toBe(401);
    } finally {
      await stranger.stop();
    }
  });

  test("CA, certificate and key given as files, relative to the kubeconfig", async () => {
    const alice = await east.clientCert("alice");
    file("files/pki/ca.crt", east.ca!.cert);
    file("files/pki/alice.crt", alice.cert);
    file("files/pki/alice.key", alice.key);
    const cfg = {
      clusters: [{ name: "east", cluster: { server: east.url, "certificate-authority": "pki/ca.crt" } }],
      users: [{ name: "alice", user: { "client-certificate": "pki/alice.crt", "client-key": "pki/alice.key" } }],
      contexts: [{ name: "east", context: { cluster: "east", user: "alice" } }],
      "current-context": "east",
    };
    const client = await connect({ kubeconfig: file("files/config", YAML.stringify(cfg)), env: noEnv });
    expect(await reaches(client)).toContain("default");
  });

  test("TLS is verified: without the CA the server is unreachable, with a wrong token it is 401", async () => {
    const cfg = YAML.parse(east.kubeconfig);
    delete cfg.clusters[0].cluster["certificate-authority-data"];
    const noCa = await connect({ kubeconfig: file("noca.yaml", YAML.stringify(cfg)), env: noEnv });
    const tlsErr = (await reaches(noCa).catch((e: unknown) => e)) as KubeError;
    expect(tlsErr).toBeInstanceOf(KubeError);
    expect([tlsErr.code, tlsErr.reason]).toEqual([0, "Unreachable"]);
    expect(tlsErr.message).toStartWith(`list namespaces on east: the certificate of ${east.url} is signed by an unknown authority;`);
    const wrong = await connect({ kubeconfig: file("wrong.yaml", east.kubeconfigWith({ token: "not-the-token" })), env: noEnv });
    const authErr = (await reaches(wrong).catch((e: unknown) => e)) as KubeError;
    expect(authErr.message).toBe(
      "list namespaces on east: 401 Unauthorized: the server rejected the credentials; the token or certificate in the kubeconfig is wrong, expired or revoked",
    );
  });

  test("in-cluster: the service account's token, CA and namespace", async () => {
    const sa = join(dir, "serviceaccount");
    file("serviceaccount/token", `${east.token}\n`);
    file("serviceaccount/ca.crt", east.ca!.cert);
    file("serviceaccount/namespace", "linkerd-multicluster");
    const env = { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(east.port), HOME: "/nonexistent-home" };
    const client = await connect({ env, serviceAccountDir: sa, name: "east" });
    expect([client.cluster, client.namespace]).toEqual(["east", "linkerd-multicluster"]);
    expect(await reaches(client)).toContain("default");
    const direct = await connectInCluster({ env, serviceAccountDir: sa });
    expect(direct.server).toBe(`https://127.0.0.1:${east.port}`);
  });

  test("a rotated token file is picked up after a 401", async () => {
    const sa = join(dir, "rotating");
    file("rotating/token", "stale-token");
    file("rotating/ca.crt", east.ca!.cert);
    const env = { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(east.port) };
    const client = await connectInCluster({ env, serviceAccountDir: sa });
    expect(client.namespace).toBe("default"); // no namespace file
    expect((await reaches(client).catch((e: unknown) => e)) as KubeError).toMatchObject({ code: 401 });
    file("rotating/token", east.token!);
    expect(await reaches(client)).toContain("default");
  });
});

describe("a bad kubeconfig is one line naming what is wrong", () => {
  test("no such file", async () => {
    expect(await userError(() => connect({ kubeconfig: join(dir, "nope.yaml"), env: noEnv }))).toBe(
      `kubeconfig ${join(dir, "nope.yaml")}: no such file`,
    );
  });

  test("KUBECONFIG naming only missing files", async () => {
    const env = { ...noEnv, KUBECONFIG: ["/x/a", "/x/b"].join(delimiter) };
    expect(await userError(() => connect({ env }))).toBe(`KUBECONFIG /x/a${delimiter}/x/b: no such file`);
  });

  test("no kubeconfig anywhere and not in a pod", async () => {
    expect(await userError(() => connect({ env: noEnv }))).toBe(
      "no kubeconfig found; pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config",
    );
  });

  test("missing context", async () => {
    const path = file("ctx.yaml", east.kubeconfig);
    expect(await userError(() => connect({ kubeconfig: path, context: "north", env: noEnv }))).toBe(
      `kubeconfig ${path}: context "north" not found (contexts: east, east-cert)`,
    );
  });

  test("no server", async () => {
    const cfg = YAML.parse(east.kubeconfig);
    delete cfg.clusters[0].cluster.server;
    const path = file("noserver.yaml", YAML.stringify(cfg));
    expect(await userError(() => connect({ kubeconfig: path, env: noEnv }))).toBe(`kubeconfig ${path}: cluster "east" has no server`);
  });

  test("invalid YAML, without echoing the file", async () => {
    const path = file("broken.yaml", `${east.kubeconfig}\n  token: [${east.token}\n`);
    expect(await userError(() => connect({ kubeconfig: path, env: noEnv }))).toMatch(
      new RegExp(`^kubeconfig ${path}: not valid YAML \\(line \\d+, column \\d+\\)$`),
    );
  });

  test("a wrong type, without the value", async () => {
    const cfg = YAML.parse(east.kubeconfig);
    cfg.users[0].user.token = { nested: east.token };
    const path = file("type.yaml", YAML.stringify(cfg));
    expect(await userError(() => connect({ kubeconfig: path, env: noEnv }))).toBe(
      `kubeconfig ${path}: users[0].user.token must be a string`,
    );
  });

  test("a referenced certificate file that does not exist", async () => {
    const cfg = YAML.parse(east.kubeconfig);
    cfg.clusters[0].cluster = { server: east.url, "certificate-authority": "missing-ca.crt" };
    const path = file("cafile.yaml", YAML.stringify(cfg));
    expect(await userError(() => connect({ kubeconfig: path, env: noEnv }))).toBe(
      `kubeconfig ${path}: cluster "east" certificate-authority ${join(dir, "missing-ca.crt")}: no such file`,
    );
  });

  test("a client certificate without its key", async () => {
    const cfg = YAML.parse(east.kubeconfig);
    cfg.users[0].user = { "client-certificate-data": "c2VjcmV0" };
    const path = file("nokey.yaml", YAML.stringify(cfg));
    expect(await userError(() => connect({ kubeconfig: path, env: noEnv }))).toBe(
      `kubeconfig ${path}: user "east" has a client certificate but no key`,
    );
  });

  test("in-cluster without a service account token", async () => {
    const env = { KUBERNETES_SERVICE_HOST: "10.0.0.1", HOME: "/nonexistent-home" };
    expect(await userError(() => connect({ env, serviceAccountDir: join(dir, "no-sa") }))).toBe(
      `in-cluster config: service account token ${join(dir, "no-sa", "token")}: no such file`,
    );
  });

  describe("an unreadable Secret", () => {
    let local: KubeClient;
    let ns: string;
    beforeAll(async () => {
      local = await connect({ kubeconfig: file("west-secrets.yaml", west.kubeconfig), env: noEnv });
      ns = await freshNamespace(local, "creds");
      const secret = (name: string, type: string, data: Record<string, string>) =>
        local.create(resources.secret, { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: ns }, type, data });
      await secret("opaque", "Opaque", { kubeconfig: Buffer.from(east.kubeconfig).toString("base64") });
      await secret("empty", REMOTE_KUBECONFIG_SECRET_TYPE, { other: "eA==" });
      await secret("garbage", REMOTE_KUBECONFIG_SECRET_TYPE, { kubeconfig: Buffer.from(`token: [${east.token}`).toString("base64") });
    });

    test.each([
      ["absent", "not found"],
      ["opaque", `type is "Opaque", want ${REMOTE_KUBECONFIG_SECRET_TYPE}`],
      ["empty", "has no data.kubeconfig"],
    ])("Secret %s: %s", async (name, why) => {
      expect(await userError(() => connectFromSecret(local, ns, name))).toBe(`Secret ${ns}/${name} on west: ${why}`);
    });

    test("a Secret whose kubeconfig is not YAML", async () => {
      expect(await userError(() => connectFromSecret(local, ns, "garbage"))).toMatch(
        new RegExp(`^kubeconfig in Secret ${ns}/garbage on west: not valid YAML`),
      );
    });
  });
});
