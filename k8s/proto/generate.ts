// Regenerates the trimmed Kubernetes .proto files under k8s/proto/ and json-tags.json from a kubectl binary.
import { gunzipSync } from "node:zlib";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import protobuf from "protobufjs";
import descriptorJson from "protobufjs/google/protobuf/descriptor.json";

// Regenerates the trimmed Kubernetes .proto files under k8s/proto/ and json-tags.json from a
// kubectl binary, which carries both halves of what a Kubernetes object's protobuf ↔ JSON mapping
// needs:
//   - the FileDescriptorProto of every k8s.io generated.proto (gzipped, registered with gogo
//     protobuf), gogo options included: names, numbers, types, labels, and `nullable=false`
//     for the Go fields that are not pointers;
//   - the Go reflection data of the API structs: their `json:"…"` tags (JSON name, omitempty,
//     inline) and whether each field is a pointer.
// Cross-check the result against kubernetes/api's generated.proto when upgrading.
//
//   bun k8s/proto/generate.ts [/path/to/kubectl]      (needs a linux/amd64, non-PIE Go ≥1.21 build)

const OUT = import.meta.dir;
const kubectl = realpathSync(process.argv[2] ?? Bun.which("kubectl") ?? "kubectl");
const bin = readFileSync(kubectl);
const u64 = (o: number) => Number(bin.readBigUInt64LE(o));
const kubectlVersion: string = JSON.parse(Bun.spawnSync([kubectl, "version", "--client", "-o", "json"]).stdout.toString()).clientVersion
  .gitVersion;

/** The top-level kinds whose messages (and all they reach) are kept. */
const ROOTS = [
  "core.v1.Namespace",
  "core.v1.ConfigMap",
  "core.v1.Secret",
  "core.v1.ServiceAccount",
  "core.v1.Service",
  "core.v1.Endpoints",
  "core.v1.Pod",
  "core.v1.Event",
  "core.v1.ResourceQuota",
  "core.v1.PersistentVolumeClaim",
  "apps.v1.Deployment",
  "apps.v1.ReplicaSet",
  "apps.v1.StatefulSet",
  "apps.v1.DaemonSet",
  "apps.v1.ControllerRevision",
  "batch.v1.Job",
  "batch.v1.CronJob",
  "networking.v1.Ingress",
  "rbac.v1.Role",
  "rbac.v1.RoleBinding",
  "rbac.v1.ClusterRole",
  "rbac.v1.ClusterRoleBinding",
  "authorization.v1.SelfSubjectAccessReview",
  "authorization.v1.SelfSubjectRulesReview",
  "authorization.v1.SubjectAccessReview",
  "authorization.v1.LocalSubjectAccessReview",
  "authentication.v1.TokenRequest",
  "authentication.v1.TokenReview",
  "authentication.v1.SelfSubjectReview",
  "coordination.v1.Lease",
  "policy.v1.PodDisruptionBudget",
  "policy.v1.Eviction",
  "discovery.v1.EndpointSlice",
  "scheduling.v1.PriorityClass",
]
  .map((r) => `.k8s.io.api.${r}`)
  .concat([
    ".k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    ".k8s.io.apimachinery.pkg.runtime.Unknown", // the envelope of every body
  ]);

