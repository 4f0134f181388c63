// A store that survives its process: objects and the resourceVersion counter in an embedded database (bun:sqlite), written through on every
// commit, so a `kill -9` and a restart on the same file resume with everything stored — a real API server restart, as etcd keeps state for
// kube-apiserver.
import { Database } from "bun:sqlite";
import type { KubeObject } from "../types.ts";
import { Store } from "./store.ts";
import type { StoreEvent } from "./watch-hub.ts";

// Also keeps the few facts a restarted server must present unchanged (its CA, its admin token) so
// clients' kubeconfigs stay valid. Each change is its own transaction in WAL mode: durable against the
// process dying (not against the machine losing power).

const SCHEMA = `
CREATE TABLE IF NOT EXISTS objects (key TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, object TEXT NOT NULL, PRIMARY KEY (key, namespace, name));
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

export interface DurableStore {
  store: Store;
  /** Objects read back from the file at open. */
  restored: number;
  /** A fact kept beside the objects (the sandbox's CA, its admin token). */
  fact(name: string): string | undefined;
  setFact(name: string, value: string): void;
  /** Stops writing through and closes the file. */
  close(): void;
}

/** The data file cannot be used: not there to create, not a database, or not the sandbox's. */
export class DurableStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DurableStoreError";
  }
}

function openDatabase(path: string): Database {
  try {
    const db = new Database(path, { create: true, strict: true });
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec(SCHEMA);
    return db;
  } catch (err) {
    throw new DurableStoreError(`${path} cannot be used as the sandbox's data file (${(err as Error).message})`);
  }
}

/** Opens (or creates) the file, puts what it holds back into a new Store, and writes every later change through. */
export function openDurableStore(path: string, historyLimit?: number): DurableStore {
  const db = openDatabase(path);
  const store = new Store(historyLimit);
  const rows = db.query<{ key: string; object: string }, []>("SELECT key, object FROM objects ORDER BY rowid").all();
  const rvRow = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE name = ?").get("resourceVersion");
  const entries = rows.map((r) => ({ key: r.key, object: JSON.parse(r.object) as KubeObject }));
  store.restore(entries, Number(rvRow?.value ?? "0"));

  const put = db.query<never, [string, string, string, string]>(
    "INSERT OR REPLACE INTO objects (key, namespace, name, object) VALUES (?, ?, ?, ?)",
  );
  const remove = db.query<never, [string, string, string]>("DELETE FROM objects WHERE key = ? AND namespace = ? AND name = ?");
  const setMeta = db.query<never, [string, string]>("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)");
  const getMeta = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE name = ?");
  const write = db.transaction((e: StoreEvent) => {
    const ns = e.object.metadata.namespace ?? "";
    const name = e.object.metadata.name!;
    if (e.type === "DELETED") remove.run(e.key, ns, name);
    else put.run(e.key, ns, name, JSON.stringify(e.object));
    setMeta.run("resourceVersion", String(e.rv));
  });
  const unsubscribe = store.onCommit((e) => write(e));
  return {
    store,
    restored: entries.length,
    fact: (name) => getMeta.get(name)?.value,
    setFact: (name, value) => void setMeta.run(name, value),
    close() {
      unsubscribe();
      db.close();
    },
  };
}
