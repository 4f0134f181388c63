// KubeClient: a small typed facade over one cluster — get/list/create/update/patch/delete/watch of
// any resource named by apiVersion + kind + plural, each call with a timeout, each failure a
// KubeError naming verb and target. No discovery round-trips: callers say what they mean.
import { allows, type AccessRule } from "../model/access.ts";
import { describeTarget, kubeError, type KubeVerb } from "./kube-error.ts";
import { tokenBucket, type ClientLimits } from "./throttle.ts";
import { requestJson, requestStream, type Query, type RawRequest, type Transport } from "./transport.ts";
import type { KubeList, KubeObject, ResourceType, WatchEvent } from "./types.ts";

export const FIELD_MANAGER = "mc";

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-request timeout. */
  timeoutMs?: number;
}

export interface ListOptions extends CallOptions {
  /** Omit for all namespaces (namespaced types) or for cluster-scoped types. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  /** With `resourceVersionMatch: "NotOlderThan"`: data at least this new (kube waits ~3 s, then 504 "Too large resource version"). */
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan" | "Exact";
}

export interface WriteOptions extends CallOptions {
  fieldManager?: string;
  dryRun?: boolean;
  /** Write the status subresource instead of the object. */
  subresource?: "status";
  /** A create or update whose object a watch of ours will carry back: its event is then taken from the answer, not parsed (echoes.ts). */
  echo?: boolean;
}

/** merge = RFC 7386 JSON merge patch; json = RFC 6902; strategic = Kubernetes strategic merge; apply = server-side apply. */
type PatchType = "merge" | "json" | "strategic" | "apply";

export interface PatchOptions extends WriteOptions {
  type?: PatchType;
  /** Server-side apply only: take fields owned by other managers. */
  force?: boolean;
}

export interface DeleteOptions extends CallOptions {
  dryRun?: boolean;
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  preconditions?: { resourceVersion?: string; uid?: string };
  /** 0 deletes at once (what a kubelet does when a Pod's containers have stopped). */
  gracePeriodSeconds?: number;
}

export interface WatchOptions<T = KubeObject> {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Asks the server to end the watch after this long. */
  timeoutSeconds?: number;
  /** How long to wait for the response headers. */
  connectTimeoutMs?: number;
  signal?: AbortSignal;
  /** Our own writes' echoes: taken from their answers instead of parsed, or parsed first and kept for the answer (echoes.ts). */
  echoes?: WatchEchoes<T>;
}

export interface WatchEchoes<T> {
  /** The event of `line` when it is the echo of an answer already parsed; undefined: the line is parsed. */
  take(line: string): WatchEvent<T> | undefined;
  /** `line` was parsed into `event`. */
  parsed(line: string, event: WatchEvent<T>): void;
}

export interface WatchStream<T> {
  events: AsyncIterable<WatchEvent<T>>;
  /** Ends the stream; `events` then finishes. */
  cancel(): void;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/** A call outside a restricted client's access table: a bug in mc (the table and the code drifted apart), never retried. */
export class AccessTableError extends Error {
  readonly isRetryable = false;
  constructor(message: string) {
    super(message);
    this.name = "AccessTableError";
  }
}

export class KubeClient {
  constructor(
    /** The name used in messages (`… on east`): the Link's cluster name or the context. */
    readonly cluster: string,
    /** The context's namespace, used when an object or call names none. */
    readonly namespace: string,
    private readonly transport: Transport,
    readonly timeoutMs = 30_000,
    /** Only these calls are made (restrictedTo); undefined: any. */
    private readonly access?: { rules: readonly AccessRule[]; table: string },
  ) {}

  get server(): string {
    return this.transport.server;
  }

  /** The same connection under another display name (e.g. the Link's target cluster name). */
  named(cluster: string): KubeClient {
    return new KubeClient(cluster, this.namespace, this.transport, this.timeoutMs, this.access);
  }

  /**
   * The same connection with its own client-side limit (`--kube-api-qps`, `--kube-api-burst`): a
   * token bucket every request of it and of the clients made from it waits on. qps 0: no limit.
   */
  limited(limits: ClientLimits): KubeClient {
    if (!(limits.qps > 0)) return this;
    const t = this.transport;
    const limited: Transport = {
      server: t.server,
      fetchOptions: () => t.fetchOptions(),
      invalidate: () => t.invalidate?.(),
      limiter: tokenBucket(limits),
    };
    return new KubeClient(this.cluster, this.namespace, limited, this.timeoutMs, this.access);
  }

