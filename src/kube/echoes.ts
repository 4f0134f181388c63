// The echoes an informer expects of this process's own writes: a write's answer is the object its watch event carries, in the same
// text (both are the server's one serialization of the stored object), so that event is taken from the answer instead of parsed again.
import { FREEZE_CACHE, deepFreeze } from "./cache.ts";
import { answerText } from "./transport.ts";
import type { KubeObject, WatchEvent } from "./types.ts";

// Only a line that is `{"type":"ADDED"|"MODIFIED","object":` + the answer's text + `}`, byte for byte, is
// taken: JSON.parse of it would give the answer again. Any other line — another resourceVersion, another
// encoding, a DELETED, BOOKMARK or ERROR — is parsed as before. An expected echo goes when it comes, when
// the watch passes its resourceVersion (a selector that drops it, a relist that covers it), on a relist,
// or past CAP (the oldest first); a write that failed has no answer, so it is never expected.

const ADDED = '{"type":"ADDED","object":';
const MODIFIED = '{"type":"MODIFIED","object":';
/** Past this many waiting, the oldest go: their events are parsed, which is only slower. */
const CAP = 10_000;
/** Sweeps of passed echoes run when the book doubles from here (amortised O(1) per write). */
const SWEEP_MIN = 64;

interface Expected<T> {
  object: T;
  rv: bigint;
}

export class ExpectedEchoes<T extends KubeObject> {
  private readonly byText = new Map<string, Expected<T>>();
  private sweepAt = SWEEP_MIN;

  get size(): number {
    return this.byText.size;
  }

  /**
   * `answer` is what a create or update returned, `text` what it was parsed from (kept by the
   * transport); `seen` is the watch's resourceVersion so far: an answer at or below it has had its event already.
   */
  expect(answer: T, seen: string, text = answerText(answer)): void {
    const rv = toInt(answer.metadata?.resourceVersion);
    if (text === undefined || rv === undefined) return;
    const now = toInt(seen);
    if (now !== undefined && rv <= now) return;
    // Under tests the answer is frozen from here: a caller changing it after the write would make the
    // taken event differ from the line, and throws instead.
    if (FREEZE_CACHE) deepFreeze(answer);
    this.byText.set(text, { object: answer, rv });
    if (this.byText.size >= this.sweepAt && now !== undefined) this.passed(now);
    for (const oldest of this.byText.keys()) {
      if (this.byText.size <= CAP) break;
      this.byText.delete(oldest);
    }
  }

  /** The event `line` carries when it is an expected echo, exactly (no longer expected then); else undefined. */
  take(line: string): WatchEvent<T> | undefined {
    if (this.byText.size === 0 || line.charCodeAt(line.length - 1) !== 0x7d /* } */) return undefined;
    const type = line.startsWith(ADDED) ? "ADDED" : line.startsWith(MODIFIED) ? "MODIFIED" : undefined;
    if (type === undefined) return undefined;
    const text = line.slice(type === "ADDED" ? ADDED.length : MODIFIED.length, -1);
    const hit = this.byText.get(text);
    if (!hit) return undefined;
    this.byText.delete(text);
    return { type, object: hit.object };
  }

  /** The watch is at `rv`: echoes at or below it will not come. */
  passed(rv: string | bigint): void {
    const now = typeof rv === "bigint" ? rv : toInt(rv);
    if (now === undefined) return;
    for (const [text, e] of this.byText) if (e.rv <= now) this.byText.delete(text);
    this.sweepAt = Math.max(SWEEP_MIN, 2 * this.byText.size);
  }

  clear(): void {
    this.byText.clear();
    this.sweepAt = SWEEP_MIN;
  }
}

/** resourceVersions are opaque; those of every server we know are integers, and only those are expected. */
function toInt(rv: string | undefined): bigint | undefined {
  return rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
}
