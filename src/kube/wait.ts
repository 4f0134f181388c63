// Waiting for an object to reach a state, on events: read it, and if it is not there yet,
// watch it from that read's resourceVersion until the predicate holds or the deadline passes.
import type { KubeClient } from "./client.ts";
import { isNotFound } from "./kube-error.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export class WaitTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`timed out after ${ms} ms waiting for ${what}`);
    this.name = "WaitTimeout";
  }
}

/** Resolves with the object (undefined = it is gone) once `pred` holds for it. */
export async function waitForObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ResourceType,
  namespace: string | undefined,
  name: string,
  pred: (obj: T | undefined) => boolean,
  opts: { what: string; timeoutMs: number },
): Promise<T | undefined> {
  const list = await client.list<T>(res, { namespace, fieldSelector: `metadata.name=${name}` });
  if (pred(list.items[0])) return list.items[0];
  const stream = await client.watch<T>(res, { namespace, fieldSelector: `metadata.name=${name}`, resourceVersion: list.resourceVersion });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitTimeout(opts.what, opts.timeoutMs)), opts.timeoutMs);
  });
  const seen = (async () => {
    for await (const e of stream.events) {
      const obj = e.type === "DELETED" ? undefined : e.object;
      if (pred(obj)) return obj;
    }
    throw new Error(`the watch ended before ${opts.what}`);
  })();
  try {
    return await Promise.race([seen, deadline]);
  } finally {
    clearTimeout(timer);
    stream.cancel();
  }
}

/** The object, or undefined when it does not exist. */
export async function getIfExists<T extends KubeObject = KubeObject>(client: KubeClient, res: ResourceType, namespace: string | undefined, name: string): Promise<T | undefined> {
  try {
    return await client.get<T>(res, namespace, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
