// kube's ValidateEndpointIP, as src/lib/endpoint-ip.ts copies it: the addresses Endpoints and
// EndpointSlices refuse (Go's net.IP predicates, IPv4-mapped IPv6 read as IPv4), in kube's words.
import { expect, test } from "bun:test";
import { endpointIpProblems, ipBytes } from "../../src/lib/endpoint-ip.ts";

const LOOPBACK = "may not be in the loopback range (127.0.0.0/8, ::1/128)";
const LINK_LOCAL = "may not be in the link-local range (169.254.0.0/16, fe80::/10)";
const LL_MULTICAST = "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)";

test.each<[string, string[]]>([
  ["10.1.2.3", []],
  ["192.0.2.10", []],
  ["203.0.113.10", []],
  ["2001:db8::1", []],
  ["224.0.1.1", []], // global multicast: kube takes it (its own comment calls that probably a bug)
  ["ff05::1", []],
  ["127.0.0.1", [LOOPBACK]],
  ["127.255.0.9", [LOOPBACK]],
  ["::1", [LOOPBACK]],
  ["::ffff:127.0.0.1", [LOOPBACK]],
  ["169.254.169.254", [LINK_LOCAL]],
  ["fe80::1", [LINK_LOCAL]],
  ["febf:ffff::1", [LINK_LOCAL]],
  ["224.0.0.5", [LL_MULTICAST]],
  ["ff02::1", [LL_MULTICAST]],
  ["ff12::2", [LL_MULTICAST]],
  ["0.0.0.0", ["may not be unspecified (0.0.0.0)"]],
  ["::", ["may not be unspecified (::)"]],
  ["gw.example.com", ["must be a valid IP address"]],
  ["1.2.3", ["must be a valid IP address"]],
])("%s → %p", (ip, problems) => {
  expect(endpointIpProblems(ip)).toEqual(problems);
});

test("IPv6 forms expand to the same 16 bytes", () => {
  expect(ipBytes("::1")).toEqual([...Array(15).fill(0), 1]);
  expect(ipBytes("fe80:0:0:0:0:0:0:1")).toEqual(ipBytes("fe80::1"));
  expect(ipBytes("::ffff:10.0.0.1")).toEqual(ipBytes("10.0.0.1"));
  expect(ipBytes("64:ff9b::192.0.2.33")?.slice(12)).toEqual([192, 0, 2, 33]);
});

test("what is no IP is refused by the parser (as Go's net.ParseIP)", () => {
  for (const bad of [
    "",
    "1.2.3.4.5",
    "256.1.1.1",
    "01.2.3.4",
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "g::1",
    "::1.2.3",
    "12345::1",
  ])
    expect(ipBytes(bad)).toBeUndefined();
  expect(ipBytes("1:2:3:4:5:6:7::")).toHaveLength(16);
});
