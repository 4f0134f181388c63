// The sandbox's request semantics, independent of HTTP: create, read, update, patch, delete with kube-apiserver's checks (names,
// namespaces, optimistic concurrency, dry run, status subresource, generation, field validation), admission, and the built-in controllers'
// hooks (controllers/builtin.ts) around every write of a built-in type.
import { isDeepStrictEqual } from "node:util";
import { admit, type Admitted } from "./admission/admit.ts";
import { Allocator } from "./admission/services.ts";
import { answerAccessReview } from "./auth/access-review.ts";
import { RbacIndex } from "./auth/bindings.ts";
import { SANDBOX_ADMIN, type UserInfo } from "./auth/rbac.ts";
import { ServiceAccountTokens } from "./auth/tokens.ts";
import { builtinControllers } from "./controllers/builtin.ts";
import type { Controller } from "./controllers/controller.ts";
import type { Kubelet } from "./controllers/kubelet.ts";
import { ensureKubernetesService } from "./controllers/kubernetes-service.ts";
import { randomSuffix, sameContent, specOf } from "./object-utils.ts";
import { applyPatch, recordUpdateManager, serverSideApply, type PatchType } from "./patch/patch.ts";
import { Registry } from "./resources.ts";
import type { ListFilter } from "./storage/filter.ts";
import type { Store } from "./storage/store.ts";
import { apiVersionOf, errors, type KubeObject, type ResourceType } from "./types.ts";
import type { FieldValidation } from "./validation/builtin.ts";
import { checkIdentity, checkLabels, checkName } from "./validation/object-meta.ts";

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  /** The body comes from server-side apply, whose managedFields are already computed. */
  applied?: boolean;
  /** Who is asking (default the sandbox admin): SelfSubjectAccessReviews answer for them. */
  user?: UserInfo;
  /** A built-in controller's own write (kubelet, endpoints, ...): not a client request, so not counted in `store.writes`. */
  internal?: boolean;
}

export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  created?: boolean;
}

export class Api {
  readonly registry = new Registry();
  private readonly alloc = new Allocator();
  /** Service-account tokens, for authentication. */
  readonly tokens = new ServiceAccountTokens();
  /** The RBAC bindings by subject, for access reviews and (when enforced) every request. */
  readonly rbac: RbacIndex;

  private readonly controllers: readonly Controller[];
  /** The fake kubelet: `setPodReady` is the sandbox's readiness control. */
  readonly kubelet: Kubelet;

  constructor(
    readonly store: Store,
    caPem: string,
  ) {
    this.rbac = new RbacIndex(store);
    // A store kept across a restart: its Services' cluster IPs and node ports stay taken.
    for (const svc of store.scan({ group: "", plural: "services" })) this.alloc.reserve(svc);
    const builtin = builtinControllers({
      store,
      registry: this.registry,
      tokens: this.tokens,
      caPem,
      create: (type, namespace, body) => void this.create(type, namespace, body, { fieldManager: "sandbox" }),
      delete: (type, namespace, name) => void this.delete(type, namespace, name),
      own: {
        create: (type, body, manager) => this.create(type, body.metadata.namespace, body, { fieldManager: manager, internal: true }).object,
        update: (type, body, manager, subresource) =>
          this.update(type, body.metadata.namespace, body.metadata.name!, body, { fieldManager: manager, internal: true, subresource })
            .object,
        delete: (type, namespace, name) => void this.delete(type, namespace, name, { internal: true }),
      },
    });
    this.controllers = builtin.all;
    this.kubelet = builtin.kubelet;
    for (const c of this.controllers) c.start?.();
  }

  /** Stops following the store (the RBAC index); the store itself stays usable. */
  close(): void {
    this.rbac.close();
  }

  /** Service default/kubernetes and its endpoints, for the address the sandbox listens on. */
  seedApiServerService(ip: string, port: number): void {
    ensureKubernetesService(this.store, this.registry, this.alloc, ip, port);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const obj = this.store.get(type, namespace, name);
    if (!obj) throw errors.notFound(type.plural, name, type.group);
    return this.served(type, obj);
  }

