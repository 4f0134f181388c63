// A Logger that records what it is told, for tests that assert on log transitions.
import type { Logger } from "../../src/log.ts";
import { recordOutput } from "./capture.ts";

export interface RecordingLog extends Logger {
  lines: Array<{ level: string; message: string }>;
  at(level: string): string[];
}

export function recordingLog(): RecordingLog {
  const lines: RecordingLog["lines"] = [];
  const rec = (level: string) => (message: string) => {
    lines.push({ level, message });
    recordOutput(`recording log ${level}`, message);
  };
  return {
    lines,
    at: (level) => lines.filter((l) => l.level === level).map((l) => l.message),
    error: rec("error"),
    warn: rec("warn"),
    info: rec("info"),
    debug: rec("debug"),
  };
}
