// What may differ between two API servers that behave the same: uids, times, resourceVersions,
// cluster and pod IPs, node ports, generated name suffixes, ages, the server's address, and the
// order of map keys kube does not promise. Each rule names what it hides.
const RULES: [RegExp, string][] = [
  // uids and other UUIDs
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uid>"],
  // RFC 3339 times (creationTimestamp, lastTransitionTime, Events, Leases' microtimes)
  [/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, "<time>"],
  // resourceVersions: fields, query parameters, and kube's messages that quote them
  [/("resourceVersion":\s*)"\d+"/g, '$1"<rv>"'],
  [/(resourceVersion:\s*)"?\d+"?/g, "$1<rv>"],
  [/(resourceVersion=)\d+/g, "$1<rv>"],
  [/(Too large resource version: )\d+(, current: )\d+/g, "$1<rv>$2<rv>"],
  [/(too old resource version: )\d+ \(\d+\)/g, "$1<rv> (<rv>)"],
  // the server's own address (its port is picked at start)
  [/127\.0\.0\.1:\d+/g, "<server>"],
  [/https:\/\/localhost:\d+/g, "<server>"],
  // cluster IPs, pod IPs and node addresses (each server allocates its own)
  [/\b10\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g, "<ip>"],
  // node ports
  [/\b3[0-2]\d{3}\b/g, "<nodeport>"],
  // generated name suffixes (the cases use generateName prefixes ending in "gen-")
  [/gen-[a-z0-9]{5}\b/g, "gen-<suffix>"],
  // ages in tables: "0s", "12s", "3m4s", "<invalid>"
  [/(?<=\s)(\d+[smhd])+(?=\s|$)/gm, "<age>"],
  [/<invalid>/g, "<age>"],
];

export function normalize(text: string): string {
  let out = text;
  for (const [re, to] of RULES) out = out.replace(re, to);
  // Table columns are padded to the widest cell: collapse runs of spaces so a longer uid or IP does not shift them.
  return out.replace(/(?<=\S) {2,}/g, "  ").replace(/[ \t]+$/gm, "");
}
