// One object as something to wait on (src/runtime/wait.ts): read it by name, then watch it from
// that read's resourceVersion. A deletion is `undefined`.
import { waitFor, type Followable } from "../runtime/wait.ts";
import type { KubeClient } from "./client.ts";
import { isNotFound } from "./kube-error.ts";
import type { KubeObject, ResourceType } from "./types.ts";

/** The object `namespace/name` of `res`, read and watched through a field selector on its name. */
function followObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ResourceType,
  namespace: string | undefined,
  name: string,
): Followable<T> {
  const fieldSelector = `metadata.name=${name}`;
  return {
    async read() {
      const list = await client.list<T>(res, { namespace, fieldSelector });
      return { value: list.items[0], from: list.resourceVersion };
    },
    async follow(from) {
      const stream = await client.watch<T>(res, { namespace, fieldSelector, resourceVersion: from });
      const values = (async function* () {
        for await (const e of stream.events) yield e.type === "DELETED" ? undefined : e.object;
      })();
      return { values, cancel: () => stream.cancel() };
    },
  };
}

/** Resolves with the object (undefined = it is gone) once `pred` holds for it. */
export function waitForObject<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ResourceType,
  namespace: string | undefined,
  name: string,
  pred: (obj: T | undefined) => boolean,
  opts: { what: string; timeoutMs: number },
): Promise<T | undefined> {
  return waitFor(followObject<T>(client, res, namespace, name), pred, opts);
}

/** The object, or undefined when it does not exist. */
export async function getIfExists<T extends KubeObject = KubeObject>(
  client: KubeClient,
  res: ResourceType,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  try {
    return await client.get<T>(res, namespace, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