// ---- 1. descriptors -------------------------------------------------------------------------
const descRoot = protobuf.Root.fromJSON(descriptorJson as protobuf.INamespace);
const fieldOptions = descRoot.lookupType("google.protobuf.FieldOptions");
fieldOptions.add(new protobuf.Field("gogoNullable", 65001, "bool")); // (gogoproto.nullable)
const FileDescriptorProto = descRoot.lookupType("google.protobuf.FileDescriptorProto");
interface FieldD {
  name: string;
  number: number;
  label: number;
  type: number;
  typeName?: string;
  options?: { gogoNullable?: boolean };
}
interface MsgD {
  name: string;
  field?: FieldD[];
  nestedType?: MsgD[];
  options?: { mapEntry?: boolean };
}
interface FileD {
  name: string;
  package: string;
  messageType?: MsgD[];
  options?: { goPackage?: string };
}
const files = new Map<string, FileD>();
for (let i = 0; i < bin.length - 3; i++) {
  if (bin[i] !== 0x1f || bin[i + 1] !== 0x8b || bin[i + 2] !== 0x08) continue;
  let raw: Buffer;
  try {
    raw = gunzipSync(bin.subarray(i, i + (4 << 20)), { finishFlush: 2 });
  } catch {
    continue;
  }
  if (!/^\n.k8s\.io\/[\w./-]+\/generated\.proto/s.test(raw.toString("latin1", 0, 120))) continue;
  const fd = FileDescriptorProto.toObject(FileDescriptorProto.decode(raw)) as FileD;
  files.set(fd.name, fd);
}
const msgs = new Map<string, { file: FileD; m: MsgD }>();
for (const fd of files.values()) {
  const walk = (prefix: string, ms: MsgD[] = []) => {
    for (const m of ms) {
      msgs.set(`${prefix}.${m.name}`, { file: fd, m });
      walk(`${prefix}.${m.name}`, m.nestedType);
    }
  };
  walk(`.${fd.package}`, fd.messageType);
}

// ---- 2. Go structs (reflection data of a non-PIE linux/amd64 Go binary) ----------------------
// abi.Type: Size 0, PtrBytes 8, Hash 16, TFlag 20, Align 21, FieldAlign 22, Kind 23, Equal 24,
// GCData 32, Str 40 (NameOff), PtrToThis 44; StructType: PkgPath 48, Fields 56/64/72;
// UncommonType at 80 (PkgPath NameOff) when TFlag&1. StructField: Name 0, Typ 8, Offset 16.
const shoff = u64(0x28),
  shnum = bin.readUInt16LE(0x3c),
  shstr = bin.readUInt16LE(0x3e);
const section = (n: number) => {
  const o = shoff + n * 64;
  return { name: bin.readUInt32LE(o), addr: u64(o + 16), off: u64(o + 24), size: u64(o + 32) };
};
const names = section(shstr);
const ro = Array.from({ length: shnum }, (_, n) => section(n)).find(
  (s) => bin.toString("latin1", names.off + s.name, names.off + s.name + 8) === ".rodata\0",
);
if (!ro) throw new Error("no .rodata section: not an ELF Go binary?");
const inRo = (va: number) => va >= ro.addr && va < ro.addr + ro.size;
const at = (va: number) => va - ro.addr + ro.off;
const varint = (o: number): [number, number] => {
  let v = 0,
    s = 0;
  for (;;) {
    const b = bin[o++]!;
    v |= (b & 0x7f) << s;
    if (!(b & 0x80)) return [v, o];
    s += 7;
    if (s > 21) return [-1, o];
  }
};
function goName(va: number): { name: string; tag: string; embedded: boolean } | undefined {
  if (!inRo(va)) return undefined;
  const o = at(va),
    flags = bin[o]!;
  if (flags & 0xf0) return undefined;
  const [l, o2] = varint(o + 1);
  if (l < 0 || l > 512) return undefined;
  let tag = "";
  if (flags & 2) {
    const [tl, o3] = varint(o2 + l);
    if (tl < 0 || tl > 4096) return undefined;
    tag = bin.toString("latin1", o3, o3 + tl);
  }
  return { name: bin.toString("latin1", o2, o2 + l), tag, embedded: !!(flags & 8) };
}
interface GoField {
  name: string;
  tag: string;
  ptr: boolean;
  embedded: boolean;
  kind: number;
}
const structs = new Map<string, GoField[][]>(); // "k8s.io.api.apps.v1.DeploymentSpec" → candidates
for (let o = ro.off; o < ro.off + ro.size - 96; o += 8) {
  if ((bin[o + 23]! & 0x1f) !== 25) continue; // Struct
  const fptr = u64(o + 56),
    flen = u64(o + 64);
  if (!inRo(fptr) || flen === 0 || flen !== u64(o + 72) || flen > 256) continue;
  const fields: GoField[] = [];
  for (let i = 0; i < flen; i++) {
    const f = at(fptr) + i * 24,
      n = goName(u64(f)),
      typ = u64(f + 8);
    if (!n || !inRo(typ)) break;
    fields.push({ ...n, ptr: (bin[at(typ) + 23]! & 0x1f) === 22, kind: bin[at(typ) + 23]! & 0x1f });
  }
  if (fields.length !== flen || !fields.some((f) => f.tag.includes('protobuf:"'))) continue;
  const tname = goName(ro.addr + bin.readInt32LE(o + 40))
    ?.name.replace(/^\*/, "")
    .split(".")
    .pop();
  const pkg = goName(u64(o + 48))?.name || (bin[o + 20]! & 1 ? goName(ro.addr + bin.readInt32LE(o + 80))?.name : undefined);
  if (!tname || !pkg) continue;
  const key = `${pkg.replaceAll("/", ".")}.${tname}`;
  (structs.get(key) ?? structs.set(key, []).get(key)!).push(fields);
}

