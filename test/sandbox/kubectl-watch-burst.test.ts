// A burst of writes made at once reaches `kubectl get --watch` as every event, in order, over TLS with a
// client certificate and with a token: kube-apiserver's watch handler may send many events in one flush.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl } from "../helpers/kubectl.ts";

let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ name: "watch-burst", tls: true });
});
afterAll(() => sb?.stop());

const configmaps = () => sb.api.registry.find("", "v1", "configmaps")!;
const cm = (name: string, data: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default" },
  data,
});

/** Reads `kubectl get configmaps -w --output-watch-events -o json` until `until` is seen; returns each event as "TYPE name n". */
async function watchUntil(context: string, start: () => void, until: string): Promise<string[]> {
  const kubectl = kubectlFor(sb.kubeconfig);
  const proc = kubectl.spawn(["--context", context, "get", "configmaps", "-n", "default", "-w", "--output-watch-events", "-o", "json"]);
  const reader = proc.stdout.getReader();
  const events: string[] = [];
  let text = "";
  let started = false;
  try {
    while (!events.includes(until)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`watch ended after ${events.length} events: ${await new Response(proc.stderr).text()}`);
      text += new TextDecoder().decode(value);
      // kubectl prints each event as one line of JSON.
      const lines = text.split("\n");
      text = lines.pop()!;
      for (const line of lines.filter((l) => l !== "")) {
        const e = JSON.parse(line);
        events.push(`${e.type} ${e.object.metadata.name} ${e.object.data?.n ?? ""}`);
      }
      if (!started && events.includes("ADDED ready ")) {
        started = true;
        start();
      }
    }
  } finally {
    proc.kill();
    await proc.exited;
  }
  return events;
}

/** 200 creates, 200 updates and 100 deletes in one turn of the event loop, then a last marker. */
function burst(tag: string): string[] {
  const type = configmaps();
  const expected: string[] = [];
  for (let i = 0; i < 200; i++) {
    sb.api.create(type, "default", cm(`${tag}-${i}`, { n: "0" }), { fieldManager: "test" });
    expected.push(`ADDED ${tag}-${i} 0`);
  }
  for (let i = 0; i < 200; i++) {
    sb.api.update(type, "default", `${tag}-${i}`, cm(`${tag}-${i}`, { n: "1" }), { fieldManager: "test" });
    expected.push(`MODIFIED ${tag}-${i} 1`);
  }
  for (let i = 0; i < 100; i++) {
    sb.api.delete(type, "default", `${tag}-${i}`, {});
    expected.push(`DELETED ${tag}-${i} 1`);
  }
  sb.api.create(type, "default", cm(`${tag}-end`, { n: "end" }), { fieldManager: "test" });
  expected.push(`ADDED ${tag}-end end`);
  return expected;
}

for (const [context, tag] of [
  ["watch-burst-cert", "cert"],
  ["watch-burst", "token"],
] as const) {
  test.skipIf(!hasKubectl)(needsKubectl(`kubectl get --watch (${tag}) sees every event of a burst, in order`), async () => {
    if (!sb.api.store.scan(configmaps(), { namespace: "default" }).some((o) => o.metadata.name === "ready"))
      sb.api.create(configmaps(), "default", cm("ready", {}), { fieldManager: "test" });
    let expected: string[] = [];
    const events = await watchUntil(context, () => (expected = burst(tag)), `ADDED ${tag}-end end`);
    expect(events.filter((e) => e.split(" ")[1]!.startsWith(`${tag}-`))).toEqual(expected);
  });
}
