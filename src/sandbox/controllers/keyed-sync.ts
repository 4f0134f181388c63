// The sandbox's controllers run inside the write that triggers them, and their own writes trigger hooks again (a ReplicaSet creating a Pod
// makes the ReplicaSet controller look at its ReplicaSet once more).

// KeyedSync keeps one sync per key at a time: a call for a key already being synced marks it to run
// once more when the current run ends, instead of running inside it on a half-done state — the work
// queue of a real controller, made synchronous.

export class KeyedSync {
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();

  constructor(private readonly sync: (key: string) => void) {}

  run(key: string): void {
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    this.running.add(key);
    try {
      do {
        this.again.delete(key);
        this.sync(key);
      } while (this.again.has(key));
    } finally {
      this.running.delete(key);
      this.again.delete(key);
    }
  }
}

/** `namespace/name`, and back. */
export const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;
export function splitKey(key: string): [namespace: string, name: string] {
  const i = key.indexOf("/");
  return [key.slice(0, i), key.slice(i + 1)];
}
