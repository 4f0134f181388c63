// The sandbox's label and field selectors: the shared library of Kubernetes selector syntax
// (src/lib/, which imports nothing), so the sandbox still imports nothing of mc.
export * from "../lib/label-selector.ts";
