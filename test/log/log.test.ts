// Logs: plain and JSON lines, levels, and no token ever in a line.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { join } from "node:path";
import type { ConsolaOptions, LogObject } from "consola";
import { flushLogs, logger, plainFast, setLogFormat, setLogLevel, type Formatting } from "../../src/log.ts";

afterEach(() => {
  setLogFormat("plain");
  setLogLevel("info");
});

function captureStderr(fn: () => void): string {
  const chunks: string[] = [];
  const spy = spyOn(process.stderr, "write").mockImplementation(((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof process.stderr.write);
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return chunks.join("");
}

describe("logs", () => {
  test("--log-format json writes one JSON object per line with level, component and message", () => {
    setLogFormat("json");
    const out = captureStderr(() => logger("mirror:east").info("mirrored default/web as web-east"));
    const line = JSON.parse(out.trim());
    expect(line).toMatchObject({ level: "info", component: "mirror:east", msg: "mirrored default/web as web-east" });
    expect(Date.parse(line.time)).not.toBeNaN();
  });

  test("tokens never reach a log line", () => {
    setLogFormat("json");
    const out = captureStderr(() => logger("t").warn("request failed: Authorization: Bearer abc.def.ghi"));
    expect(out).not.toContain("abc.def.ghi");
    expect(out).toContain("<redacted>");
  });

  test("debug lines are dropped at info level and kept at debug", () => {
    setLogFormat("json");
    const log = logger("t");
    expect(captureStderr(() => log.debug("quiet"))).toBe("");
    expect(log.debugging).toBe(false);
    setLogLevel("debug");
    expect(captureStderr(() => log.debug("loud"))).toContain("loud");
    expect(log.debugging).toBe(true);
  });
});

describe("plain lines", () => {
  /** A consola writing to a string, with consola's own reporter or the short way in front of it (plainFast). */
  function consolaTo(fast: boolean, fancy: boolean) {
    const { createConsola } = require("consola") as typeof import("consola");
    let text = "";
    const stream = { write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
    // `fancy` picks consola's reporter as createConsola does outside tests (FancyReporter) or in them (BasicReporter).
    const c = createConsola({
      level: 4,
      fancy,
      stdout: stream,
      stderr: stream,
      formatOptions: { date: false, colors: false },
    } as Parameters<typeof createConsola>[0]);
    const inner = c.options.reporters[0] as Formatting;
    let slow = 0;
    const counted: Formatting = Object.assign(Object.create(inner) as Formatting, {
      log: (o: LogObject, ctx: { options: ConsolaOptions }) => (slow++, inner.log(o, ctx)),
    });
    if (fast) c.setReporters([plainFast(counted)]);
    return { log: c.withTag("mirror:east"), text: () => text, slow: () => slow };
  }

  for (const fancy of [true, false]) {
    test(`an info or debug line of one plain string is written as consola writes it, without consola; anything it styles still goes through it (${fancy ? "fancy" : "basic"} reporter)`, () => {
      const messages = [
        "mirrored ns-1/svc-1 as ns-1/svc-1-east",
        "ünïcode ✓ 漢字",
        "  spaced  ",
        "a `code` b",
        "x _under_ y",
        "two\nlines",
        "50% done",
        "",
      ];
      const [fast, own] = [consolaTo(true, fancy), consolaTo(false, fancy)];
      for (const c of [fast, own]) for (const m of messages) for (const type of ["info", "debug", "warn", "error"] as const) c.log[type](m);
      expect(fast.text()).toBe(own.text());
      if (fancy) expect(fast.text()).toContain("[mirror:east] ℹ mirrored ns-1/svc-1 as ns-1/svc-1-east\n");
      // Per message, the warning and the error, and the info and debug of the five consola styles or splits; the three plain ones' never.
      expect(fast.slow()).toBe(messages.length * 2 + 5 * 2);
    });
  }
});

describe("plain lines written together", () => {
  /** A consola writing to a stream that records each write, with plainFast holding lines (as mc's own root does) or consola alone. */
  function consolaTo(fast: boolean) {
    const { createConsola } = require("consola") as typeof import("consola");
    const writes: string[] = [];
    let wrote = () => {};
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const stream = { write: (s: string) => (writes.push(s), wrote(), true) } as unknown as NodeJS.WriteStream;
    const c = createConsola({ level: 4, stdout: stream, stderr: stream, formatOptions: { date: false, colors: false } });
    const reporter = fast ? plainFast(c.options.reporters[0] as Formatting, true) : undefined;
    if (reporter) c.setReporters([reporter]);
    const log = c.withTag("mirror:east");
    let slow = 0;
    return {
      info: (m: string) => reporter?.line(log, "info", m) || (slow++, log.info(m)),
      debug: (m: string) => reporter?.line(log, "debug", m) || (slow++, log.debug(m)),
      warn: (m: string) => (slow++, log.warn(m)),
      writes,
      written,
      slow: () => slow,
    };
  }

  test("lines logged together reach the stream as one write, shortly after, without consola's _logFn, as consola writes them", async () => {
    const [fast, own] = [consolaTo(true), consolaTo(false)];
    for (const c of [fast, own]) for (let i = 0; i < 100; i++) c[i % 3 ? "info" : "debug"](`mirrored ns-${i}/svc as ns-${i}/svc-east`);
    expect(fast.writes).toEqual([]);
    await fast.written;
    expect(fast.writes).toEqual([own.writes.join("")]);
    expect(own.writes).toHaveLength(100);
    expect(fast.slow()).toBe(0);
  });

  test("a warning writes the lines held before it first, so lines keep their order", () => {
    const [fast, own] = [consolaTo(true), consolaTo(false)];
    for (const c of [fast, own]) {
      c.info("one");
      c.info("two");
      c.warn("three");
      c.info("four");
    }
    expect(fast.writes.join("")).toBe(own.writes.slice(0, 3).join(""));
    expect(fast.writes[0]).toBe(own.writes.slice(0, 2).join(""));
    flushLogs();
    expect(fast.writes.join("")).toBe(own.writes.join(""));
  });

  test("consola's repeats are kept: a sixth identical line within its throttle is held back and reported as repeated", () => {
    const [fast, own] = [consolaTo(true), consolaTo(false)];
    for (const c of [fast, own]) {
      for (let i = 0; i < 9; i++) c.info("same line");
      c.info("another line");
      c.debug("another line");
      for (let i = 0; i < 3; i++) c.info("same line");
      c.warn("a warning");
      for (let i = 0; i < 7; i++) c.debug("again");
      c.info("the end");
    }
    flushLogs();
    expect(fast.writes.join("")).toBe(own.writes.join(""));
    expect(own.writes.join("")).toContain("(repeated 4 times)");
  });

  async function child(mode: string) {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "log-child.ts"), mode], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" },
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  }

  test("on a real stderr, 50 lines logged together are one write, made while the process runs", async () => {
    const { stdout, code } = await child("turn");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ during: 0, writes: 1, atExit: false });
  });

  test("a line logged just before process.exit is written", async () => {
    const { stderr, code } = await child("exit");
    expect(code).toBe(3);
    expect(stderr).toContain("logged just before process.exit\n");
  });

  test("info, warning and error lines reach stderr in the order they were logged", async () => {
    const { stderr, code } = await child("order");
    expect(code).toBe(0);
    const order = ["first", "second", "third", "fourth", "fifth", "sixth"].map((w) => stderr.indexOf(`${w}, `));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test("a line logged just before an uncaught exception is written before the exception", async () => {
    const { stderr, code } = await child("crash");
    expect(code).not.toBe(0);
    expect(stderr).toContain("logged just before the crash\n");
    expect(stderr.indexOf("logged just before the crash")).toBeLessThan(stderr.indexOf("error: the crash"));
  });
});
