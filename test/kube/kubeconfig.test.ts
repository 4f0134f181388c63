// Kubeconfig files: parsed, merged as KUBECONFIG does, and a context selected.
import { describe, expect, test } from "bun:test";
import YAML from "yaml";
import { UserError } from "../../src/errors.ts";
import { mergeKubeconfigs, parseKubeconfig, selectContext } from "../../src/kube/kubeconfig.ts";

const SECRET = "s3cr3t-t0ken-value";

function kubeconfig(o: { clusters?: unknown[]; users?: unknown[]; contexts?: unknown[]; current?: string }): string {
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: o.clusters ?? [],
    users: o.users ?? [],
    contexts: o.contexts ?? [],
    ...(o.current ? { "current-context": o.current } : {}),
  });
}
const cluster = (name: string, server = `https://${name}.example:6443`) => ({ name, cluster: { server } });
const user = (name: string, token = SECRET) => ({ name, user: { token } });
const context = (name: string, c = name, u = name, namespace?: string) => ({ name, context: { cluster: c, user: u, namespace } });

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error("expected a UserError");
}

describe("parseKubeconfig", () => {
  test("reads clusters, users, contexts and current-context", () => {
    const cfg = parseKubeconfig(
      kubeconfig({ clusters: [cluster("east")], users: [user("east")], contexts: [context("east")], current: "east" }),
      "kubeconfig a",
    );
    expect(cfg.currentContext).toBe("east");
    expect(cfg.clusters.map((c) => c.cluster.server)).toEqual(["https://east.example:6443"]);
    expect(cfg.users[0]?.user.token).toBe(SECRET);
  });

  test("an empty file is an empty kubeconfig", () => {
    expect(parseKubeconfig("", "kubeconfig a")).toEqual({ clusters: [], users: [], contexts: [], currentContext: undefined });
  });

  test("null lists (as kubectl writes them) are empty lists", () => {
    const cfg = parseKubeconfig("clusters: null\nusers: null\ncontexts: null\n", "kubeconfig a");
    expect(cfg.clusters).toEqual([]);
  });

  test("relative file paths are resolved against the kubeconfig's directory", () => {
    const text = kubeconfig({
      clusters: [{ name: "c", cluster: { server: "https://x", "certificate-authority": "certs/ca.crt" } }],
      users: [{ name: "u", user: { "client-certificate": "/abs/cert.pem", "client-key": "key.pem", tokenFile: "../token" } }],
    });
    const cfg = parseKubeconfig(text, "kubeconfig a", "/home/me/.kube");
    expect(cfg.clusters[0]?.cluster["certificate-authority"]).toBe("/home/me/.kube/certs/ca.crt");
    expect(cfg.users[0]?.user["client-certificate"]).toBe("/abs/cert.pem");
    expect(cfg.users[0]?.user["client-key"]).toBe("/home/me/.kube/key.pem");
    expect(cfg.users[0]?.user.tokenFile).toBe("/home/me/token");
  });

  test("invalid YAML is one line with the position and none of the text", () => {
    const msg = errorOf(() => parseKubeconfig(`users:\n- name: u\n  user: {token: "${SECRET}"\n`, "kubeconfig a"));
    expect(msg).toMatch(/^kubeconfig a: not valid YAML \(line \d+, column \d+\)$/);
    expect(msg).not.toContain(SECRET);
  });

  test("a field of the wrong type names its path, not its value", () => {
    const text = kubeconfig({ users: [{ name: "u", user: { token: 12345678 } }] });
    expect(errorOf(() => parseKubeconfig(text, "kubeconfig a"))).toBe("kubeconfig a: users[0].user.token must be a string");
  });

  test("an entry without a name is named by its index", () => {
    const text = kubeconfig({ clusters: [{ cluster: { server: "https://x" } }] });
    expect(errorOf(() => parseKubeconfig(text, "kubeconfig a"))).toBe("kubeconfig a: clusters[0].name is missing");
  });

  test("a document that is not a mapping is rejected", () => {
    expect(errorOf(() => parseKubeconfig("- a\n- b\n", "kubeconfig a"))).toBe("kubeconfig a: not a kubeconfig (expected a mapping)");
  });
});

describe("mergeKubeconfigs", () => {
  test("the first file that defines a name wins, and current-context comes from the first file that sets it", () => {
    const a = parseKubeconfig(kubeconfig({ clusters: [cluster("east", "https://a")], contexts: [context("east")] }), "a");
    const b = parseKubeconfig(
      kubeconfig({ clusters: [cluster("east", "https://b"), cluster("west")], contexts: [context("west")], current: "west" }),
      "b",
    );
    const c = parseKubeconfig(kubeconfig({ current: "east" }), "c");
    const merged = mergeKubeconfigs([a, b, c]);
    expect(merged.clusters.map((x) => [x.name, x.cluster.server])).toEqual([
      ["east", "https://a"],
      ["west", "https://west.example:6443"],
    ]);
    expect(merged.contexts.map((x) => x.name)).toEqual(["east", "west"]);
    expect(merged.currentContext).toBe("west");
  });
});

describe("selectContext", () => {
  const cfg = parseKubeconfig(
    kubeconfig({
      clusters: [cluster("east"), { name: "noserver", cluster: {} }, cluster("bad", "ftp://x")],
      users: [user("east")],
      contexts: [
        context("east", "east", "east", "mirror"),
        context("ghost", "nope"),
        context("empty", "noserver"),
        context("nouser", "east", "nobody"),
        context("ftp", "bad"),
      ],
      current: "east",
    }),
    "kubeconfig a",
  );

  test("the current context is used when none is given", () => {
    const sel = selectContext(cfg, "kubeconfig a");
    expect(sel).toMatchObject({ context: "east", clusterName: "east", userName: "east", namespace: "mirror" });
    expect(sel.cluster.server).toBe("https://east.example:6443");
  });

  test("a missing context names the known ones", () => {
    expect(errorOf(() => selectContext(cfg, "kubeconfig a", "north"))).toBe(
      'kubeconfig a: context "north" not found (contexts: east, ghost, empty, nouser, ftp)',
    );
  });

  test("no current-context asks for --context", () => {
    const none = { ...cfg, currentContext: undefined };
    expect(errorOf(() => selectContext(none, "kubeconfig a"))).toStartWith("kubeconfig a: no current-context; pass --context");
  });

  test("a context whose cluster is not defined says so", () => {
    expect(errorOf(() => selectContext(cfg, "kubeconfig a", "ghost"))).toBe(
      'kubeconfig a: context "ghost" refers to cluster "nope", which is not defined',
    );
  });

  test("a cluster without a server says so", () => {
    expect(errorOf(() => selectContext(cfg, "kubeconfig a", "empty"))).toBe('kubeconfig a: cluster "noserver" has no server');
  });

  test("a server that is not an http(s) URL says so", () => {
    expect(errorOf(() => selectContext(cfg, "kubeconfig a", "ftp"))).toBe('kubeconfig a: cluster "bad" server is not an http(s) URL');
  });

  test("a context whose user is not defined says so", () => {
    expect(errorOf(() => selectContext(cfg, "kubeconfig a", "nouser"))).toBe(
      'kubeconfig a: context "nouser" refers to user "nobody", which is not defined',
    );
  });

  test("the namespace defaults to default", () => {
    const simple = parseKubeconfig(kubeconfig({ clusters: [cluster("c")], contexts: [{ name: "c", context: { cluster: "c" } }] }), "k");
    expect(selectContext(simple, "k", "c")).toMatchObject({ namespace: "default", userName: undefined, user: {} });
  });
});
