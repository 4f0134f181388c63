// The live-sandbox suites again, in one child `bun test` with RBAC enforced (MC_ENFORCE_RBAC=1).
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox } from "../../src/sandbox/index.ts";

// The suites above (those on live sandboxes) run again in one child `bun test` with RBAC enforced (MC_ENFORCE_RBAC=1:
// every sandbox authorizes every request, each controller runs as the ServiceAccount `mc link`
// renders and reaches the target with the token `mc install` renders — test/helpers/clusters.ts)
// and every log at debug (MC_TEST_LOG_LEVEL=debug, mc serve --log-level=debug), with all they
// print captured (MC_TEST_OUTPUT_DIR, test/helpers/capture.ts): the child's own output, every
// mc run's stderr and non-manifest stdout (mc check -o json among them), every mc serve
// process's log, every recording log. They must pass exactly as with admin rights, and no
// token, private key or Secret data may appear anywhere in what they printed.

const ROOT = join(import.meta.dir, "..", "..");
const SUITES = [
  "test/e2e",
  "test/checker/live.test.ts",
  "test/checker/cluster.test.ts",
  "test/checker/access-denied.test.ts",
  "test/cmd/unlink-e2e.test.ts",
  "test/cmd/sandbox-faults.test.ts",
  "test/security/enforcement-probe.test.ts",
  "test/security/enforced-rbac.test.ts",
  "test/bad-input/credentials.test.ts",
  "test/bad-input/link-fields.test.ts",
  "test/bad-input/target-services.test.ts",
  "test/faults/faults.test.ts",
];

/** What a secret looks like in the suites' clusters: the sandboxes' tokens, PEM keys, kubeconfigs as Secret data. */
const SECRET_PATTERNS: [string, RegExp][] = [
  ["a sandbox admin token", /\badmin\.[0-9a-f]{32}\b/],
  ["a service-account token", /\bsbx\.[A-Za-z0-9_-]{40,}/],
  ["a private key", /PRIVATE KEY/],
  ["a kubeconfig as Secret data (base64 of apiVersion)", /YXBpVmVyc2lvbj/],
  [
    "kubeconfig key or CA data",
    /(client-key-data|client-certificate-data|certificate-authority-data)["']?\s*[:=]\s*["']?[A-Za-z0-9+/=]{20,}/,
  ],
  ["a Secret's token field", /"token"\s*:\s*"[A-Za-z0-9+/=._-]{20,}"/],
];

let output = "";
let code = -1;
let failed: string[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "mc-suite-output-"));
  const env = {
    ...process.env,
    MC_ENFORCE_RBAC: "1",
    MC_TEST_LOG_LEVEL: "debug",
    MC_TEST_OUTPUT_DIR: dir,
    MC_FAULT_SERVICES: "30",
    MC_FAULT_PHASE_MS: "500",
    NO_COLOR: "1",
  }; // the gateway flaps every 2 s: the prober's 1s floor needs ~1.1 s to see it
  const proc = Bun.spawn(["bun", "test", ...SUITES], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  const [out, err, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  code = exit;
  failed = (out + err).split("\n").filter((l) => l.startsWith("(fail)"));
  output = [out, err, ...readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8"))].join("\n");
}, 240_000);

describe(`${SUITES.join(", ")} with RBAC enforced and every log at debug`, () => {
  test("pass, exactly as with admin rights", () => {
    expect(failed).toEqual([]);
    expect(output).toContain("(pass) multiclusterSetup enforces RBAC under MC_ENFORCE_RBAC=1");
    expect(code).toBe(0);
  });

  test("what was captured is all of it: debug lines, mc check -o json, mc serve processes' logs", () => {
    expect(output).toMatch(/--- mc .*check.* -o json/);
    expect(output).toContain("serve --namespace=linkerd-multicluster");
    expect(output).toMatch(/\bsynced \d+ (services|endpoints|namespaces)\b/); // the informers' debug line
  });

  for (const [what, pattern] of SECRET_PATTERNS) {
    test(`no ${what} in any of it`, () => {
      const hits = output.split("\n").filter((l) => pattern.test(l));
      expect(hits.slice(0, 5)).toEqual([]);
    });
  }

  test("the patterns do find the secrets they are for (a positive control)", async () => {
    const sb = await startSandbox({ name: "control", tls: true });
    try {
      sb.api.create(
        sb.api.registry.find("", "v1", "serviceaccounts")!,
        "default",
        { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "c" } },
        {},
      );
      const secret = sb.api.create(
        sb.api.registry.find("", "v1", "secrets")!,
        "default",
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "c-token", annotations: { "kubernetes.io/service-account.name": "c" } },
          type: "kubernetes.io/service-account-token",
        },
        {},
      ).object as unknown as { data: { token: string } };
      const samples = [
        sb.token!,
        Buffer.from(secret.data.token, "base64").toString(),
        sb.ca!.key,
        Buffer.from(sb.kubeconfig).toString("base64"),
        sb.kubeconfig,
        JSON.stringify(secret.data),
      ];
      for (const s of samples) expect(SECRET_PATTERNS.some(([, p]) => p.test(s))).toBe(true);
    } finally {
      await sb.stop();
    }
  });
});
