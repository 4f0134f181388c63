// Tests apply manifests in-process through the sandbox (src/sandbox/apply.ts).
export { applyObjects } from "../../src/sandbox/apply.ts";
