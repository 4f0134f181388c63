// What the supervisor and its controller learn about a Link, as condition updates (the Link's
// status.conditions, link-conditions.ts writes them). Pure: situations in, conditions out.
import { formatError } from "../errors.ts";
import type { Condition, ConditionState, ConditionUpdates } from "../model/conditions.ts";
import type { Selection, TargetState } from "../mirror/sources/target-health.ts";

export type { Selection, TargetState };

const T = (reason: string, message: string): ConditionState => ({ status: "True", reason, message });
const F = (reason: string, message: string): ConditionState => ({ status: "False", reason, message });
const U = (reason: string, message: string): ConditionState => ({ status: "Unknown", reason, message });

/** The Link does not parse: nothing else can be known. */
export function invalidLink(message: string): ConditionUpdates {
  const why = "the Link is invalid";
  return {
    Ready: F("InvalidLink", `${message}; not mirroring until the Link is fixed`),
    CredentialsValid: U("NotChecked", why),
    TargetReachable: U("NotChecked", why),
    ServicesSelected: U("NotChecked", why),
  };
}

/** The credentials Secret is missing (`found: false`) or unusable. */
export function badSecret(found: boolean, message: string): ConditionUpdates {
  const why = "no usable credentials";
  return {
    Ready: F("CredentialsInvalid", message),
    CredentialsValid: F(found ? "SecretInvalid" : "SecretNotFound", message),
    TargetReachable: U("NotChecked", why),
    ServicesSelected: U("NotChecked", why),
  };
}

/** Whether this target state leaves the Link unusable (so status.gateway.alive must not claim true). */
export function unusable(t: TargetState): boolean {
  return t.state === "rejected" || (t.state === "error" && (t.error.code === 401 || t.error.code === 403));
}

/** Ready, CredentialsValid and TargetReachable from the target's answers and whether every cache synced. */
export function targetConditions(t: TargetState, synced: boolean, cluster: string): ConditionUpdates {
  switch (t.state) {
    case "unknown":
      return { Ready: U("Syncing", `waiting for the first answers of ${cluster}`) };
    case "unwatched": {
      const why = `the Link reads nothing from ${cluster} (it selects nothing)`;
      return {
        CredentialsValid: U("NotWatched", why),
        TargetReachable: U("NotWatched", why),
        Ready: synced ? T("Mirroring", `mirroring ${cluster}`) : U("Syncing", "waiting for the caches to sync"),
      };
    }
    case "ok":
      return {
        CredentialsValid: T("Accepted", `${cluster} accepts the credentials`),
        TargetReachable: T("Reachable", `${cluster} answers`),
        Ready: synced ? T("Mirroring", `mirroring ${cluster}`) : U("Syncing", `waiting for every cache of ${cluster} to sync`),
      };
    case "error": {
      const m = formatError(t.error);
      if (t.error.code === 401 || t.error.code === 403) {
        const reason = t.error.code === 401 ? "Unauthorized" : "Forbidden";
        const fix =
          t.error.code === 401
            ? "re-run mc link to issue new credentials"
            : "apply mc install or mc allow on the target, then mc link again";
        return {
          CredentialsValid: F(reason, `${m} (${fix})`),
          TargetReachable: T("Reachable", `${cluster} answers (it refused the credentials)`),
          Ready: F("CredentialsInvalid", `${m} (${fix})`),
        };
      }
      return { TargetReachable: F("Unreachable", m), Ready: F("TargetUnreachable", `${m} (retrying)`) };
    }
    case "rejected": {
      const m = formatError(t.error);
      return { Ready: F("TargetRejected", `${m}; not retried: fix the Link (or the target) and the controller starts again`) };
    }
  }
}

/**
 * ServicesSelected: True while the selector matches a Service; False `SelectsNothing` (a
 * problem: the mirrors it had are being deleted) when it matches none though mirrors existed —
 * kept while it still matches none — and False `NoneExported` when nothing was ever mirrored.
 */
export function selectionCondition(s: Selection, before: Condition | undefined, cluster: string): ConditionState {
  // With --namespace-selector, only Services in the namespaces it selects count: the messages say where.
  const where = s.namespaceSelector ? `${cluster}'s namespaces selected by --namespace-selector ${s.namespaceSelector}` : cluster;
  if (s.selected) return T("Selected", `spec.selector matches Services in ${where}`);
  if (s.mirrorsExisted || before?.reason === "SelectsNothing") {
    const fix = s.namespaceSelector
      ? "fix spec.selector or the controller's --namespace-selector (mc link --namespace-selector)"
      : "fix spec.selector, e.g. mc link -l mirror.linkerd.io/exported=true";
    return F(
      "SelectsNothing",
      `spec.selector matches no Service in ${where}, though this Link's mirrors existed: they are deleted (${fix})`,
    );
  }
  return F("NoneExported", `no Service in ${where} matches spec.selector yet`);
}

/** This Link targets the cluster an older Link of the namespace (`owner`) mirrors: it is not served. */
export function refusedLink(where: { namespace: string }, cluster: string, owner: string): ConditionUpdates {
  const message = `Link ${where.namespace}/${owner}, created earlier, targets cluster ${cluster} too and mirrors it: this Link is not served (delete it, or give it another spec.targetClusterName)`;
  const why = "the Link is not served";
  return {
    Ready: F("TargetClusterConflict", message),
    CredentialsValid: U("NotChecked", why),
    TargetReachable: U("NotChecked", why),
    ServicesSelected: U("NotChecked", why),
    Conflicted: T("TargetClusterConflict", message),
  };
}

/** Conflicted on the Link that mirrors `cluster`: True while newer Links (`refused`) target it too; False once none does. */
export function rivalsCondition(where: { namespace: string }, cluster: string, refused: readonly string[]): ConditionState {
  if (refused.length === 0) return F("NoConflict", `no other Link targets cluster ${cluster}`);
  const names = refused.map((n) => `${where.namespace}/${n}`).join(", ");
  return T(
    "TargetClusterConflict",
    `Link${refused.length > 1 ? "s" : ""} ${names}, created later, target${refused.length > 1 ? "" : "s"} cluster ${cluster} too and ${refused.length > 1 ? "are" : "is"} not served: this Link mirrors it (delete ${refused.length > 1 ? "them" : "it"}, or give ${refused.length > 1 ? "them" : "it"} another spec.targetClusterName)`,
  );
}
