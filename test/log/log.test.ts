// Logs: plain and JSON lines, levels, and no token ever in a line.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import type { ConsolaOptions, LogObject } from "consola";
import { logger, plainFast, setLogFormat, setLogLevel, type Formatting } from "../../src/log.ts";

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
    expect(captureStderr(() => logger("t").debug("quiet"))).toBe("");
    setLogLevel("debug");
    expect(captureStderr(() => logger("t").debug("loud"))).toContain("loud");
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
