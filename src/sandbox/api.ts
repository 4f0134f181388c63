// The sandbox's request semantics, independent of HTTP: create, read, update, patch, delete
// with kube-apiserver's checks (names, namespaces, optimistic concurrency, dry run, status
// subresource, generation, field validation) and the built-in behaviours of builtins.ts.
import { randomSuffix, sameContent } from "./object-utils.ts";
import { isDeepStrictEqual } from "node:util";
import { admit } from "./admission/admit.ts";
import { admitService, Allocator } from "./admission/services.ts";
import { admitCrd, fillTokenSecret, isUnfilledTokenSecret, mintToken } from "./builtins.ts";
import { isMirroredSlice, reconcileMirror, SERVICE_NAME_LABEL } from "./endpointslice-mirror.ts";
import { applyPatch, recordUpdateManager, serverSideApply, type PatchType } from "./patch/patch.ts";
import { answerAccessReview } from "./auth/access-review.ts";
import { SANDBOX_ADMIN, type UserInfo } from "./auth/rbac.ts";
import { ServiceAccountTokens, tokenSecretAccount } from "./auth/tokens.ts";
import { Registry } from "./resources.ts";
import type { ListFilter } from "./storage/filter.ts";
import { Store } from "./storage/store.ts";
import type { FieldValidation } from "./validation/builtin.ts";
import { checkIdentity, checkName } from "./validation/object-meta.ts";
import { apiVersionOf, errors, type KubeObject, type ResourceType } from "./types.ts";

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  /** The body comes from server-side apply, whose managedFields are already computed. */
  applied?: boolean;
  /** Who is asking (default the sandbox admin): SelfSubjectAccessReviews answer for them. */
  user?: UserInfo;
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

  constructor(
    readonly store: Store,
    private readonly caPem: string,
  ) {
    this.seed();
    // A store kept across a restart carries CRDs and tokens with it.
    for (const crd of store.list({ group: "apiextensions.k8s.io", plural: "customresourcedefinitions" })) {
      this.registry.setCrd(crd.metadata.name!, crd);
    }
    for (const s of store.list({ group: "", plural: "secrets" })) this.tokens.remember(s);
  }

  private seed(): void {
    const nsType = this.registry.find("", "v1", "namespaces")!;
    for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      if (!this.store.get(nsType, undefined, name)) {
        this.create(nsType, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } }, { fieldManager: "sandbox" });
      }
    }
  }

  /**
   * What kube-apiserver keeps for itself: Service default/kubernetes (10.96.0.1, https 443 → the
   * sandbox's port), its Endpoints (labelled skip-mirror) and its EndpointSlice `kubernetes`.
   * Internal writes, like the controllers': not counted in `store.writes`.
   */
  seedApiServerService(ip: string, port: number): void {
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const put = (group: string, version: string, plural: string, obj: KubeObject) => {
      const type = this.registry.find(group, version, plural)!;
      const current = this.store.get(type, obj.metadata.namespace, obj.metadata.name!);
      if (current && plural === "services") return;
      if (current && isDeepStrictEqual(specOf(current), specOf(obj))) return;
      const meta = current ? { ...current.metadata, ...obj.metadata } : { ...obj.metadata, uid: crypto.randomUUID(), creationTimestamp: now };
      const next = recordUpdateManager(current, { ...obj, metadata: meta }, { manager: "kube-apiserver", now });
      if (current) this.store.replace(type, next);
      else this.store.insert(type, next);
    };
    const svc: KubeObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
      spec: { type: "ClusterIP", clusterIP: "10.96.0.1", ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: port }] },
    };
    admitService(svc, undefined, this.alloc);
    put("", "v1", "services", svc);
    const ports = [{ name: "https", port, protocol: "TCP" }];
    put("", "v1", "endpoints", {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "kubernetes", namespace: "default", labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } },
      subsets: [{ addresses: [{ ip }], ports }],
    });
    put("discovery.k8s.io", "v1", "endpointslices", {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "kubernetes", namespace: "default", labels: { [SERVICE_NAME_LABEL]: "kubernetes" } },
      addressType: "IPv4",
      endpoints: [{ addresses: [ip], conditions: { ready: true } }],
      ports,
    });
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
    if (!this.store.get({ group: "", plural: "namespaces" }, undefined, namespace)) throw errors.notFound("namespaces", namespace);
  }

  /** Field validation, pruning and defaulting, then the built-in controllers' mutations. */
  private admit(type: ResourceType, obj: KubeObject, previous: KubeObject | undefined, mode: FieldValidation): { object: KubeObject; warnings: string[] } {
    const result = admit(type, obj, previous, mode, this.alloc);
    const o = result.object;
    switch (type.kind) {
      case "Secret":
        if (!type.crd && isUnfilledTokenSecret(o)) this.fillIfAccountExists(o);
        break;
      case "CustomResourceDefinition":
        if (!type.crd) admitCrd(o);
        break;
    }
    return { object: o, warnings: result.warnings };
  }

  private fillIfAccountExists(secret: KubeObject): void {
    const saName = tokenSecretAccount(secret)!;
    const sa = this.store.get({ group: "", plural: "serviceaccounts" }, secret.metadata.namespace, saName);
    if (sa) fillTokenSecret(secret, sa, mintToken(), this.caPem);
  }

  create(type: ResourceType, namespace: string | undefined, body: KubeObject, opts: WriteOptions): WriteResult {
    checkIdentity(type, namespace, body);
    if (type.kind === "SelfSubjectAccessReview") return { object: answerAccessReview(this.store, body, opts.user ?? SANDBOX_ADMIN), warnings: [], created: true };
    const meta = body.metadata;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    checkName(type, meta.name);
    this.requireNamespace(type, namespace);
    if (this.store.get(type, namespace, meta.name!)) throw errors.alreadyExists(type.plural, meta.name!, type.group);
    if (type.subresources.status && type.kind !== "Namespace") delete body.status;
    const { object, warnings } = this.admit(type, body, undefined, opts.fieldValidation ?? "Ignore");
    const now = new Date().toISOString();
    object.metadata.uid = crypto.randomUUID();
    object.metadata.creationTimestamp = now.replace(/\.\d+Z$/, "Z");
    if (tracksGeneration(type)) object.metadata.generation = 1;
    else delete object.metadata.generation;
    delete object.metadata.resourceVersion;
    delete object.metadata.deletionTimestamp;
    const managed = opts.applied ? object : recordUpdateManager(undefined, object, { manager: opts.fieldManager ?? "unknown", now: object.metadata.creationTimestamp });
    if (opts.dryRun) return { object: this.served(type, managed), warnings, created: true };
    const stored = this.store.insert(type, managed);
    this.store.countWrite("create");
    this.afterWrite(type, stored);
    return { object: this.served(type, stored), warnings, created: true };
  }

  /** PUT: the whole object, or with subresource "status" only its status. */
  update(type: ResourceType, namespace: string | undefined, name: string, body: KubeObject, opts: WriteOptions & { subresource?: "status"; verb?: "update" | "patch" }): WriteResult {
    checkIdentity(type, namespace, body);
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    body.metadata.name = name;
    const current = this.store.get(type, namespace, name);
    if (!current) throw errors.notFound(type.plural, name, type.group);
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
    const managed = opts.applied ? object : recordUpdateManager(current, object, { manager: opts.fieldManager ?? "unknown", now: new Date().toISOString().replace(/\.\d+Z$/, "Z"), subresource: opts.subresource });
    if (expectedRv && expectedRv !== current.metadata.resourceVersion) throw errors.conflict(type.plural, name, type.group);
    // A write that changes nothing but bookkeeping is a no-op, as in kube-apiserver: same rv, no event.
    if (sameContent(managed, current)) return { object: this.served(type, current), warnings };
    if (opts.dryRun) return { object: this.served(type, managed), warnings };
    const stored = this.store.replace(type, managed, expectedRv);
    this.store.countWrite(opts.verb ?? "update");
    this.afterWrite(type, stored);
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
      if (!manager) throw errors.badRequest("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
      const applied = body as KubeObject;
      checkIdentity(type, namespace, applied);
      if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
        throw errors.badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
      }
      applied.metadata.name = name;
      const merged = serverSideApply(current ? this.served(type, current) : undefined, applied, { manager, force: opts.force ?? false, builtin, now, subresource: opts.subresource });
      if (!current) return this.create(type, namespace, merged, { ...opts, fieldManager: manager, applied: true });
      return this.update(type, namespace, name, merged, { ...opts, verb: "patch", fieldManager: manager, applied: true });
    }
    if (!current) throw errors.notFound(type.plural, name, type.group);
    const patched = applyPatch(this.served(type, current), body, patchType, { builtin });
    if (!patched.metadata.resourceVersion) patched.metadata.resourceVersion = current.metadata.resourceVersion;
    return this.update(type, namespace, name, patched, { ...opts, verb: "patch" });
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, opts: { dryRun?: boolean; preconditions?: { uid?: string; resourceVersion?: string } } = {}): KubeObject {
    const current = this.store.get(type, namespace, name);
    if (!current) throw errors.notFound(type.plural, name, type.group);
    if (opts.dryRun) return this.served(type, current);
    if (!type.crd && type.kind === "Namespace") this.emptyNamespace(name);
    if (!type.crd && type.kind === "CustomResourceDefinition") this.dropCustomResources(current);
    const gone = this.store.remove(type, namespace, name, opts.preconditions);
    this.store.countWrite("delete");
    this.afterDelete(type, gone);
    return this.served(type, gone);
  }

  deleteCollection(type: ResourceType, filter: ListFilter, opts: { dryRun?: boolean }): KubeObject[] {
    return this.store.list(type, filter).map((o) => this.delete(type, o.metadata.namespace, o.metadata.name!, opts));
  }

  private emptyNamespace(namespace: string): void {
    for (const t of this.registry.all()) {
      if (!t.namespaced || !t.verbs.includes("delete")) continue;
      for (const o of this.store.list(t, { namespace })) {
        if (this.store.get(t, namespace, o.metadata.name!)) this.delete(t, namespace, o.metadata.name!);
      }
    }
  }

  private dropCustomResources(crd: KubeObject): void {
    const type = this.registry.all().find((t) => t.crd?.name === crd.metadata.name);
    if (!type) return;
    for (const o of this.store.list(type)) this.store.remove(type, o.metadata.namespace, o.metadata.name!);
  }

  private afterWrite(type: ResourceType, obj: KubeObject): void {
    if (type.crd) return;
    if (type.kind === "CustomResourceDefinition") this.registry.setCrd(obj.metadata.name!, obj);
    if (type.kind === "Secret") this.tokens.remember(obj);
    if (type.kind === "ServiceAccount") this.fillPendingTokens(obj);
    this.mirrorSlices(type, obj);
  }

  private afterDelete(type: ResourceType, obj: KubeObject): void {
    if (type.crd) return;
    if (type.kind === "CustomResourceDefinition") this.registry.setCrd(obj.metadata.name!, undefined);
    if (type.kind === "Secret") this.tokens.forget(obj);
    if (type.kind === "Service") {
      // The endpoints controller removes a deleted Service's Endpoints.
      const ep = this.registry.find("", "v1", "endpoints")!;
      if (this.store.get(ep, obj.metadata.namespace, obj.metadata.name!)) this.delete(ep, obj.metadata.namespace, obj.metadata.name!);
    }
    this.mirrorSlices(type, obj);
  }

  /** The EndpointSlice mirroring controller follows Services, Endpoints and its own slices. */
  private mirrorSlices(type: ResourceType, obj: KubeObject): void {
    const ns = obj.metadata.namespace!;
    let service: string | undefined;
    if (type.group === "" && (type.kind === "Service" || type.kind === "Endpoints")) service = obj.metadata.name;
    else if (type.kind === "EndpointSlice" && isMirroredSlice(obj)) service = obj.metadata.labels![SERVICE_NAME_LABEL];
    if (service === undefined) return;
    const find = (group: string, version: string, plural: string) => this.registry.find(group, version, plural)!;
    reconcileMirror(this.store, { services: find("", "v1", "services"), endpoints: find("", "v1", "endpoints"), slices: find("discovery.k8s.io", "v1", "endpointslices") }, ns, service);
  }

  /** The token controller fills Secrets created before their ServiceAccount once it appears. */
  private fillPendingTokens(sa: KubeObject): void {
    const secrets = this.registry.find("", "v1", "secrets")!;
    for (const s of this.store.list(secrets, { namespace: sa.metadata.namespace })) {
      if (isUnfilledTokenSecret(s) && tokenSecretAccount(s) === sa.metadata.name) {
        fillTokenSecret(s, sa, mintToken(), this.caPem);
        const stored = this.store.replace(secrets, s);
        this.tokens.remember(stored);
      }
    }
  }
}

/** Kinds whose strategy keeps metadata.generation (custom resources always do). */
const GENERATION_KINDS = new Set(["Deployment", "PodDisruptionBudget", "CustomResourceDefinition"]);
const tracksGeneration = (type: ResourceType) => type.crd !== undefined || GENERATION_KINDS.has(type.kind);

function specOf(obj: KubeObject): unknown {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}


