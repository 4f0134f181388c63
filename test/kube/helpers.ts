// Shared fixtures for the kube layer's tests: sandboxes with a real client, object factories,
// a log that records lines, and waits that end on an event (with a guard so a hang fails fast).
import { connectKubeconfigText } from "../../src/kube/connect.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { resources } from "../../src/kube/resources.ts";
import type { Informer, InformerEvent, InformerStatus } from "../../src/kube/informer.ts";
import type { KubeObject } from "../../src/kube/types.ts";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/index.ts";

export async function sandboxWithClient(opts: SandboxOptions = {}): Promise<{ sb: Sandbox; client: KubeClient }> {
  const sb = await startSandbox({ name: "east", port: 0, ...opts });
  const client = await connectKubeconfigText(sb.kubeconfig, "kubeconfig east", { timeoutMs: 5000 });
  return { sb, client };
}

export function service(name: string, namespace: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name, namespace, labels }, spec: { ports: [{ name: "http", port: 80 }] } };
}

let nsCounter = 0;
/** Creates a namespace no other test in the process uses and returns its name. */
export async function freshNamespace(client: KubeClient, prefix = "t"): Promise<string> {
  const name = `${prefix}-${++nsCounter}`;
  await client.create(resources.namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

export { recordingLog, type RecordingLog } from "../helpers/log.ts";

/** Rejects after `ms` naming what was awaited — a guard against hangs, never a way to wait. */
export function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Resolves with the first status that matches. Subscribe before causing it. */
export function nextStatus<T extends KubeObject>(
  informer: Informer<T>,
  match: (s: InformerStatus) => boolean,
  what = "an informer status",
): Promise<InformerStatus> {
  return within(
    new Promise<InformerStatus>((resolve) => {
      const off = informer.onStatus((s) => {
        if (match(s)) {
          off();
          resolve(s);
        }
      });
    }),
    what,
  );
}

/** Collects events until `done(events)` holds. Subscribe before causing them. */
export function collectEvents<T extends KubeObject>(
  informer: Informer<T>,
  done: (events: InformerEvent<T>[]) => boolean,
  what = "informer events",
): Promise<InformerEvent<T>[]> {
  const events: InformerEvent<T>[] = [];
  return within(
    new Promise<InformerEvent<T>[]>((resolve) => {
      const off = informer.on((e) => {
        events.push(e);
        if (done(events)) {
          off();
          resolve(events);
        }
      });
    }),
    what,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; got ${JSON.stringify(events.map((e) => `${e.type} ${e.key}`))}`);
  });
}

export const summary = (events: InformerEvent<KubeObject>[]) => events.map((e) => `${e.type} ${e.key}`);

/** Resolves once the informer has passed through these states in this order. Subscribe before causing them. */
export function statesInOrder<T extends KubeObject>(
  informer: Informer<T>,
  states: InformerStatus["state"][],
  what = states.join(" then "),
): Promise<void> {
  return within(
    new Promise<void>((resolve) => {
      let i = 0;
      const off = informer.onStatus((s) => {
        if (s.state === states[i] && ++i === states.length) {
          off();
          resolve();
        }
      });
    }),
    what,
  );
}