  /** Read-only objects (shared with the store): serialise them, do not change them. */
  list(type: ResourceType, filter: ListFilter): readonly KubeObject[] {
    return this.store.scan(type, filter).map((o) => this.served(type, o));
  }

  /** Custom resources are stored once and served at every version (no conversion needed). */
  served(type: ResourceType, obj: KubeObject): KubeObject {
    const apiVersion = apiVersionOf(type);
    return obj.apiVersion === apiVersion && obj.kind === type.kind ? obj : { ...obj, apiVersion, kind: type.kind };
  }

  private requireNamespace(type: ResourceType, namespace: string | undefined): void {
    if (!type.namespaced) return;
    if (!namespace) throw errors.badRequest("the server could not find the requested resource: a namespace is required");
    if (!this.store.has({ group: "", plural: "namespaces" }, undefined, namespace)) throw errors.notFound("namespaces", namespace);
  }

  /** Field validation, pruning and defaulting, then the built-in controllers' mutations. */
  private admit(type: ResourceType, obj: KubeObject, previous: KubeObject | undefined, mode: FieldValidation): Admitted {
    const result = admit(type, obj, previous, mode, this.alloc);
    if (!type.crd) for (const c of this.controllers) c.admit?.(type, result.object, previous);
    return result;
  }

  create(type: ResourceType, namespace: string | undefined, body: KubeObject, opts: WriteOptions): WriteResult {
    checkIdentity(type, namespace, body);
    if (type.kind === "SelfSubjectAccessReview")
      return { object: answerAccessReview(this.rbac, body, opts.user ?? SANDBOX_ADMIN), warnings: [], created: true };
    const meta = body.metadata;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    checkName(type, meta.name);
    checkLabels(type, body);
    this.requireNamespace(type, namespace);
    if (this.store.has(type, namespace, meta.name!)) throw errors.alreadyExists(type.plural, meta.name!, type.group);
    if (type.subresources.status && type.kind !== "Namespace") delete body.status;
    const { object, warnings } = this.admit(type, body, undefined, opts.fieldValidation ?? "Ignore");
    const now = new Date().toISOString();
    object.metadata.uid = crypto.randomUUID();
    object.metadata.creationTimestamp = now.replace(/\.\d+Z$/, "Z");
    if (tracksGeneration(type)) object.metadata.generation = 1;
    else delete object.metadata.generation;
    delete object.metadata.resourceVersion;
    delete object.metadata.deletionTimestamp;
    const managed = opts.applied
      ? object
      : recordUpdateManager(undefined, object, { manager: opts.fieldManager ?? "unknown", now: object.metadata.creationTimestamp });
    if (opts.dryRun) return { object: this.served(type, managed), warnings, created: true };
    const stored = this.store.insert(type, managed);
    if (!opts.internal) this.store.countWrite("create");
    this.afterWrite(type, stored);
    return { object: this.served(type, stored), warnings, created: true };
  }

