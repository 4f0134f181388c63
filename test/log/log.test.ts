// Logs: plain and JSON lines, levels, and no token ever in a line.
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { logger, setLogFormat, setLogLevel } from "../../src/log.ts";

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