// ---- 3. reachable messages, .proto text, json tags --------------------------------------------
/** Messages whose JSON form is custom Go code (MarshalJSON), handled by src/sandbox/protobuf/decode.ts, and the envelope. */
const SPECIAL =
  /\.(meta\.v1\.(Time|MicroTime|FieldsV1)|resource\.Quantity|intstr\.IntOrString|runtime\.(RawExtension|Unknown|TypeMeta)|v1\.ExtraValue)$/;
const keep = new Set<string>();
const visit = (n: string) => {
  if (keep.has(n)) return;
  const e = msgs.get(n);
  if (!e) throw new Error(`no message ${n}`);
  keep.add(n);
  for (const f of e.m.field ?? []) if (f.typeName) visit(f.typeName);
};
ROOTS.forEach(visit);
const SCALAR: Record<number, string> = {
  1: "double",
  2: "float",
  3: "int64",
  4: "uint64",
  5: "int32",
  6: "fixed64",
  7: "fixed32",
  8: "bool",
  9: "string",
  12: "bytes",
  13: "uint32",
  15: "sfixed32",
  16: "sfixed64",
  17: "sint32",
  18: "sint64",
};
/** [, wire type, number, name?] of a Go field's protobuf tag ("bytes,1,opt,name=x,casttype=…"; "opt" is sometimes missing). */
const pbTag = (t: string) => {
  const m = /protobuf:"([a-z0-9]+),(\d+)((?:,[^,"]*)*)"/.exec(t);
  return m && ([m[0], m[1], m[2], /,name=(\w+)/.exec(m[3]!)?.[1]] as const);
};
/** Wraps a comment's text at 100 columns. */
const wrap = (text: string) =>
  text.replace(/(.{1,72})(?:, |$)/g, (m, line: string) => `${line}${m.endsWith(", ") ? "," : ""}\n// `).replace(/\n\/\/ $/, "");
