// Tests apply manifests in-process through the sandbox (src/demo/apply.ts).
export { applyObjects } from "../../src/demo/apply.ts";
