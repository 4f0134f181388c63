// The echoes of this process's own writes: a write's answer and its watch event carry the object in the same text (both are the server's
// one serialization of the stored object), so whichever comes second is not parsed again — the echo is taken from the answer, or the
// answer from the echo.
import { FREEZE_CACHE, deepFreeze } from "./cache.ts";
import type { WatchEvent } from "./types.ts";

// Only a line that is `{"type":"ADDED"|"MODIFIED","object":` + an answer's text + `}`, byte for byte,
// pairs with it: JSON.parse of either gives the other's object. Any other line — another resourceVersion,
// another encoding, a DELETED, BOOKMARK or ERROR — and any other answer are parsed as before. A book per API
// server: an answer goes in as it is parsed (before its caller resumes); a line goes in as it is parsed
// while a write marked echo is in flight there (the lines go when none is). Either goes when its pair
// comes, with age (an event filtered out, or covered by a list), or past a cap (the oldest first); a
// write that failed has no answer. Not on a relist: every informer of the server shares the book, and
// whether a pair is exact never depends on an informer's state (docs/decisions.md#d172).

const ADDED = '{"type":"ADDED","object":';
const MODIFIED = '{"type":"MODIFIED","object":';
/** Past this many answers waiting, the oldest go: their echoes are parsed, which is only slower. */
const CAP = 4096;
/** An echo comes within milliseconds of its answer; one not come in this long will not. */
const MAX_AGE_MS = 60_000;
/**
 * Lines kept for answers to come: fewer, and not as long (a kept line's text is a slice of the chunk it
 * came in, which it keeps alive; most are taken within milliseconds, the rest are someone else's changes).
 */
const LINES_CAP = 256;
const LINES_MAX_AGE_MS = 10_000;

interface Kept {
  object: unknown;
  at: number;
}

export class EchoBook {
  /** Answers whose echo has not come, by text. */
  private readonly answers = new Map<string, Kept>();
  /** Lines parsed while a write was in flight, by the object's text: an answer still to come may be one. */
  private readonly lines = new Map<string, Kept>();
  private writing = 0;
  /** Pairs found: echoes taken from answers, answers taken from echoes. */
  readonly taken = { echoes: 0, answers: 0 };

  constructor(
    private readonly now: () => number = Date.now,
    private readonly cap = CAP,
  ) {}

  /** Answers waiting for their echo. */
  get size(): number {
    return this.answers.size;
  }

  /** Lines kept for an answer still to come. */
  get linesKept(): number {
    return this.lines.size;
  }

  /** A write marked echo is sent: lines parsed until it is answered are kept. */
  sending(): void {
    this.writing++;
  }

  /** …and answered, or failed. */
  sent(): void {
    if (--this.writing === 0) this.lines.clear();
  }

  /** The object of a line already parsed whose text is the answer `text`, taken (the answer needs no parse); else undefined. */
  answered(text: string): unknown {
    const hit = this.lines.get(text);
    if (!hit) return undefined;
    this.lines.delete(text);
    this.taken.answers++;
    return hit.object;
  }

  /** `answer` was parsed from `text`, a write's answer whose echo a watch of ours will carry. */
  expect(text: string, answer: object): void {
    // Under tests what is kept is frozen from here: changing it before its pair comes (which would make
    // the pair differ from its text) throws instead.
    if (FREEZE_CACHE) deepFreeze(answer);
    this.keep(this.answers, text, answer, this.cap, MAX_AGE_MS);
  }

  /** The event `line` carries when it is an expected echo, exactly (no longer expected then); else undefined. */
  take<T>(line: string): WatchEvent<T> | undefined {
    if (this.answers.size === 0) return undefined;
    const type = typeOf(line);
    if (type === undefined) return undefined;
    const text = objectText(line, type);
    const hit = this.answers.get(text);
    if (!hit) return undefined;
    this.answers.delete(text);
    this.taken.echoes++;
    return { type, object: hit.object as T };
  }

  /** `line` was parsed into `object`: kept while a write is in flight, whose answer it may be. */
  parsed(line: string, object: unknown): void {
    if (this.writing === 0 || typeof object !== "object" || object === null) return;
    const type = typeOf(line);
    if (type === undefined) return;
    if (FREEZE_CACHE) deepFreeze(object);
    this.keep(this.lines, objectText(line, type), object, Math.min(this.cap, LINES_CAP), LINES_MAX_AGE_MS);
  }

  clear(): void {
    this.answers.clear();
    this.lines.clear();
  }

  private keep(into: Map<string, Kept>, text: string, object: unknown, cap: number, maxAgeMs: number): void {
    const now = this.now();
    into.set(text, { object, at: now });
    for (const [oldest, e] of into) {
      if (into.size <= cap && now - e.at < maxAgeMs) break;
      into.delete(oldest);
    }
  }
}

/** ADDED or MODIFIED when `line` is such an event as kube-apiserver and the sandbox write it; else undefined. */
function typeOf(line: string): "ADDED" | "MODIFIED" | undefined {
  if (line.charCodeAt(line.length - 1) !== 0x7d /* } */) return undefined;
  return line.startsWith(ADDED) ? "ADDED" : line.startsWith(MODIFIED) ? "MODIFIED" : undefined;
}

const objectText = (line: string, type: "ADDED" | "MODIFIED") => line.slice(type === "ADDED" ? ADDED.length : MODIFIED.length, -1);

const books = new Map<string, EchoBook>();

/** The book of an API server (by URL): its answers expected back on its watches, and lines kept for answers to come. */
export function echoBook(server: string): EchoBook {
  let book = books.get(server);
  if (!book) books.set(server, (book = new EchoBook()));
  return book;
}
