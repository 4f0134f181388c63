// Issue 6, end to end with two sandboxes: needs the mirror controller and `mc serve`, which are
// being built; this test is written when they land (the prober, metrics and `mc gateways` parts
// are proven in this folder, test/gateways/ and test/cmd/gateways.test.ts).
import { describe, test } from "bun:test";

describe("gateway health end to end (two sandboxes, mc serve --probe-direct)", () => {
  test.todo(
    "killing the gateway makes the mirror endpoints not-ready, gateway_alive 0 and mc gateways False within period x threshold (+ jitter); restarting it brings them back, with plausible latencies — waits for mc serve (controller not merged yet)",
  );
});
