// reconcileFederated(key): this controller's membership in `<svc>-federated`, written so that controllers writing the same Service at once
// lose nothing.
import { isAlreadyExists, isConflict, isNotFound } from "../../kube/index.ts";
import type { Logger } from "../../log.ts";
import type { Link } from "../../model/link.ts";
import type { Execute } from "../reconcile/execute.ts";
import { planFederated, type FederatedPlan, type KnownLinks } from "./federated.ts";
import type { FederatedOutcomes } from "./federated-status.ts";
import { splitServiceKey, type ServiceKey } from "../sources/keys.ts";
import type { Svc } from "../reconcile/read.ts";
import type { LocalView } from "../reconcile/view.ts";

// Plan from the local view (planFederated); every write is conditional (updates carry the
// resourceVersion read, deletes its uid and resourceVersion, creates fail on a taken name); on a
// conflict, read the Service from the API server and plan again, up to MAX_ATTEMPTS times, then leave
// it to the queue's retry. Then record the outcome for the Link status.

/** Plans (and conditional writes) per reconcile before a conflict is left to the queue's retry. */
const MAX_ATTEMPTS = 5;

export interface FederatedDeps {
  link: Link;
  enableNamespaceCreation: boolean;
  /** The member Service in its cluster (the Link's target, or the local cluster for the local mirror). */
  target(namespace: string, name: string): Svc | undefined;
  namespaceExists(namespace: string): boolean;
  services: LocalView<Svc>;
  /** A read from the API server, past every cache (after a conflict). */
  readLive(namespace: string, name: string): Promise<Svc | undefined>;
  execute: Execute;
  links: KnownLinks;
  outcomes: FederatedOutcomes;
  log: Logger;
}

export async function reconcileFederated(d: FederatedDeps, key: ServiceKey): Promise<FederatedPlan> {
  const { namespace, name } = splitServiceKey(key);
  const plan = (current: Svc | undefined) =>
    planFederated({
      link: d.link,
      key: { namespace, name },
      target: d.target(namespace, name),
      current,
      namespaceExists: d.namespaceExists(namespace),
      enableNamespaceCreation: d.enableNamespaceCreation,
      links: d.links,
    });
  let p = plan(d.services.get(namespace, `${name}-federated`));
  for (let attempt = 1; ; attempt++) {
    try {
      if (p.ops.length > 0) await d.execute(p.ops);
      break;
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !(isConflict(err) || isAlreadyExists(err) || isNotFound(err))) throw err;
      d.log.debug(`federated Service ${namespace}/${p.name} changed under us (attempt ${attempt}); reading it again`);
      p = plan(await d.readLive(namespace, p.name));
    }
  }
  d.outcomes.record(key, p);
  for (const line of logLines(namespace, p)) d.log.info(line);
  return p;
}

function logLines(namespace: string, p: FederatedPlan): string[] {
  const where = `${namespace}/${p.name}`;
  const members = p.members.length > 0 ? p.members.join(", ") : "none";
  return p.ops.flatMap((op) => {
    if (op.kind !== "Service") return [];
    if (op.verb === "create") return [`created federated Service ${where} (members: ${members})`];
    if (op.verb === "delete") return [`deleted federated Service ${where}: no members left`];
    return [`updated federated Service ${where}: ${op.changed.join(", ")} (members: ${members})`];
  });
}
