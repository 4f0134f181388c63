// Writer: every change mc makes to a cluster, with one field manager (`mc`). Create, update, merge-patch, delete and status patch; a delete
// of something already gone is success; AlreadyExists and Conflict come back as AlreadyExistsError / ConflictError so callers can branch on
// them (re-read and retry on the next reconcile, or report a foreign object).
import { logger, type Logger } from "../log.ts";
import { FIELD_MANAGER, type DeleteOptions, type KubeClient } from "./client.ts";
import { describeTarget, isNotFound } from "./kube-error.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export interface WriterOptions {
  /** Default `mc`. */
  fieldManager?: string;
  /** Send every write with dryRun=All: the server validates, nothing is stored. */
  dryRun?: boolean;
  /** Creates and updates of what a watch of ours carries back (mirror objects): their echoes are taken from the answers (echoes.ts). */
  echoes?: boolean;
  log?: Logger;
}

export interface Writer {
  readonly fieldManager: string;
  /** Throws AlreadyExistsError when the name is taken. */
  create<T extends KubeObject>(res: ResourceType, obj: T): Promise<T>;
  /** Replaces the object; with `metadata.resourceVersion` set, throws ConflictError when it is stale. */
  update<T extends KubeObject>(res: ResourceType, obj: T): Promise<T>;
  /** RFC 7386 merge patch (`null` removes a field). */
  patch<T extends KubeObject>(res: ResourceType, namespace: string | undefined, name: string, patch: unknown): Promise<T>;
  /** Merge-patches the status subresource with `{ status }`. */
  patchStatus<T extends KubeObject>(res: ResourceType, namespace: string | undefined, name: string, status: unknown): Promise<T>;
  /** Deletes; resolves false (not an error) when the object was already gone. */
  delete(res: ResourceType, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<boolean>;
}

export function createWriter(client: KubeClient, opts: WriterOptions = {}): Writer {
  const fieldManager = opts.fieldManager ?? FIELD_MANAGER;
  const dryRun = opts.dryRun ?? false;
  const log = opts.log ?? logger(`write:${client.cluster}`);
  const named = (res: ResourceType, namespace: string | undefined, name: string | undefined) =>
    describeTarget({
      plural: res.plural,
      cluster: client.cluster,
      namespace: res.namespaced ? (namespace ?? client.namespace) : undefined,
      name,
    });
  /** A debug line, its message built only when debug lines are kept (every write passes here). */
  const debug = (message: () => string) => {
    if (log.debugging !== false) log.debug(message());
  };
  const write = { fieldManager, dryRun };
  const echoed = { ...write, echo: (opts.echoes ?? false) && !dryRun };

  return {
    fieldManager,
    async create(res, obj) {
      const out = await client.create(res, obj, echoed);
      debug(() => `created ${named(res, out.metadata.namespace, out.metadata.name)}`);
      return out;
    },
    async update(res, obj) {
      const out = await client.update(res, obj, echoed);
      debug(() => `updated ${named(res, out.metadata.namespace, out.metadata.name)}`);
      return out;
    },
    async patch(res, namespace, name, patch) {
      const out = await client.patch<never>(res, namespace, name, patch, { ...write, type: "merge" });
      debug(() => `patched ${named(res, namespace, name)}`);
      return out;
    },
    async patchStatus(res, namespace, name, status) {
      const out = await client.patch<never>(res, namespace, name, { status }, { ...write, type: "merge", subresource: "status" });
      debug(() => `patched status of ${named(res, namespace, name)}`);
      return out;
    },
    async delete(res, namespace, name, deleteOpts) {
      try {
        await client.delete(res, namespace, name, { dryRun, ...deleteOpts });
        debug(() => `deleted ${named(res, namespace, name)}`);
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },
  };
}
