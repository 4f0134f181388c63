// What `bun run fidelity` hides before it compares two servers' kubectl output: only what may
// differ between two servers that behave the same.
import { expect, test } from "bun:test";
import { normalize } from "./normalize.ts";

test("uids, times, resourceVersions, the server's address, cluster IPs, node ports, generated suffixes and ages are hidden", () => {
  const out = normalize(
    [
      'uid: 0b1d5c2e-8a3f-4c1e-9d2a-7f6e5d4c3b2a  creationTimestamp: "2026-12-03T21:00:00Z"',
      'resourceVersion: "12345" {"resourceVersion":"77"} ?resourceVersion=99',
      "Timeout: Too large resource version: 99, current: 12",
      "The connection to the server 127.0.0.1:43121 was refused",
      "web    ClusterIP   10.96.0.17   <none>   80:31234/TCP   5s",
      "configmap/gen-x7k2q created",
    ].join("\n"),
  );
  expect(out).toBe(
    [
      'uid: <uid>  creationTimestamp: "<time>"',
      'resourceVersion: <rv> {"resourceVersion":"<rv>"} ?resourceVersion=<rv>',
      "Timeout: Too large resource version: <rv>, current: <rv>",
      "The connection to the server <server> was refused",
      "web  ClusterIP  <ip>  <none>  80:<nodeport>/TCP  <age>",
      "configmap/gen-<suffix> created",
    ].join("\n"),
  );
});

test("what a server decides is kept: messages, addresses outside the cluster ranges, indentation", () => {
  const text =
    'The Endpoints "lo" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)\nspec:\n    ports:\n    - 192.0.2.10';
  expect(normalize(text)).toBe(text);
});