const license = `/*
Copyright The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/
`;
const jsonTags: Record<string, Record<string, string>> = {};
const problems: string[] = [];
const summary: string[] = [];
for (const fd of [...files.values()].sort((a, b) => a.name.localeCompare(b.name))) {
  const kept = (fd.messageType ?? []).filter((m) => keep.has(`.${fd.package}.${m.name}`));
  if (!kept.length) continue;
  const imports = new Set<string>();
  const typeRef = (t: string) => {
    const e = msgs.get(t)!;
    if (e.file !== fd) imports.add(e.file.name);
    return t.startsWith(`.${fd.package}.`) ? t.slice(fd.package.length + 2) : t;
  };
  const body = kept.map((m) => {
    const full = `${fd.package}.${m.name}`;
    const nested = new Map((m.nestedType ?? []).map((n) => [`.${full}.${n.name}`, n]));
    const lines = (m.field ?? []).map((f) => {
      const entry = f.typeName ? nested.get(f.typeName) : undefined;
      if (entry?.options?.mapEntry) {
        const [k, v] = entry.field!;
        return `  map<${SCALAR[k!.type]}, ${v!.typeName ? typeRef(v!.typeName) : SCALAR[v!.type]}> ${f.name} = ${f.number};`;
      }
      return `  ${f.label === 3 ? "repeated" : "optional"} ${f.typeName ? typeRef(f.typeName) : SCALAR[f.type]} ${f.name} = ${f.number};`;
    });
    if (!SPECIAL.test(`.${full}`)) {
      // The Go struct whose protobuf-tagged fields are exactly this message's fields.
      const sig = (m.field ?? [])
        .map((f) => `${f.number}:${f.name}`)
        .sort()
        .join(" ");
      const st = (structs.get(full) ?? []).find(
        (fs) =>
          fs
            .filter((g) => pbTag(g.tag))
            .map((g) => {
              const t = pbTag(g.tag)!;
              return `${t[2]}:${t[3] ?? (m.field ?? []).find((f) => f.number === Number(t[2]))?.name}`;
            })
            .sort()
            .join(" ") === sig,
      );
      if (!st) problems.push(`no Go struct for ${full}`);
      else {
        const tags: Record<string, string> = {};
        for (const f of m.field ?? []) {
          const g = st.find((x) => pbTag(x.tag)?.[2] === String(f.number))!;
          const json = /json:"([^"]*)"/.exec(g.tag)?.[1] ?? f.name;
          if (f.label !== 3 && g.ptr !== (f.options?.gogoNullable !== false))
            problems.push(`${full}.${f.name}: Go pointer=${g.ptr}, gogo nullable=${f.options?.gogoNullable}`);
          if (json.startsWith(",") && !g.embedded) problems.push(`${full}.${f.name}: inline but not embedded`);
          if (f.type === 12 && f.label !== 3 && g.kind !== 23) problems.push(`${full}.${f.name}: bytes but Go kind ${g.kind}`);
          tags[f.name] = (g.ptr ? "*" : "") + json;
        }
        jsonTags[full] = tags;
      }
    }
    return `message ${m.name} {\n${lines.join("\n\n")}\n}\n`;
  });
  const roots = ROOTS.filter((r) => r.startsWith(`.${fd.package}.`)).map((r) => r.split(".").pop());
  const text = `${license}

// This file was autogenerated by go-to-protobuf. Do not edit it manually!
//
// mc: a trimmed copy of this generated.proto as compiled into kubectl ${kubectlVersion}: only the
// messages reachable from ${wrap(roots.length ? `${roots.join(", ")}.` : "the kept kinds of other packages.")}
// Comments are dropped; message and field names, numbers, types and labels are unchanged.
// Written by k8s/proto/generate.ts; see k8s/proto/README.md.

syntax = "proto2";

package ${fd.package};

${[...imports]
  .sort()
  .map((i) => `import "${i}";\n`)
  .join("")}${imports.size ? "\n" : ""}// Package-wide variables from generator "generated".
option go_package = "${fd.options?.goPackage ?? ""}";

${body.join("\n")}`;
  mkdirSync(join(OUT, dirname(fd.name)), { recursive: true });
  writeFileSync(join(OUT, fd.name), text);
  summary.push(`${fd.name}: ${kept.length} of ${(fd.messageType ?? []).length} messages`);
}
const tagLines = Object.entries(jsonTags).map(
  ([m, t]) => `  ${JSON.stringify(m)}: ${JSON.stringify(t).replaceAll('","', '", "').replaceAll('":"', '": "')}`,
);
writeFileSync(join(OUT, "json-tags.json"), `{\n${tagLines.join(",\n")}\n}\n`);
console.log(summary.join("\n"));
console.log(`${Object.keys(jsonTags).length} messages with json tags; kubectl ${kubectlVersion}\n`);
if (problems.length) {
  console.error(`problems:\n${problems.join("\n")}`);
  process.exit(1);
}
