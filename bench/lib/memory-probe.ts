// Preloaded into `mc serve` by the memory scenario (`bun --preload`): on SIGUSR2 the process
// collects garbage and appends one JSON line {rss, heapUsed, heapTotal} to $MC_BENCH_MEMORY_FILE.
// Nothing of mc's own code changes for it.
import { appendFileSync } from "node:fs";

const file = process.env.MC_BENCH_MEMORY_FILE;
if (file) {
  process.on("SIGUSR2", () => {
    Bun.gc(true);
    const m = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal })}\n`);
  });
}
