import type { Scenario } from "../lib/scenario.ts";
export const failure: Scenario = { name: "failure", title: "Failure detection (pending)", flags: {}, async run() { throw new Error("not yet"); } };
