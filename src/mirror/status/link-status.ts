// Writes the Link's status through the status subresource (JSON merge patches, one field each):
// `mirrorServices` when the list of failures changed, `gateway` for the prober. Never a write
// for a successful mirror; a Link that is gone is nothing to report on. `gateway` is sent whole,
// with absent fields as null (gatewayStatusPatch): a merge patch would otherwise keep them, and a
// latency that ran out of the window would stick.
import { isNotFound, type Writer } from "../../kube/index.ts";
import type { Logger } from "../../log.ts";
import type { Metrics } from "../../metrics.ts";
import { linkResource, type GatewayStatus } from "../../model/link.ts";
import { gatewayStatusPatch } from "../../prober/index.ts";
import { federatedServicesStatus, type FederatedEntry } from "../federated/federated-status.ts";
import { keepTransitionTimes, MAX_STATUS_ENTRIES, mirrorServicesStatus, sameMirrorServices, type MirrorFailure } from "./status.ts";

export class LinkStatusWriter {
  constructor(
    private readonly o: {
      writer: Writer;
      namespace: string;
      name: string;
      cluster: string;
      metrics: Metrics;
      log: Logger;
      /** What the Link held when the controller started. */
      current: unknown;
      /** Its `status.federatedServices` then. */
      currentFederated?: unknown;
      cap?: number;
      /** Write nothing (the local mirror has no Link). */
      disabled?: boolean;
    },
  ) {}

  /** Writes `status.mirrorServices` for these failures unless the Link already says the same. */
  async writeFailures(failures: Iterable<MirrorFailure>, total: number): Promise<void> {
    const next = keepTransitionTimes(this.o.current, mirrorServicesStatus(failures, this.o.cap ?? MAX_STATUS_ENTRIES));
    if (sameMirrorServices(this.o.current, next)) return;
    if (!(await this.patch({ mirrorServices: next.length > 0 ? next : null }))) return;
    this.o.current = next;
    if (total > next.length) this.o.log.info(`Link status lists ${next.length} of ${total} services that failed to mirror`);
  }

  /** Writes `status.federatedServices` for these memberships unless the Link already says the same. */
  async writeFederated(entries: Iterable<FederatedEntry>): Promise<void> {
    const next = keepTransitionTimes(this.o.currentFederated, federatedServicesStatus(entries, this.o.cap ?? MAX_STATUS_ENTRIES));
    if (sameMirrorServices(this.o.currentFederated, next)) return;
    if (!(await this.patch({ federatedServices: next.length > 0 ? next : null }))) return;
    this.o.currentFederated = next;
  }

  /** Makes `status.gateway` equal `gateway`: fields it lacks are removed. */
  async writeGateway(gateway: GatewayStatus): Promise<void> {
    await this.patch({ gateway: gatewayStatusPatch(gateway) });
  }

  private async patch(status: Record<string, unknown>): Promise<boolean> {
    if (this.o.disabled) return false;
    try {
      await this.o.writer.patchStatus(linkResource, this.o.namespace, this.o.name, status);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    this.o.metrics.apiWrites.inc({ target_cluster_name: this.o.cluster, verb: "patch" });
    return true;
  }
}
