// What an informer tells its subscribers, and the fan-out that tells them: each handler is called
// synchronously, in subscription order; one that throws or rejects is logged and the rest still run.
import { formatError } from "../errors.ts";
import type { KubeError } from "./kube-error.ts";

export type InformerEvent<T> =
  | { type: "added"; key: string; object: T }
  | { type: "updated"; key: string; object: T; old: T }
  | { type: "deleted"; key: string; object: T };

export type InformerStatus =
  | { state: "listing" }
  /** The server's history went backwards (resourceVersion `before` seen, now listed at `resourceVersion`, as after an etcd restore): relisted. */
  | { state: "reset"; before: string; resourceVersion: string }
  | { state: "watching"; resourceVersion: string }
  | { state: "backoff"; attempt: number; delayMs: number; error: KubeError }
  /** Given up for good: an error retrying cannot fix (the informer lists and watches no more). */
  | { state: "failed"; error: Error }
  | { state: "stopped" };

export interface InformerCounters {
  /** Successful lists, the first one included. */
  lists: number;
  /** Watch streams opened. */
  watches: number;
  /** 410 Gone answers (each followed by a relist). */
  gone: number;
  /** Failed lists or watches (each followed by a backoff). */
  failures: number;
  /** Add, update and delete events received on watches. */
  events: number;
  /** Of those, the echoes of this process's own writes taken from the write's answer, not parsed. */
  echoes: number;
}

export class Fanout<E> {
  private readonly handlers = new Set<(e: E) => unknown>();

  constructor(private readonly onError: (message: string) => void) {}

  add(handler: (e: E) => unknown): () => void {
    const own = (e: E) => handler(e); // a fresh function: the same handler may subscribe twice
    this.handlers.add(own);
    return () => this.handlers.delete(own);
  }

  emit(event: E): void {
    for (const handler of this.handlers) {
      try {
        const out = handler(event);
        if (out instanceof Promise) out.catch((err: unknown) => this.onError(formatError(err)));
      } catch (err) {
        this.onError(formatError(err));
      }
    }
  }
}