  /**
   * The same connection, making only the calls `rules` grant (RBAC's matching): any other call
   * throws AccessTableError before a request is sent. `table` names where the rules are written.
   */
  restrictedTo(rules: readonly AccessRule[], table: string): KubeClient {
    return new KubeClient(this.cluster, this.namespace, this.transport, this.timeoutMs, { rules, table });
  }

  get<T = KubeObject>(res: ResourceType, namespace: string | undefined, name: string, opts: CallOptions = {}): Promise<T> {
    return this.call<T>("get", "GET", res, this.ns(res, namespace), name, opts);
  }

  async list<T = KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const namespace = res.namespaced ? opts.namespace : undefined;
    const query: Query = {
      labelSelector: opts.labelSelector || undefined,
      fieldSelector: opts.fieldSelector || undefined,
      limit: opts.limit,
      continue: opts.continue,
      resourceVersion: opts.resourceVersion || undefined,
      resourceVersionMatch: opts.resourceVersion ? opts.resourceVersionMatch : undefined,
    };
    const list = await this.call<{ items?: T[] | null; metadata?: { resourceVersion?: string; continue?: string } }>(
      "list",
      "GET",
      res,
      namespace,
      undefined,
      { ...opts, query },
    );
    return {
      items: list.items ?? [],
      resourceVersion: list.metadata?.resourceVersion ?? "",
      continue: list.metadata?.continue || undefined,
    };
  }

  create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const namespace = this.ns(res, obj.metadata.namespace);
    const body = res.namespaced ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj;
    const call = { ...opts, body, query: writeQuery(opts), expectEcho: opts.echo };
    return this.call<T>("create", "POST", res, namespace, undefined, call, obj.metadata.name);
  }

  /** PUT: replaces the object (or its status); `metadata.resourceVersion` makes it conditional. */
  update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const name = requireName(obj, "update", res, this.cluster);
    return this.call<T>("update", "PUT", res, this.ns(res, obj.metadata.namespace), name, {
      ...opts,
      body: obj,
      query: writeQuery(opts),
      expectEcho: opts.echo,
    });
  }

  patch<T = KubeObject>(
    res: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts: PatchOptions = {},
  ): Promise<T> {
    const type = opts.type ?? "merge";
    const query = { ...writeQuery(opts), force: type === "apply" && opts.force ? true : undefined };
    return this.call<T>("patch", "PATCH", res, this.ns(res, namespace), name, {
      ...opts,
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      query,
    });
  }

  async delete(res: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<void> {
    const body =
      opts.propagationPolicy || opts.preconditions || opts.gracePeriodSeconds !== undefined
        ? {
            kind: "DeleteOptions",
            apiVersion: "v1",
            propagationPolicy: opts.propagationPolicy,
            preconditions: opts.preconditions,
            gracePeriodSeconds: opts.gracePeriodSeconds,
          }
        : undefined;
    await this.call("delete", "DELETE", res, this.ns(res, namespace), name, {
      ...opts,
      body,
      query: { dryRun: opts.dryRun ? "All" : undefined },
    });
  }

  /** Opens one watch stream; the informer supervises it. Events are parsed lines of the stream. */
  async watch<T = KubeObject>(res: ResourceType, opts: WatchOptions<T> = {}): Promise<WatchStream<T>> {
    const namespace = res.namespaced ? opts.namespace : undefined;
    const target = describeTarget({ plural: res.plural, cluster: this.cluster, namespace });
    this.checkAccess("watch", res, res.plural, undefined, target);
    const stream = await requestStream(this.transport, {
      verb: "watch",
      target,
      method: "GET",
      path: resourcePath(res, namespace),
      query: {
        watch: true,
        labelSelector: opts.labelSelector || undefined,
        fieldSelector: opts.fieldSelector || undefined,
        resourceVersion: opts.resourceVersion || undefined,
        allowWatchBookmarks: opts.allowWatchBookmarks || undefined,
        timeoutSeconds: opts.timeoutSeconds,
      },
      timeoutMs: opts.connectTimeoutMs ?? this.timeoutMs,
      signal: opts.signal,
    });
    let cancelled = false;
    return {
      events: parseWatchLines<T>(stream.chunks, target, () => cancelled, opts.echoes),
      cancel: () => {
        cancelled = true;
        stream.cancel();
      },
    };
  }

  /** Any other GET (e.g. `/version`), with the same timeout and error mapping. */
  getPath<T>(path: string, opts: CallOptions = {}): Promise<T> {
    return requestJson<T>(this.transport, {
      verb: "get",
      target: `${path} on ${this.cluster}`,
      method: "GET",
      path,
      timeoutMs: opts.timeoutMs ?? this.timeoutMs,
      signal: opts.signal,
    });
  }

  private checkAccess(verb: KubeVerb, res: ResourceType, resource: string, name: string | undefined, target: string): void {
    if (!this.access) return;
    const group = res.apiVersion.includes("/") ? res.apiVersion.slice(0, res.apiVersion.indexOf("/")) : "";
    if (allows(this.access.rules, { verb, group, resource, ...(name !== undefined && { name }) })) return;
    throw new AccessTableError(`${verb} ${target}: not in mc's access table for this cluster (${this.access.table}); this is a bug in mc`);
  }

  private ns(res: ResourceType, namespace: string | undefined): string | undefined {
    return res.namespaced ? namespace || this.namespace : undefined;
  }

  private call<T>(
    verb: KubeVerb,
    method: RawRequest["method"],
    res: ResourceType,
    namespace: string | undefined,
    name: string | undefined,
    opts: CallOptions & { query?: Query; body?: unknown; contentType?: string; subresource?: string; expectEcho?: boolean },
    targetName = name,
  ): Promise<T> {
    const sub = opts.subresource ? `/${opts.subresource}` : "";
    const plural = opts.subresource ? `${res.plural}/${opts.subresource}` : res.plural;
    const target = describeTarget({ plural, cluster: this.cluster, namespace, name: targetName });
    try {
      this.checkAccess(verb, res, plural, name, target);
    } catch (err) {
      return Promise.reject(err);
    }
    return requestJson<T>(this.transport, {
      verb,
      target,
      method,
      path: resourcePath(res, namespace, name) + (name !== undefined ? sub : ""),
      query: opts.query,
      body: opts.body,
      contentType: opts.contentType,
      timeoutMs: opts.timeoutMs ?? this.timeoutMs,
      signal: opts.signal,
      expectEcho: opts.expectEcho,
    });
  }
}

