// A process that logs, for the tests of what reaches a real stderr (a pipe): `bun log-child.ts <mode>`.
import { logger } from "../../src/log.ts";

const mode = process.argv[2];
const log = logger("child");

if (mode === "turn") {
  // 50 lines logged at once; prints on stdout how many writes reached stderr by then (`during`), how many when the
  // last line is written (`writes`), and whether that was at exit rather than while running.
  const write = process.stderr.write;
  let writes = 0;
  let exiting = false;
  process.on("exit", () => (exiting = true));
  const running = setTimeout(() => {}, 10_000);
  process.stderr.write = ((...args: Parameters<typeof write>) => {
    writes++;
    if (String(args[0]).includes("line 49\n")) {
      clearTimeout(running);
      process.stdout.write(JSON.stringify({ during, writes, atExit: exiting }));
    }
    return write.apply(process.stderr, args);
  }) as typeof write;
  for (let i = 0; i < 50; i++) logger(i % 2 ? "odd" : "even").info(`line ${i}`);
  const during = writes;
} else if (mode === "exit") {
  log.info("logged just before process.exit");
  process.exit(3);
} else if (mode === "order") {
  log.info("first, an info line");
  log.warn("second, a warning");
  log.info("third, an info line");
  logger("other").info("fourth, from another component");
  log.error("fifth, an error");
  log.info("sixth, an info line");
} else if (mode === "crash") {
  setTimeout(() => {
    // Made at run time: Bun prints the source around the throw, and the test must find the line, not the source.
    log.info(["logged", "just", "before", "the", "crash"].join(" "));
    throw new Error("the crash");
  }, 0);
}
