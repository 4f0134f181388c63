// Runs planned ops through the writer, in order: each result goes into the local view (so the next read sees it, and the view knows the
// write's echo) and into the write counter. An op the plan marks `concurrent` is sent together with the one before it (a new mirror's
// Endpoints with its Service: kube takes them in either order).
import { isAlreadyExists, isConflict, isNotFound, KubeError, type KubeObject, type Writer } from "../../kube/index.ts";
import type { Metrics } from "../../metrics.ts";
import type { MirrorOp } from "./plan.ts";
import { OUTPUT_KINDS, type OutputKind, type OwnedKind } from "./kinds.ts";
import type { LocalView } from "./view.ts";

// A failure stops the rest and propagates to the queue, which retries the key (reconcile re-plans from
// scratch). A 404 or 409 on an owned object means the view was wrong: its overlay goes and the key is
// retried, a vanished mirror's update as a create (StaleView: a 404 that is retried).

export interface OpResult {
  op: MirrorOp;
  /** What the server returned for a create or update. */
  object?: KubeObject;
}

export interface ExecutorDeps {
  writer: Writer;
  /** The local view of each kind the mirror owns (OUTPUT_KINDS); EndpointSlice only with `--mirror-endpoint-slices`. */
  views: { readonly [K in OwnedKind]: K extends "EndpointSlice" ? LocalView<KubeObject> | undefined : LocalView<KubeObject> };
  metrics: Metrics;
  cluster: string;
  /**
   * Whether the Link still stands (asked of the server), before a mirror someone else deleted is made
   * again: `mc unlink | kubectl delete -f -` deletes the Link, then the mirrors, and a controller not yet
   * told of the first must not undo the second (D181). Absent: never asked (the local mirror has no Link).
   */
  linkStands?: () => Promise<boolean>;
}

const isOwned = (kind: OutputKind): kind is OwnedKind => OUTPUT_KINDS[kind].owned;

export type Execute = (ops: readonly MirrorOp[]) => Promise<OpResult[]>;

/** An update answered 404: the mirror went while the view still held it. Unlike other 404s, worth a retry (it re-plans as a create). */
class StaleView extends KubeError {
  constructor(err: KubeError) {
    super({
      verb: err.verb,
      target: err.target,
      code: err.code,
      reason: err.reason,
      ...(err.detail !== undefined && { detail: err.detail }),
    });
    this.name = "StaleView";
  }
  override get isRetryable(): boolean {
    return true;
  }
}

export function createExecutor(d: ExecutorDeps): Execute {
  const count = (verb: "create" | "update" | "delete") => d.metrics.apiWrites.inc({ target_cluster_name: d.cluster, verb });
  const view = (kind: OutputKind): LocalView<KubeObject> | undefined => (isOwned(kind) ? d.views[kind] : undefined);

  return async (ops) => {
    const results: OpResult[] = [];
    for (let i = 0; i < ops.length; ) {
      let end = i + 1;
      while (end < ops.length && ops[end]!.concurrent) end++;
      const batch = ops.slice(i, end);
      i = end;
      const settled = batch.length === 1 ? [await attempt(batch[0]!)] : await Promise.all(batch.map(attempt));
      for (const r of settled) if (r.ok && r.result) results.push(r.result);
      const failed = settled.find((r) => !r.ok);
      if (failed) throw failed.err;
    }
    return results;
  };

  /** One op, its failure caught (so the rest of its batch still lands in the view); no result: skipped. */
  async function attempt(op: MirrorOp): Promise<{ ok: true; result?: OpResult } | { ok: false; err: unknown }> {
    const v = view(op.kind);
    const { namespace, name = "" } = op.verb === "delete" ? { namespace: op.namespace, name: op.name } : op.object.metadata;
    if (op.verb === "create" && d.linkStands && v?.removedByOthers(namespace, name) && !(await d.linkStands())) return { ok: true };
    v?.writing(namespace, name);
    try {
      return { ok: true, result: await run(op, v) };
    } catch (err) {
      v?.failed(namespace, name);
      if (!isOwned(op.kind) && op.verb === "create" && isAlreadyExists(err)) return { ok: true }; // created by someone else meanwhile: it exists
      // An update of what is gone (404), or a write that lost to another (409): the view was not the truth.
      if (v && (isNotFound(err) || isConflict(err))) {
        v.stale(namespace, name);
        if (op.verb === "update" && err instanceof KubeError && isNotFound(err)) return { ok: false, err: new StaleView(err) };
      }
      return { ok: false, err };
    }
  }

  /** One op through the writer; its result goes into the view (which releases the events it held). */
  async function run(op: MirrorOp, v: LocalView<KubeObject> | undefined): Promise<OpResult> {
    if (op.verb === "create") {
      const object = await d.writer.create(OUTPUT_KINDS[op.kind].resource, op.object as KubeObject);
      count("create");
      v?.wrote(object);
      return { op, object };
    }
    if (op.verb === "update") {
      const before = op.object.metadata.resourceVersion ?? "";
      const object = await d.writer.update(OUTPUT_KINDS[op.kind].resource, op.object as KubeObject);
      count("update");
      v?.wrote(object, before);
      return { op, object };
    }
    const before = v?.get(op.namespace, op.name)?.metadata.resourceVersion ?? "";
    const preconditions = { ...(op.uid && { uid: op.uid }), ...(op.resourceVersion && { resourceVersion: op.resourceVersion }) };
    const removed = await d.writer.delete(
      OUTPUT_KINDS[op.kind].resource,
      op.namespace,
      op.name,
      op.uid || op.resourceVersion ? { preconditions } : {},
    );
    if (removed) count("delete");
    v?.deleted(op.namespace, op.name, before);
    return { op };
  }
}