/** `/api/v1/namespaces/ns/services/name`, `/apis/coordination.k8s.io/v1/leases`, … */
function resourcePath(res: ResourceType, namespace?: string, name?: string): string {
  const base = res.apiVersion.includes("/") ? `/apis/${res.apiVersion}` : `/api/${res.apiVersion}`;
  const ns = res.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${ns}/${res.plural}${name !== undefined ? `/${encodeURIComponent(name)}` : ""}`;
}

function writeQuery(opts: WriteOptions): Query {
  return { fieldManager: opts.fieldManager ?? FIELD_MANAGER, dryRun: opts.dryRun ? "All" : undefined };
}

function requireName(obj: KubeObject, verb: KubeVerb, res: ResourceType, cluster: string): string {
  const name = obj.metadata.name;
  if (name) return name;
  throw kubeError({
    verb,
    target: describeTarget({ plural: res.plural, cluster }),
    code: 0,
    reason: "Unknown",
    detail: "object has no metadata.name",
  });
}

/**
 * Splits a watch body into JSON lines; blank lines (keep-alives) are skipped, a garbled line ends the stream with an error. A line
 * `echoes` takes is not parsed.
 */
async function* parseWatchLines<T>(
  chunks: AsyncIterable<Uint8Array | string>,
  target: string,
  cancelled: () => boolean,
  echoes?: WatchEchoes<T>,
): AsyncGenerator<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for await (const chunk of chunks) yield* splitLines(chunk);
  } catch (err) {
    if (cancelled()) return; // our own cancel: a clean end
    throw err;
  }

  function* splitLines(chunk: Uint8Array | string): Generator<WatchEvent<T>> {
    buffered += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    // One pass over the chunk, cutting the rest off once: a chunk may hold many events.
    let start = 0;
    let newline: number;
    while ((newline = buffered.indexOf("\n", start)) >= 0) {
      const line = buffered.slice(start, newline).trim();
      start = newline + 1;
      if (!line) continue;
      let event = echoes?.take(line);
      if (event) {
        yield event;
        continue;
      }
      try {
        event = JSON.parse(line) as WatchEvent<T>;
      } catch {
        throw kubeError({ verb: "watch", target, code: 200, reason: "Unknown", detail: "garbled watch event" });
      }
      echoes?.parsed(line, event);
      yield event;
    }
    buffered = buffered.slice(start);
  }
}
