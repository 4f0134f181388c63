// The connection mistakes a user makes most, as `mc check` reports them: the Link's credentials pointing at a target that is not listening,
// or trusting another CA — named in words with the server and the fix in the remote-access check, table and -o json alike (the token never
// shown); and `mc check` itself run against a source that is down: its first check fails saying so, the rest are skipped, exit 1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import YAML from "yaml";
import type { JsonReport } from "../../src/checker/render.ts";
import { resources } from "../../src/kube/index.ts";
import * as L from "../../src/model/labels.ts";
import { credentialsSecretName } from "../../src/model/names.ts";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { runMc } from "../cmd/run-mc.ts";
import { multiclusterSetup, NS, type Setup } from "../helpers/clusters.ts";

let setup: Setup;
let otherCa: Sandbox;
let original: string;
beforeAll(async () => {
  [setup, otherCa] = await Promise.all([multiclusterSetup(), startSandbox({ name: "other", tls: true })]);
  const secret = await setup.westClient.get<{ data: Record<string, string> }>(resources.secret, NS, credentialsSecretName("east"));
  original = Buffer.from(secret.data[L.KUBECONFIG_DATA_KEY]!, "base64").toString();
}, 20_000);
afterAll(async () => {
  await setup?.stop();
  await otherCa?.stop();
});

async function withCredentials(edit: (cfg: Record<string, any>) => void) {
  const cfg = YAML.parse(original);
  edit(cfg);
  await setup.westClient.patch(resources.secret, NS, credentialsSecretName("east"), {
    data: { [L.KUBECONFIG_DATA_KEY]: Buffer.from(YAML.stringify(cfg)).toString("base64") },
  });
  const table = await runMc(["--kubeconfig", setup.westKubeconfig, "check"]);
  const json = await runMc(["--kubeconfig", setup.westKubeconfig, "check", "-o", "json"]);
  const report = JSON.parse(json.stdout) as JsonReport;
  const remote = report.categories[0]!.checks.find((c) => c.id === "remote-access")!;
  const token = (YAML.parse(original) as { users: { user: { token: string } }[] }).users[0]!.user.token;
  for (const out of [table.stdout, table.stderr, json.stdout, json.stderr]) expect(out).not.toContain(token);
  return { table, remote };
}

describe("mc check names connection failures in words", () => {
  test("credentials pointing at a target that is not listening", async () => {
    const { table, remote } = await withCredentials((cfg) => (cfg.clusters[0].cluster.server = "https://127.0.0.1:1"));
    expect(remote.result).toBe("error");
    expect(remote.details.join("\n")).toContain(
      "the connection to https://127.0.0.1:1 was refused; is the API server running, and are the context and kubeconfig the right ones? [ECONNREFUSED]",
    );
    expect(table.code).toBe(1);
  });

  test("credentials trusting another CA than the target's", async () => {
    const { remote } = await withCredentials(
      (cfg) => (cfg.clusters[0].cluster["certificate-authority-data"] = Buffer.from(otherCa.ca!.cert).toString("base64")),
    );
    expect(remote.result).toBe("error");
    expect(remote.details.join("\n")).toContain(
      "is signed by an unknown authority; the kubeconfig's certificate-authority(-data) is not this server's CA",
    );
  });

  test("a source cluster that is down: the first check says so in words, the rest are skipped, exit 1", async () => {
    const cfg = YAML.parse(await Bun.file(setup.westKubeconfig).text());
    cfg.clusters[0].cluster.server = "https://127.0.0.1:1";
    const path = `${setup.root}/down.kubeconfig`;
    await Bun.write(path, YAML.stringify(cfg));
    const r = await runMc(["--kubeconfig", path, "check", "-o", "json"]);
    expect(r.code).toBe(1);
    const checks = (JSON.parse(r.stdout) as JsonReport).categories[0]!.checks;
    expect(checks[0]!.error).toContain(
      "the connection to https://127.0.0.1:1 was refused; is the API server running, and are the context and kubeconfig the right ones? [ECONNREFUSED]",
    );
    expect(checks.slice(1).map((c) => c.result)).toEqual(checks.slice(1).map(() => "skipped"));
  });
});
