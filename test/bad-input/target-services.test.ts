// Target Services of odd shapes, exported: no ports, ExternalName, a name that with the cluster suffix would overflow the 63 characters a
// Service name may have, 100 ports, unicode labels and annotations.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KubeError, resources } from "../../src/kube/index.ts";
import type { MirrorController } from "../../src/mirror/controller.ts";
import { EXPORT, remoteEndpoints } from "../mirror/fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { list, read, readLink, startController } from "../mirror/harness.ts";
import { hasKubectl, kubectlFor, needsKubectl } from "../helpers/kubectl.ts";
import { recordingLog, type RecordingLog } from "../helpers/log.ts";

// What cannot be mirrored is reported — one log line naming the field and the fix, the Link's status,
// an Event on the target Service — and nothing is written for it (a too-long name is never truncated:
// a shortened name could collide with another mirror); what can be mirrored is mirrored whole.

let pair: Pair;
let ctl: MirrorController;
let log: RecordingLog;
const LONG = `s${"x".repeat(58)}`; // 59 characters: `<name>-east` is 64
const manyPorts = Array.from({ length: 100 }, (_, i) => ({ name: `p${i}`, protocol: "TCP", port: 1000 + i }));

beforeAll(async () => {
  pair = await startPair();
  const svc = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
    pair.eastClient.create(resources.service, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: "ns1", labels: EXPORT, ...meta },
      spec,
    });
  await svc("noports", {});
  await svc("ext", { type: "ExternalName", externalName: "db.example.com", ports: [{ name: "pg", port: 5432 }] });
  await svc(LONG, { ports: [{ name: "http", port: 80 }] });
  await svc("many", { ports: manyPorts });
  await pair.eastClient.create(
    resources.endpoints,
    remoteEndpoints({ name: "many", ports: manyPorts.map((p) => ({ name: p.name, port: p.port })) }),
  );
  await svc("uni", { ports: [{ name: "http", port: 80 }] }, { annotations: { note: "日本語の説明 ✓", "example.com/owner": "Zoë" } });
  log = recordingLog();
  ctl = await startController(pair, {}, { log, settings: { eventRequeueLimit: 1 } });
}, 20_000);
afterAll(() => pair?.stop());

type Status = { mirrorServices?: Array<{ remoteRef: { name: string }; conditions: Array<{ reason: string; message: string }> }> };
const statusOf = (name: string) =>
  (readLink(pair.west)?.status as Status | undefined)?.mirrorServices?.find((m) => m.remoteRef.name === name)?.conditions[0];
const eventsOn = (name: string) =>
  list(pair.east, "events", "ns1")
    .filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name)
    .map((e) => (e as { message?: string }).message);
const westServices = () => list(pair.west, "services", "ns1").map((s) => s.metadata.name);

describe("what cannot be mirrored is reported, and nothing is written for it", () => {
  const rows: [string, string, string][] = [
    ["no ports", "noports", "object spec has no exposed ports"],
    [
      "an ExternalName Service",
      "ext",
      "spec.type: an ExternalName Service has no endpoints for the gateway to reach; export the Service it points at instead",
    ],
    [
      "a name that overflows 63 characters with the suffix",
      LONG,
      `metadata.name: the mirror name ${LONG}-east would be 64 characters, more than the 63 a Service name may have; shorten the Service's name to at most 58 characters (or link the cluster under a shorter name)`,
    ],
  ];
  for (const [what, name, message] of rows) {
    test(`${what}: one log line naming the field and the fix, the Link status, an Event on the target; no mirror`, () => {
      expect(log.at("warn").filter((l) => l.includes(`ns1/${name}`))).toEqual([`not mirroring ns1/${name}: ${message}`]);
      expect(statusOf(name)).toMatchObject({ reason: "InvalidService", message });
      expect(eventsOn(name)).toEqual([
        message === "object spec has no exposed ports"
          ? "Skipped mirroring service: object spec has no exposed ports"
          : `Skipped mirroring service: ${message}`,
      ]);
      expect(read(pair.west, "services", "ns1", `${name}-east`)).toBeUndefined();
      expect(read(pair.west, "endpoints", "ns1", `${name}-east`)).toBeUndefined();
      expect(ctl.outcome(`ns1/${name}`)).toBe("skipped");
    });
  }

  test("the long name is not truncated into something else either", () => {
    expect(westServices().filter((n) => n?.startsWith("sxxxx"))).toEqual([]);
  });

  test("a unicode label on the target is refused by its API server, naming metadata.labels, so there is nothing to mirror", async () => {
    const err = await pair.eastClient
      .create(resources.service, {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "cafe", namespace: "ns1", labels: { ...EXPORT, flavour: "café" } },
        spec: { ports: [{ port: 80 }] },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect((err as KubeError).message).toContain(
      `422 Invalid: Service "cafe" is invalid: metadata.labels: Invalid value: "café": a valid label must be an empty string or consist of alphanumeric characters`,
    );
    expect(read(pair.east, "services", "ns1", "cafe")).toBeUndefined();
  });
});

describe("what can be mirrored is mirrored whole", () => {
  test("100 ports: the mirror and its Endpoints carry all of them", () => {
    const svc = read(pair.west, "services", "ns1", "many-east") as unknown as { spec: { ports: { name: string; port: number }[] } };
    expect(svc.spec.ports.map((p) => `${p.name}:${p.port}`)).toEqual(manyPorts.map((p) => `${p.name}:${p.port}`));
    const eps = read(pair.west, "endpoints", "ns1", "many-east") as unknown as { subsets: { ports: { name: string }[] }[] };
    expect(eps.subsets[0]!.ports.map((p) => p.name)).toEqual(manyPorts.map((p) => p.name));
  });

  test("unicode annotations are copied byte for byte", () => {
    expect(read(pair.west, "services", "ns1", "uni-east")?.metadata.annotations).toMatchObject({
      note: "日本語の説明 ✓",
      "example.com/owner": "Zoë",
    });
  });
});

describe.skipIf(!hasKubectl)("the sandbox validates labels as kube-apiserver does", () => {
  test(
    needsKubectl("kubectl apply of a Service with a unicode label value or a bad label key is refused with kube's message"),
    async () => {
      const kubectl = kubectlFor(pair.east.kubeconfig);
      const value = await kubectl(["apply", "-f", "-"], {
        stdin:
          'apiVersion: v1\nkind: Service\nmetadata: {name: cafe, namespace: ns1, labels: {flavour: "café"}}\nspec: {ports: [{port: 80}]}\n',
      });
      expect(value.code).toBe(1);
      expect(value.stderr).toContain(
        `The Service "cafe" is invalid: metadata.labels: Invalid value: "café": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      );
      const key = await kubectl(["apply", "-f", "-"], {
        stdin: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns1, labels: {"bad key!": "x"}}\n',
      });
      expect(key.code).toBe(1);
      expect(key.stderr).toContain(`metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`);
      const long = await kubectl(["create", "service", "clusterip", `s${"x".repeat(63)}`, "--tcp=80", "-n", "ns1"]);
      expect(long.stderr).toContain("must be no more than 63 characters");
    },
  );
});
