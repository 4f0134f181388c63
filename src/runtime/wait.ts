// Waiting for something to reach a state, on events: read it, and if it is not there yet,
// follow its changes from that read until the predicate holds or the deadline passes. What is
// read and followed is the caller's (the kube layer reads one object and watches it).

import { setLongTimer } from "./clock.ts";

export class WaitTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`timed out after ${ms} ms waiting for ${what}`);
    this.name = "WaitTimeout";
  }
}

/** One thing that changes: its value now, and its values after that (undefined = it is gone). */
export interface Followable<T> {
  /** The value now, and where to follow its changes from. */
  read(): Promise<{ value: T | undefined; from: string }>;
  /** The values after `from`, as they happen; `cancel` ends them. */
  follow(from: string): Promise<{ values: AsyncIterable<T | undefined>; cancel(): void }>;
}

/** Resolves with the value (undefined = it is gone) once `pred` holds for it; rejects with WaitTimeout after `timeoutMs`. */
export async function waitFor<T>(
  source: Followable<T>,
  pred: (value: T | undefined) => boolean,
  opts: { what: string; timeoutMs: number },
): Promise<T | undefined> {
  const now = await source.read();
  if (pred(now.value)) return now.value;
  const stream = await source.follow(now.from);
  let cancelTimer = () => {};
  const deadline = new Promise<never>((_, reject) => {
    cancelTimer = setLongTimer(opts.timeoutMs, () => reject(new WaitTimeout(opts.what, opts.timeoutMs)));
  });
  const seen = (async () => {
    for await (const value of stream.values) if (pred(value)) return value;
    throw new Error(`the watch ended before ${opts.what}`);
  })();
  try {
    return await Promise.race([seen, deadline]);
  } finally {
    cancelTimer();
    stream.cancel();
  }
}
