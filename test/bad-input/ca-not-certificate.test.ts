// Credentials whose CA data is not a certificate (a token or a key pasted in the wrong field, a
// truncated copy): `mc serve`, `mc check` and `mc link` each say so in one line naming the
// kubeconfig field and the fix — never echoing the data — instead of a TLS failure later.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";
import type { JsonReport } from "../../src/checker/render.ts";
import { resources, type KubeObject } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { linkResource } from "../../src/model/link.ts";
import { credentialsSecretName } from "../../src/model/names.ts";
import { serve } from "../../src/serve/serve.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, NS, type Setup } from "../helpers/clusters.ts";
import { recordingLog } from "../helpers/log.ts";
import { untilStatus } from "../mirror/harness.ts";

const MARKER = "pasted-by-mistake-3f9c1a";
const BAD_CA = Buffer.from(`not a certificate: ${MARKER}\n`).toString("base64");
const KEY_CA = Buffer.from(`-----BEGIN RSA PRIVATE KEY-----\nMIIB${MARKER}\n-----END RSA PRIVATE KEY-----\n`).toString("base64");
const FIELD = "certificate-authority-data is not a certificate: set it to the cluster's CA certificate, base64 of its PEM";

let s: Setup;
let original: string;
beforeAll(async () => {
  s = await multiclusterSetup({ startControllers: false });
  const secret = await s.westClient.get<{ data: Record<string, string> }>(resources.secret, NS, credentialsSecretName("east"));
  original = Buffer.from(secret.data[L.KUBECONFIG_DATA_KEY]!, "base64").toString();
}, 30_000);
afterAll(() => s?.stop());

const neverEchoed = (text: string) => {
  expect(text).not.toContain(MARKER);
  expect(text).not.toContain(BAD_CA);
  expect(text).not.toContain(KEY_CA);
};

async function credentialsWithCa(data: string): Promise<void> {
  const cfg = YAML.parse(original);
  cfg.clusters[0].cluster["certificate-authority-data"] = data;
  await s.westClient.patch(resources.secret, NS, credentialsSecretName("east"), {
    data: { [L.KUBECONFIG_DATA_KEY]: Buffer.from(YAML.stringify(cfg)).toString("base64") },
  });
}

describe("CA data that is not a certificate", () => {
  test("mc serve: one error line naming the Secret's kubeconfig field and the fix, CredentialsValid False on the Link, the controller waits", async () => {
    await credentialsWithCa(BAD_CA);
    const log = recordingLog();
    const serving = await serve({
      local: s.westClient,
      namespace: NS,
      linkName: "east",
      adminAddr: "127.0.0.1:0",
      leaderElect: false,
      log,
    });
    try {
      await untilStatus(serving.supervisor!, "bad-secret");
      await serving.supervisor!.settle();
      const said = [...log.at("error"), ...log.at("warn")];
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`kubeconfig in Secret ${NS}/${credentialsSecretName("east")} on west: cluster `);
      expect(said[0]).toContain(FIELD);
      neverEchoed(log.lines.map((l) => l.message).join("\n"));
      const link = await s.westClient.get<
        KubeObject & { status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } }
      >(linkResource, NS, "east");
      const valid = link.status?.conditions?.find((c) => c.type === "CredentialsValid");
      expect(valid).toMatchObject({ status: "False", reason: "SecretInvalid" });
      expect(valid!.message).toContain(FIELD);
      neverEchoed(JSON.stringify(link.status));
    } finally {
      await serving.stop();
    }
  });

  test("mc check: the remote-access check names the field and the fix, table and JSON, exit 1", async () => {
    await credentialsWithCa(KEY_CA);
    const table = await runMc(["--kubeconfig", s.westKubeconfig, "check"]);
    const json = await runMc(["--kubeconfig", s.westKubeconfig, "check", "-o", "json"]);
    const remote = (JSON.parse(json.stdout) as JsonReport).categories[0]!.checks.find((c) => c.id === "remote-access")!;
    expect(remote.result).toBe("error");
    expect(remote.details.join("\n")).toContain(
      "certificate-authority-data holds a private key, not a certificate: set it to the cluster's CA certificate",
    );
    expect(table.code).toBe(1);
    expect(table.stdout).toContain("certificate-authority-data holds a private key, not a certificate");
    for (const out of [table.stdout, table.stderr, json.stdout, json.stderr]) neverEchoed(out);
  });

  test("mc link: one line on stderr naming the target kubeconfig's field and the fix, exit 1, nothing on stdout", async () => {
    const east = s.targets.get("east")!;
    const cfg = YAML.parse(await Bun.file(east.kubeconfigPath).text());
    cfg.clusters[0].cluster["certificate-authority-data"] = BAD_CA;
    delete cfg.clusters[0].cluster["certificate-authority"];
    const path = join(s.root, "bad-ca.kubeconfig");
    writeFileSync(path, YAML.stringify(cfg));
    const r = await runMc(["--kubeconfig", path, "link", "--cluster-name", "east"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`error: kubeconfig ${path}: cluster `);
    expect(lines[0]).toContain(FIELD);
    neverEchoed(r.stderr);
  });
});
