// The sandbox's TLS front: a verified client certificate is the admin, a certificate another CA signed or none
// needs a token, and large bodies cross it whole both ways (kubectl with a 1 MiB ConfigMap, many at once).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeCA, makeClientCert, type Pem } from "../../../src/sandbox/http/tls.ts";
import { startSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl } from "../../helpers/kubectl.ts";

let sb: Sandbox;
let admin: Pem;
let stranger: Pem;

beforeAll(async () => {
  sb = await startSandbox({ name: "front", tls: true });
  admin = await sb.clientCert("alice");
  stranger = await makeClientCert(await makeCA("other-ca"), "mallory", ["system:masters"]);
});
afterAll(() => sb?.stop());

const get = (path: string, tls: { cert?: string; key?: string }, headers: Record<string, string> = {}) =>
  fetch(`${sb.url}${path}`, { headers, tls: { ca: sb.ca!.cert, ...tls } } as RequestInit);

test("a certificate the sandbox CA signed is let in; another CA's or none needs the token", async () => {
  expect((await get("/api/v1/namespaces", admin)).status).toBe(200);
  expect((await get("/api/v1/namespaces", stranger)).status).toBe(401);
  expect((await get("/api/v1/namespaces", {})).status).toBe(401);
  expect((await get("/api/v1/namespaces", stranger, { authorization: `Bearer ${sb.token}` })).status).toBe(200);
  expect((await get("/api/v1/namespaces", {}, { authorization: `Bearer ${sb.token}` })).status).toBe(200);
});

test("plain http on the TLS port is not served", async () => {
  const plain = sb.url.replace("https://", "http://");
  await expect(fetch(`${plain}/version`)).rejects.toThrow();
});

test("large bodies cross the front whole, both ways, many at once", async () => {
  const big = (i: number) => `${i}:`.padEnd(900_000, String.fromCharCode(97 + (i % 26)));
  const put = (i: number, tls: { cert?: string; key?: string }, headers: Record<string, string>) =>
    fetch(`${sb.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `big-${i}` }, data: { v: big(i) } }),
      tls: { ca: sb.ca!.cert, ...tls },
    } as RequestInit);
  const token = { authorization: `Bearer ${sb.token}` };
  const created = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? put(i, admin, {}) : put(i, {}, token))));
  expect(created.map((r) => r.status)).toEqual(Array(8).fill(201));
  const lists = await Promise.all([
    get("/api/v1/namespaces/default/configmaps", admin),
    get("/api/v1/namespaces/default/configmaps", {}, token),
  ]);
  for (const r of lists) {
    const items = ((await r.json()) as { items: { metadata: { name: string }; data: { v: string } }[] }).items;
    const bigs = items.filter((o) => o.metadata.name.startsWith("big-"));
    expect(bigs).toHaveLength(8);
    for (const o of bigs) expect(o.data.v).toBe(big(Number(o.metadata.name.slice(4))));
  }
});

test.skipIf(!hasKubectl)(
  needsKubectl("kubectl creates and reads back a 1 MiB ConfigMap over the certificate and token contexts"),
  async () => {
    const kubectl = kubectlFor(sb.kubeconfig);
    const value = "k".repeat(1024 * 1024 - 64);
    for (const [context, name] of [
      ["front-cert", "kbig-cert"],
      ["front", "kbig-token"],
    ] as const) {
      const manifest = JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace: "default" },
        data: { v: value },
      });
      const created = await kubectl(["--context", context, "create", "-f", "-"], { stdin: manifest });
      expect(created.stdout).toBe(`configmap/${name} created\n`);
      const got = await kubectl(["--context", context, "get", "configmap", name, "-n", "default", "-o", "jsonpath={.data.v}"]);
      expect(got.stdout.length).toBe(value.length);
      expect(got.stdout).toBe(value);
    }
  },
);

test("a watch ends on the server when its client goes away, and a server-side end reaches the client", async () => {
  const waitOpen = async (n: number) => {
    while (sb.control.openWatches() !== n) await Bun.sleep(5);
  };
  const abort = new AbortController();
  const res = await fetch(`${sb.url}/api/v1/namespaces/quiet/configmaps?watch=true`, {
    signal: abort.signal,
    tls: { ca: sb.ca!.cert, ...admin },
  } as RequestInit);
  await waitOpen(1);
  abort.abort();
  await res.body?.cancel().catch(() => {});
  await waitOpen(0);

  const kept = await fetch(`${sb.url}/api/v1/namespaces/quiet/configmaps?watch=true`, {
    tls: { ca: sb.ca!.cert, ...admin },
  } as RequestInit);
  await waitOpen(1);
  sb.control.dropWatches();
  expect(await kept.text()).toBe("\n");
});
