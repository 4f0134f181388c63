// What kube-apiserver refuses in Endpoints and EndpointSlices (core and discovery validation:
// ValidateEndpointIP), through the real kubectl: loopback, link-local, link-local multicast and the
// unspecified address are 422 Invalid with kube's own words; other addresses are taken.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { hasKubectl, kubectlFor, needsKubectl, type Kubectl } from "../helpers/kubectl.ts";

let sb: Sandbox;
let kubectl: Kubectl;
beforeAll(async () => {
  sb = await startSandbox({ name: "validating" });
  kubectl = kubectlFor(sb.kubeconfig);
});
afterAll(() => sb?.stop());

const endpoints = (name: string, ready: string[], notReady: string[] = []) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace: "default" },
    subsets: [
      {
        addresses: ready.map((ip) => ({ ip })),
        ...(notReady.length && { notReadyAddresses: notReady.map((ip) => ({ ip })) }),
        ports: [{ name: "http", port: 4143 }],
      },
    ],
  });
const slice = (name: string, addressType: string, addresses: string[]) =>
  JSON.stringify({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: "default" },
    addressType,
    endpoints: addresses.map((a) => ({ addresses: [a] })),
    ports: [{ name: "http", port: 4143, protocol: "TCP" }],
  });

describe.skipIf(!hasKubectl)(needsKubectl("Endpoints and EndpointSlice addresses, as kube-apiserver validates them"), () => {
  test("an Endpoints at 127.0.0.1 is refused: 422, the field, the value and kube's message; nothing stored", async () => {
    const r = await kubectl(["apply", "-f", "-"], { stdin: endpoints("lo", ["127.0.0.1"]) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `The Endpoints "lo" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)\n`,
    );
    expect((await kubectl(["get", "endpoints", "lo"])).code).toBe(1);
  });

  test("every refused address of an Endpoints is named, ready or not (link-local, link-local multicast, unspecified)", async () => {
    const r = await kubectl(["create", "-f", "-"], { stdin: endpoints("many", ["10.0.0.1", "169.254.169.254"], ["224.0.0.5", "0.0.0.0"]) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        `The Endpoints "many" is invalid: `,
        `* subsets[0].addresses[1].ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
        `* subsets[0].notReadyAddresses[0].ip: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
        `* subsets[0].notReadyAddresses[1].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
        "",
      ].join("\n"),
    );
  });

  test("an EndpointSlice with a loopback IPv4 or a link-local IPv6 address is refused the same way", async () => {
    const v4 = await kubectl(["apply", "-f", "-"], { stdin: slice("lo4", "IPv4", ["127.0.0.1"]) });
    expect(v4.code).toBe(1);
    expect(v4.stderr).toBe(
      `The EndpointSlice "lo4" is invalid: endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)\n`,
    );
    const v6 = await kubectl(["apply", "-f", "-"], { stdin: slice("ll6", "IPv6", ["fe80::1"]) });
    expect(v6.code).toBe(1);
    expect(v6.stderr).toBe(
      `The EndpointSlice "ll6" is invalid: endpoints[0].addresses[0]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)\n`,
    );
  });

  test("documentation, private and global addresses are taken, in Endpoints and EndpointSlices", async () => {
    expect(await kubectl(["apply", "-f", "-"], { stdin: endpoints("gw", ["192.0.2.10", "10.1.2.3"], ["203.0.113.7"]) })).toMatchObject({
      code: 0,
      stderr: "",
    });
    expect(await kubectl(["apply", "-f", "-"], { stdin: slice("gw6", "IPv6", ["2001:db8::1"]) })).toMatchObject({ code: 0, stderr: "" });
  });
});
