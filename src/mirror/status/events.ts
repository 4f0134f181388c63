// Kubernetes Events: about target Services the mirror skipped (on the target Service in the target cluster for a missing namespace, as
// Linkerd does; on the local foreign Service for a name conflict), and about the Link itself (a condition's transition, on the Link). Best
// effort: a failed Event is logged at debug and never fails a reconcile.
import { formatError } from "../../errors.ts";
import { resources, type Writer } from "../../kube/index.ts";
import type { Clock } from "../../runtime/index.ts";
import type { Logger } from "../../log.ts";
import type { ServiceObject } from "../types.ts";

export type EventType = "Normal" | "Warning";

/** What an Event is about: a Service (the default kind) or any other object (the Link). */
type EventSubject = Pick<ServiceObject, "apiVersion" | "kind" | "metadata">;

export type RecordEvent = (on: EventSubject, type: EventType, reason: string, message: string) => Promise<void>;

export function eventRecorder(writer: Writer, component: string, clock: Clock, log: Logger): RecordEvent {
  return async (on, type, reason, message) => {
    const { name = "", namespace = "", uid, resourceVersion } = on.metadata;
    const kind = on.kind ?? "Service";
    const now = new Date(clock.now()).toISOString();
    try {
      await writer.create(resources.event, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { generateName: `${name}.`, namespace },
        involvedObject: {
          apiVersion: on.apiVersion ?? "v1",
          kind,
          name,
          namespace,
          ...(uid && { uid }),
          ...(resourceVersion && { resourceVersion }),
        },
        type,
        reason,
        message,
        source: { component },
        reportingComponent: component,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
    } catch (err) {
      log.debug(`could not record event ${reason} on ${kind} ${namespace}/${name}: ${formatError(err)}`);
    }
  };
}