  /** PUT: the whole object, or with subresource "status" only its status. */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    opts: WriteOptions & { subresource?: "status"; verb?: "update" | "patch" },
  ): WriteResult {
    checkIdentity(type, namespace, body);
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    body.metadata.name = name;
    const current = this.store.get(type, namespace, name);
    if (!current) throw errors.notFound(type.plural, name, type.group);
    checkLabels(type, body);
    const expectedRv = body.metadata.resourceVersion;
    let next: KubeObject;
    if (opts.subresource === "status") {
      next = { ...current, status: body.status };
    } else {
      next = body;
      // The main resource never changes the status; an object without one stays without one.
      if (type.subresources.status) {
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
    }
    const { object, warnings } = this.admit(type, next, current, opts.fieldValidation ?? "Ignore");
    object.metadata.uid = current.metadata.uid;
    object.metadata.creationTimestamp = current.metadata.creationTimestamp;
    if (tracksGeneration(type)) {
      object.metadata.generation = current.metadata.generation ?? 1;
      if (!isDeepStrictEqual(specOf(object), specOf(current))) object.metadata.generation += 1;
    } else delete object.metadata.generation;
    const managed = opts.applied
      ? object
      : recordUpdateManager(current, object, {
          manager: opts.fieldManager ?? "unknown",
          now: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
          subresource: opts.subresource,
        });
    if (expectedRv && expectedRv !== current.metadata.resourceVersion) throw errors.conflict(type.plural, name, type.group);
    // A write that changes nothing but bookkeeping is a no-op, as in kube-apiserver: same rv, no event.
    if (sameContent(managed, current)) return { object: this.served(type, current), warnings };
    if (opts.dryRun) return { object: this.served(type, managed), warnings };
    const stored = this.store.replace(type, managed, expectedRv);
    if (!opts.internal) this.store.countWrite(opts.verb ?? "update");
    this.afterWrite(type, stored, current);
    return { object: this.served(type, stored), warnings };
  }

  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    body: unknown,
    opts: WriteOptions & { subresource?: "status"; force?: boolean },
  ): WriteResult {
    const current = this.store.get(type, namespace, name);
    const builtin = !type.crd;
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    if (patchType === "apply") {
      const manager = opts.fieldManager;
      if (!manager)
        throw errors.badRequest('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      const applied = body as KubeObject;
      checkIdentity(type, namespace, applied);
      if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
        throw errors.badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
      }
      applied.metadata.name = name;
      const merged = serverSideApply(current ? this.served(type, current) : undefined, applied, {
        manager,
        force: opts.force ?? false,
        builtin,
        now,
        subresource: opts.subresource,
      });
      if (!current) return this.create(type, namespace, merged, { ...opts, fieldManager: manager, applied: true });
      return this.update(type, namespace, name, merged, { ...opts, verb: "patch", fieldManager: manager, applied: true });
    }
    if (!current) throw errors.notFound(type.plural, name, type.group);
    const patched = applyPatch(this.served(type, current), body, patchType, { builtin });
    if (!patched.metadata.resourceVersion) patched.metadata.resourceVersion = current.metadata.resourceVersion;
    return this.update(type, namespace, name, patched, { ...opts, verb: "patch" });
  }

  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: { dryRun?: boolean; preconditions?: { uid?: string; resourceVersion?: string }; internal?: boolean } = {},
  ): KubeObject {
    const current = this.store.get(type, namespace, name);
    if (!current) throw errors.notFound(type.plural, name, type.group);
    if (opts.dryRun) return this.served(type, current);
    if (!type.crd) for (const c of this.controllers) c.beforeDelete?.(type, current);
    const gone = this.store.remove(type, namespace, name, opts.preconditions);
    if (!opts.internal) this.store.countWrite("delete");
    this.afterDelete(type, gone);
    return this.served(type, gone);
  }

  deleteCollection(type: ResourceType, filter: ListFilter, opts: { dryRun?: boolean }): KubeObject[] {
    return this.store.list(type, filter).map((o) => this.delete(type, o.metadata.namespace, o.metadata.name!, opts));
  }

  private afterWrite(type: ResourceType, obj: KubeObject, previous?: KubeObject): void {
    if (!type.crd) for (const c of this.controllers) c.onWrite?.(type, obj, previous);
  }

  private afterDelete(type: ResourceType, obj: KubeObject): void {
    if (!type.crd) for (const c of this.controllers) c.onDelete?.(type, obj);
  }
}

/** Kinds whose strategy keeps metadata.generation (custom resources always do). */
const GENERATION_KINDS = new Set(["Deployment", "ReplicaSet", "PodDisruptionBudget", "CustomResourceDefinition"]);
const tracksGeneration = (type: ResourceType) => type.crd !== undefined || GENERATION_KINDS.has(type.kind);
