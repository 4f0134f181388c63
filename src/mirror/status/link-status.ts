// LinkStatus: the one writer of a Link's status subresource (JSON merge patches, one field each).
import { formatError } from "../../errors.ts";
import { isNotFound, type Writer } from "../../kube/index.ts";
import type { Logger } from "../../log.ts";
import { linkResource, type GatewayStatus } from "../../model/link.ts";
import { gatewayStatusPatch } from "../../prober/index.ts";
import { systemClock, WorkQueue, type BackoffOptions, type Clock } from "../../runtime/index.ts";
import { federatedServicesStatus, type FederatedEntry } from "../federated/federated-status.ts";
import { keepTransitionTimes, MAX_STATUS_ENTRIES, mirrorServicesStatus, sameMirrorServices, type MirrorFailure } from "./status.ts";

// Its parts (`mirrorServices`, `federatedServices` from the controller, `conditions` from the
// supervisor) say what to write when asked; a changed part is queued and written under one retry rule,
// the mirror queue's (its requeue limit and backoff, then again at the next refresh), the newest value
// winning. `gateway` is the prober's, written at once at its pace, whole, absent fields as null
// (gatewayStatusPatch), or a merge patch would keep them. Nothing is written when the Link already
// says the same; a Link that is gone is nothing to report on.

/** The parts of a Link's status written through the queue. */
export type StatusPart = "mirrorServices" | "federatedServices" | "conditions";

/** What a part writes now: the fields to patch, and what to do once the Link holds them. Undefined: nothing to write. */
export type StatusWrite = { patch: Record<string, unknown>; written(): void } | undefined;

export interface LinkStatusOptions {
  writer: Writer;
  namespace: string;
  name: string;
  log: Logger;
  /** Failed writes of a part are retried this many times (the mirror queue's requeue limit), then given up until the part changes or `retry()`. */
  requeueLimit: number;
  backoff?: Partial<BackoffOptions>;
  clock?: Clock;
  /** Write nothing (the local mirror has no Link). */
  disabled?: boolean;
}

export class LinkStatus {
  private readonly parts = new Map<StatusPart, () => StatusWrite>();
  private readonly queue: WorkQueue<StatusPart>;

  constructor(private readonly o: LinkStatusOptions) {
    this.queue = new WorkQueue<StatusPart>((part) => this.write(part), {
      requeueLimit: o.requeueLimit,
      backoff: o.backoff,
      clock: o.clock ?? systemClock,
      log: o.log,
    });
  }

  /** Gives a part its source (replacing any other); the returned function takes it away again, if it is still this one. */
  attach(part: StatusPart, next: () => StatusWrite): () => void {
    this.parts.set(part, next);
    return () => {
      if (this.parts.get(part) === next) this.parts.delete(part);
    };
  }

  /** The part's wanted value changed: write it (soon, once, the newest). */
  changed(part: StatusPart): void {
    if (this.parts.has(part)) this.queue.add(part);
  }

  /** Every part once more: a write that was given up gets another chance (a refresh). */
  retry(): void {
    for (const part of this.parts.keys()) this.queue.add(part);
  }

  start(): void {
    this.queue.start();
  }

  async stop(): Promise<void> {
    await this.queue.stop();
  }

  /** Resolves once every part asked for so far is written (or given up). */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  /** Makes `status.gateway` equal `gateway`: fields it lacks are removed. False when nothing was written (no Link). */
  writeGateway(gateway: GatewayStatus): Promise<boolean> {
    return this.patch({ gateway: gatewayStatusPatch(gateway) });
  }

  private async write(part: StatusPart): Promise<void> {
    const w = this.parts.get(part)?.();
    if (!w) return;
    try {
      if (await this.patch(w.patch)) w.written();
    } catch (err) {
      this.o.log.debug(`could not write status.${part} of Link ${this.o.namespace}/${this.o.name}: ${formatError(err)}`);
      throw err;
    }
  }

  private async patch(status: Record<string, unknown>): Promise<boolean> {
    if (this.o.disabled) return false;
    try {
      await this.o.writer.patchStatus(linkResource, this.o.namespace, this.o.name, status);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    return true;
  }
}

/** The controller's `status.mirrorServices`: these failures unless the Link already says the same (starting from what it held); `written` counts the write. */
export function mirrorServicesPart(o: {
  current: unknown;
  failures: () => { list: Iterable<MirrorFailure>; total: number };
  cap?: number;
  log: Logger;
  written: () => void;
}): () => StatusWrite {
  let current = o.current;
  return () => {
    const { list, total } = o.failures();
    const next = keepTransitionTimes(current, mirrorServicesStatus(list, o.cap ?? MAX_STATUS_ENTRIES));
    if (sameMirrorServices(current, next)) return undefined;
    return {
      patch: { mirrorServices: next.length > 0 ? next : null },
      written: () => {
        current = next;
        o.written();
        if (total > next.length) o.log.info(`Link status lists ${next.length} of ${total} services that failed to mirror`);
      },
    };
  };
}

/** The controller's `status.federatedServices`: these memberships unless the Link already says the same. */
export function federatedServicesPart(o: {
  current: unknown;
  entries: () => Iterable<FederatedEntry>;
  cap?: number;
  written: () => void;
}): () => StatusWrite {
  let current = o.current;
  return () => {
    const next = keepTransitionTimes(current, federatedServicesStatus(o.entries(), o.cap ?? MAX_STATUS_ENTRIES));
    if (sameMirrorServices(current, next)) return undefined;
    return {
      patch: { federatedServices: next.length > 0 ? next : null },
      written: () => {
        current = next;
        o.written();
      },
    };
  };
}
