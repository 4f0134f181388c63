// The echoes of this process's own writes: a write's answer is the object its watch event carries, in the same text (both are the
// server's one serialization of the stored object), so that event is taken from the answer instead of parsed again.
import { FREEZE_CACHE, deepFreeze } from "./cache.ts";
import type { WatchEvent } from "./types.ts";

// Only a line that is `{"type":"ADDED"|"MODIFIED","object":` + an answer's text + `}`, byte for byte, is
// taken: JSON.parse of it would give that answer again. Any other line — another resourceVersion, another
// encoding, a DELETED, BOOKMARK or ERROR — is parsed as before. A book per API server, filled as each
// answer is parsed (before its caller resumes, so no echo can slip in between); an answer goes when its
// echo is taken, after MAX_AGE_MS (its event filtered out, or covered by a list), when the book passes CAP
// (the oldest first), or on a relist of an informer of that server. A write that failed has no answer.

const ADDED = '{"type":"ADDED","object":';
const MODIFIED = '{"type":"MODIFIED","object":';
/** Past this many waiting, the oldest go: their events are parsed, which is only slower. */
const CAP = 4096;
/** An echo comes within milliseconds of its answer; one not come in this long will not be taken. */
const MAX_AGE_MS = 60_000;

interface Expected {
  object: object;
  at: number;
}

export class EchoBook {
  private readonly byText = new Map<string, Expected>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly cap = CAP,
  ) {}

  get size(): number {
    return this.byText.size;
  }

  /** `answer` was parsed from `text`, a write's answer whose echo a watch of ours will carry. */
  expect(text: string, answer: object): void {
    // Under tests the answer is frozen from here: a caller changing it before its echo (which would make
    // the taken event differ from the line) throws instead.
    if (FREEZE_CACHE) deepFreeze(answer);
    const now = this.now();
    this.byText.set(text, { object: answer, at: now });
    for (const [oldest, e] of this.byText) {
      if (this.byText.size <= this.cap && now - e.at < MAX_AGE_MS) break;
      this.byText.delete(oldest);
    }
  }

  /** The event `line` carries when it is an expected echo, exactly (no longer expected then); else undefined. */
  take<T>(line: string): WatchEvent<T> | undefined {
    if (this.byText.size === 0 || line.charCodeAt(line.length - 1) !== 0x7d /* } */) return undefined;
    const type = line.startsWith(ADDED) ? "ADDED" : line.startsWith(MODIFIED) ? "MODIFIED" : undefined;
    if (type === undefined) return undefined;
    const text = line.slice(type === "ADDED" ? ADDED.length : MODIFIED.length, -1);
    const hit = this.byText.get(text);
    if (!hit) return undefined;
    this.byText.delete(text);
    return { type, object: hit.object as T };
  }

  clear(): void {
    this.byText.clear();
  }
}

const books = new Map<string, EchoBook>();

/** The book of an API server (by URL): its answers expected back on its watches. */
export function echoBook(server: string): EchoBook {
  let book = books.get(server);
  if (!book) books.set(server, (book = new EchoBook()));
  return book;
}
