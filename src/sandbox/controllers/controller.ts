// The one interface of the built-in controllers: the parts of kube-controller-manager (and of kube-apiserver's own bootstrap controllers)
// that mc depends on. A real controller watches and reconciles some time later; these run inside the write, so a client sees their effect
// as soon as its request returns.
import type { ServiceAccountTokens } from "../auth/tokens.ts";
import type { Registry } from "../resources.ts";
import type { Store } from "../storage/store.ts";
import type { KubeObject, ResourceType } from "../types.ts";

// The Api calls every controller's hooks in list order (builtin.ts), for built-in types only: custom
// resources have no controllers here.

export interface ControllerContext {
  store: Store;
  registry: Registry;
  /** The tokens the authenticator accepts, kept in step with the token Secrets. */
  tokens: ServiceAccountTokens;
  /** The sandbox CA (PEM, "" without TLS) that token Secrets carry as ca.crt. */
  caPem: string;
  /** A create through the API, as a client's (counted in `store.writes`, hooks run). */
  create(type: ResourceType, namespace: string | undefined, body: KubeObject): void;
  /** A delete through the API, as a client's (counted in `store.writes`, hooks run). */
  delete(type: ResourceType, namespace: string | undefined, name: string): void;
  /**
   * The controller's own writes through the API, as kube-controller-manager and the kubelet make
   * them: admission and every controller's hooks run, but they are not client requests, so
   * `store.writes` does not count them. `update` with subresource "status" changes only the status.
   */
  own: {
    create(type: ResourceType, body: KubeObject, manager: string): KubeObject;
    update(type: ResourceType, body: KubeObject, manager: string, subresource?: "status"): KubeObject;
    delete(type: ResourceType, namespace: string | undefined, name: string): void;
  };
}

/**
 * Hooks a controller may have. Writes a controller makes straight to the store reach watchers
 * but are not client requests: `store.writes` does not count them and no hooks run for them;
 * writes through `own` are not counted either, but run admission and the hooks.
 */
export interface Controller {
  /** Once, when the API starts (also over a store kept across a restart). */
  start?(): void;
  /** Changes an object on its way into the store, after field validation and admission defaults. */
  admit?(type: ResourceType, obj: KubeObject, previous: KubeObject | undefined): void;
  /** Before an object is deleted (what must go first goes here). */
  beforeDelete?(type: ResourceType, obj: KubeObject): void;
  /** After an object was created or changed (`previous`: what it was before a change). */
  onWrite?(type: ResourceType, obj: KubeObject, previous?: KubeObject): void;
  /** After an object was deleted. */
  onDelete?(type: ResourceType, obj: KubeObject): void;
}
