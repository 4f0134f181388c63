// Which target Services want which local name for their mirror: reconcile records each key's mirror name as it computes it, so an event on
// a Service that is not ours (a foreign holder of that name, appearing or going) requeues the keys that want its name — found without
// parsing names, whatever template or annotation chose them.
import type { MirrorKey, NameClaims } from "./keys.ts";

export class MirrorNameClaims implements NameClaims {
  private readonly byName = new Map<string, Set<MirrorKey>>();
  private readonly byKey = new Map<MirrorKey, string>();

  /** `key`'s mirror is (now) named `namespace/name`. */
  claim(key: MirrorKey, namespace: string, name: string): void {
    const at = `${namespace}/${name}`;
    const before = this.byKey.get(key);
    if (before === at) return;
    if (before !== undefined) this.drop(key, before);
    this.byKey.set(key, at);
    this.byName.set(at, (this.byName.get(at) ?? new Set()).add(key));
  }

  /** `key` wants no mirror any more (its target is gone or unexported). */
  release(key: MirrorKey): void {
    const before = this.byKey.get(key);
    if (before !== undefined) this.drop(key, before);
    this.byKey.delete(key);
  }

  claimants(namespace: string, name: string): readonly MirrorKey[] {
    return [...(this.byName.get(`${namespace}/${name}`) ?? [])].sort();
  }

  private drop(key: MirrorKey, at: string): void {
    const set = this.byName.get(at);
    set?.delete(key);
    if (set?.size === 0) this.byName.delete(at);
  }
}
