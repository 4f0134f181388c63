// The kubectl cases `bun run fidelity` runs on both backends. Each case runs in a namespace of its own (`$NS` in arguments and input); a
// step's exit code, stdout and stderr are compared after normalize(). `setup` steps are run, not compared; `until` retries a step (up to 20
// s) until its stdout contains that text, for what a controller does in its own time.
export interface Step {
  args: string[];
  stdin?: string;
  setup?: boolean;
  /** Retry until stdout or stderr contains this (or matches it). */
  until?: string | RegExp;
  /** Keep the step's stdout as $NAME for later steps. */
  save?: string;
}

export interface Case {
  name: string;
  steps: Step[];
  /** Cluster-scoped objects the case creates (deleted after it, by kind/name). */
  cleanup?: string[];
}

const k = (args: string, o: Omit<Step, "args"> = {}): Step => ({ args: split(args), ...o });
const setup = (args: string, stdin?: string): Step => ({ args: split(args), setup: true, ...(stdin !== undefined && { stdin }) });
const apply = (yaml: string, extra = ""): Step => ({ args: ["apply", "-f", "-", ...split(extra)], stdin: yaml });

/** Splits on spaces, keeping '…' quoted parts whole (no shell). */
function split(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2]!);
  return out;
}

const cm = (name: string, data: Record<string, string> = { a: "1" }, labels?: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: $NS\n${labels ? `  labels: ${JSON.stringify(labels)}\n` : ""}data: ${JSON.stringify(data)}\n`;
const svc = (name: string, extra = "") =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: $NS\nspec:\n  ports:\n  - name: http\n    port: 80\n    targetPort: 8080\n${extra}`;
const deployment = (image = "nginx:1") =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: $NS\nspec:\n  replicas: 0\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec:\n      containers:\n      - name: web\n        image: ${image}\n        ports: [{ containerPort: 80 }]\n      - name: side\n        image: busybox\n`;
const endpoints = (name: string, ips: string[]) =>
  `apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: ${name}\n  namespace: $NS\nsubsets:\n- addresses: ${JSON.stringify(ips.map((ip) => ({ ip })))}\n  ports: [{ name: http, port: 8080 }]\n`;
const slice = (name: string, type: string, addresses: string[]) =>
  `apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: ${name}\n  namespace: $NS\naddressType: ${type}\nendpoints: ${JSON.stringify(addresses.map((a) => ({ addresses: [a] })))}\nports: [{ name: http, port: 8080, protocol: TCP }]\n`;
const GROUP = "fidelity.example.com";
const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${GROUP}
spec:
  group: ${GROUP}
  scope: Namespaced
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
  versions:
  - name: v1
    served: true
    storage: true
    subresources: { status: {} }
    additionalPrinterColumns:
    - { name: Size, type: string, jsonPath: .spec.size }
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              color: { type: string, enum: [red, blue] }
              size: { type: string, default: medium }
              count: { type: integer, minimum: 1, maximum: 10 }
              name: { type: string, maxLength: 5, pattern: '^[a-z]+$' }
          status:
            type: object
            properties:
              ready: { type: boolean }
`;
const widget = (name: string, spec: string) =>
  `apiVersion: ${GROUP}/v1\nkind: Widget\nmetadata:\n  name: ${name}\n  namespace: $NS\nspec: ${spec}\n`;
const crdSteps = [setup("apply -f -", crd), setup(`wait --for=condition=Established --timeout=30s crd/widgets.${GROUP}`)];
const lease = `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: lock\n  namespace: $NS\nspec:\n  holderIdentity: a\n  leaseDurationSeconds: 15\n`;
/** A ConfigMap owned by the ConfigMap `parent` (its uid saved as $PARENT). */
const child = cm("child").replace(
  "  name: child\n",
  "  name: child\n  ownerReferences: [{ apiVersion: v1, kind: ConfigMap, name: parent, uid: $PARENT }]\n",
);
const parentUid: Step = { args: split("get cm parent -n $NS -o jsonpath={.metadata.uid}"), setup: true, save: "PARENT" };

export const CASES: Case[] = [
  // apply / replace / patch
  { name: "apply creates", steps: [apply(cm("cm"))] },
  { name: "apply unchanged", steps: [setup("apply -f -", cm("cm")), apply(cm("cm"))] },
  {
    name: "apply configures and records last-applied",
    steps: [setup("apply -f -", cm("cm")), apply(cm("cm", { a: "2" })), k("get cm cm -n $NS -o yaml")],
  },
  {
    name: "apply with an empty labels map (dropped, so each apply configures)",
    steps: [apply(cm("cm", { a: "1" }, {})), apply(cm("cm", { a: "1" }, {})), k("get cm cm -n $NS -o jsonpath={.metadata}")],
  },
  {
    name: "apply prunes a field removed from the file",
    steps: [setup("apply -f -", cm("cm", { a: "1", b: "2" })), apply(cm("cm", { a: "1" })), k("get cm cm -n $NS -o jsonpath={.data}")],
  },
  {
    name: "replace",
    steps: [
      setup("create -f -", cm("cm")),
      { args: ["replace", "-f", "-"], stdin: cm("cm", { a: "3" }) },
      k("get cm cm -n $NS -o jsonpath={.data.a}"),
    ],
  },
  { name: "replace a missing object", steps: [{ args: ["replace", "-f", "-"], stdin: cm("nope") }] },
  {
    name: "replace with a stale resourceVersion is a 409 Conflict",
    steps: [
      setup("create -f -", cm("cm")),
      setup("label cm cm -n $NS x=1"),
      { args: ["replace", "-f", "-"], stdin: cm("cm").replace("  name: cm\n", '  name: cm\n  resourceVersion: "1"\n') },
    ],
  },
  {
    name: "patch merge",
    steps: [
      setup("create -f -", cm("cm")),
      k(`patch cm cm -n $NS --type merge -p {"data":{"b":"2"}}`),
      k("get cm cm -n $NS -o jsonpath={.data}"),
    ],
  },
  {
    name: "patch merge null deletes",
    steps: [
      setup("create -f -", cm("cm", { a: "1", b: "2" })),
      k(`patch cm cm -n $NS --type merge -p {"data":{"a":null}}`),
      k("get cm cm -n $NS -o jsonpath={.data}"),
    ],
  },
  {
    name: "patch json add",
    steps: [
      setup("create -f -", cm("cm")),
      k(`patch cm cm -n $NS --type json -p [{"op":"add","path":"/data/c","value":"3"}]`),
      k("get cm cm -n $NS -o jsonpath={.data}"),
    ],
  },
  {
    name: "patch json failing test op",
    steps: [setup("create -f -", cm("cm")), k(`patch cm cm -n $NS --type json -p [{"op":"test","path":"/data/a","value":"9"}]`)],
  },
  {
    name: "patch json remove missing path",
    steps: [setup("create -f -", cm("cm")), k(`patch cm cm -n $NS --type json -p [{"op":"remove","path":"/data/zz"}]`)],
  },
  {
    name: "patch strategic merges containers by name",
    steps: [
      setup("apply -f -", deployment()),
      k(`patch deployment web -n $NS -p {"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`),
      k("get deployment web -n $NS -o jsonpath={.spec.template.spec.containers[*].image}"),
    ],
  },
  {
    name: "patch strategic $retainKeys-free delete directive",
    steps: [
      setup("apply -f -", deployment()),
      k(`patch deployment web -n $NS -p {"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}`),
      k("get deployment web -n $NS -o jsonpath={.spec.template.spec.containers[*].name}"),
    ],
  },
  {
    name: "patch strategic on a custom resource is refused",
    steps: [...crdSteps, setup("apply -f -", widget("w", "{ color: red }")), k(`patch widget w -n $NS -p {"spec":{"size":"big"}}`)],
  },
  { name: "patch a missing object", steps: [k(`patch cm nope -n $NS --type merge -p {"data":{}}`)] },
  {
    name: "server-side apply creates",
    steps: [apply(cm("cm"), "--server-side"), k("get cm cm -n $NS -o jsonpath={.metadata.managedFields[*].manager}")],
  },
  {
    name: "server-side apply conflict",
    steps: [
      setup("apply --server-side --field-manager=alice -f -", cm("cm")),
      apply(cm("cm", { a: "9" }), "--server-side --field-manager=bob"),
    ],
  },
  {
    name: "server-side apply --force-conflicts takes the field",
    steps: [
      setup("apply --server-side --field-manager=alice -f -", cm("cm")),
      apply(cm("cm", { a: "9" }), "--server-side --field-manager=bob --force-conflicts"),
      k("get cm cm -n $NS -o jsonpath={.data.a}"),
    ],
  },
  {
    name: "server-side apply shared field, no conflict",
    steps: [
      setup("apply --server-side --field-manager=alice -f -", cm("cm")),
      apply(cm("cm"), "--server-side --field-manager=bob"),
      k("get cm cm -n $NS --show-managed-fields -o jsonpath={.metadata.managedFields[*].manager}"),
    ],
  },
  {
    name: "label and annotate",
    steps: [
      setup("create -f -", cm("cm")),
      k("label cm cm -n $NS tier=web"),
      k("label cm cm -n $NS tier=db"),
      k("label cm cm -n $NS tier=db --overwrite"),
      k("annotate cm cm -n $NS note=hi"),
      k("get cm cm -n $NS --show-labels"),
    ],
  },
  { name: "create from a generateName", steps: [k("create -f -", { stdin: cm("x").replace("  name: x\n", "  generateName: gen-\n") })] },
  {
    name: "create an existing object is 409 AlreadyExists",
    steps: [setup("create -f -", cm("cm")), { args: ["create", "-f", "-"], stdin: cm("cm") }],
  },
  {
    name: "dry-run=server create stores nothing",
    steps: [{ args: ["create", "--dry-run=server", "-o", "name", "-f", "-"], stdin: cm("dry") }, k("get cm dry -n $NS")],
  },
  { name: "delete", steps: [setup("create -f -", cm("cm")), k("delete cm cm -n $NS"), k("get cm cm -n $NS")] },
  { name: "delete a missing object", steps: [k("delete cm nope -n $NS")] },

  // get in every output form
  { name: "get table", steps: [setup("create -f -", cm("cm", { a: "1", b: "2" })), k("get cm cm -n $NS")] },
  { name: "get -o wide", steps: [setup("create -f -", cm("cm")), k("get cm cm -n $NS -o wide")] },
  { name: "get -o json", steps: [setup("create -f -", cm("cm", { a: "1" }, { app: "a" })), k("get cm cm -n $NS -o json")] },
  { name: "get -o yaml", steps: [setup("create -f -", cm("cm")), k("get cm cm -n $NS -o yaml")] },
  { name: "get -o name", steps: [setup("create -f -", cm("cm")), k("get cm cm -n $NS -o name")] },
  { name: "get -o jsonpath", steps: [setup("create -f -", cm("cm")), k("get cm cm -n $NS -o jsonpath={.metadata.name}={.data.a}")] },
  {
    name: "get -o custom-columns",
    steps: [setup("create -f -", cm("cm")), k("get cm cm -n $NS -o custom-columns=NAME:.metadata.name,A:.data.a,NS:.metadata.namespace")],
  },
  {
    name: "get service table and wide",
    steps: [setup("apply -f -", svc("web", "  selector: { app: web }\n")), k("get svc web -n $NS"), k("get svc web -n $NS -o wide")],
  },
  { name: "get service -o yaml (defaults)", steps: [setup("apply -f -", svc("web")), k("get svc web -n $NS -o yaml")] },
  {
    name: "get LoadBalancer service",
    steps: [
      setup("apply -f -", svc("lb", "  type: LoadBalancer\n")),
      k(
        "get svc lb -n $NS -o 'jsonpath={.spec.type} {.spec.ports[0].nodePort} {.spec.externalTrafficPolicy} {.spec.allocateLoadBalancerNodePorts}'",
      ),
    ],
  },
  {
    name: "get deployment -o yaml (defaults)",
    steps: [
      setup("apply -f -", deployment()),
      k(
        "get deployment web -n $NS -o 'jsonpath={.spec.strategy} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} {.spec.template.spec.restartPolicy} {.spec.template.spec.containers[0].imagePullPolicy} {.spec.template.spec.containers[0].terminationMessagePath}'",
      ),
    ],
  },
  { name: "get namespace", steps: [k("get ns $NS"), k("get ns $NS -o 'jsonpath={.status.phase} {.metadata.labels}'")] },
  {
    name: "get --sort-by and -L",
    steps: [
      setup("create -f -", cm("b", {}, { app: "x" })),
      setup("create -f -", cm("a", {}, { app: "y" })),
      k("get cm a b -n $NS --sort-by=.metadata.name -L app"),
    ],
  },
  {
    name: "get several kinds by name",
    steps: [setup("create -f -", cm("cm")), setup("apply -f -", svc("web")), k("get cm/cm svc/web -n $NS -o name")],
  },
  { name: "get a missing object", steps: [k("get cm nope -n $NS")] },
  { name: "get an unknown resource type", steps: [k("get frobnicators -n $NS")] },
  { name: "get --raw a missing object (Status body)", steps: [k("get --raw /api/v1/namespaces/$NS/configmaps/nope")] },

  // selectors
  {
    name: "label selector equality",
    steps: [
      setup("create -f -", cm("a", {}, { app: "a" })),
      setup("create -f -", cm("b", {}, { app: "b" })),
      k("get cm -n $NS -l app=a -o name"),
    ],
  },
  {
    name: "label selector set",
    steps: [
      setup("create -f -", cm("a", {}, { app: "a" })),
      setup("create -f -", cm("b", {}, { app: "b" })),
      setup("create -f -", cm("c", {}, { app: "c" })),
      k("get cm -n $NS -l 'app in (a,b)' -o name"),
      k("get cm -n $NS -l 'app notin (a)' -o name"),
    ],
  },
  {
    name: "label selector existence",
    steps: [
      setup("create -f -", cm("a", {}, { app: "a" })),
      setup("create -f -", cm("b", {}, { tier: "b" })),
      k("get cm -n $NS -l app -o name"),
      k("get cm -n $NS -l '!app,tier' -o name"),
    ],
  },
  { name: "label selector that does not parse", steps: [k("get cm -n $NS -l 'a b'")] },
  {
    name: "field selector metadata.name",
    steps: [setup("create -f -", cm("a")), setup("create -f -", cm("b")), k("get cm -n $NS --field-selector metadata.name=b -o name")],
  },
  { name: "field selector not supported", steps: [k("get cm -n $NS --field-selector data.a=1")] },
  {
    name: "field selector on secrets' type",
    steps: [setup("create secret generic s -n $NS --from-literal=a=b"), k("get secrets -n $NS --field-selector type=Opaque -o name")],
  },

  // watch
  {
    name: "watch from 0 lists then ends at its timeout",
    steps: [
      setup("create -f -", cm("a")),
      k("get --raw /api/v1/namespaces/$NS/configmaps?watch=1&timeoutSeconds=1&resourceVersion=0&fieldSelector=metadata.name%3Da"),
    ],
  },
  {
    name: "watch from a resourceVersion the server has not reached",
    steps: [k("get --raw /api/v1/namespaces/$NS/configmaps?watch=1&timeoutSeconds=1&resourceVersion=99999999")],
  },
  {
    name: "list NotOlderThan a resourceVersion the server has not reached is 504",
    steps: [k("get --raw /api/v1/namespaces/$NS/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan")],
  },
  {
    name: "resourceVersionMatch without resourceVersion is refused",
    steps: [k("get --raw /api/v1/namespaces/$NS/configmaps?resourceVersionMatch=NotOlderThan")],
  },

  // status subresource
  {
    name: "status written through the main resource is ignored",
    steps: [
      ...crdSteps,
      apply(widget("w", "{ color: red }").concat("status: { ready: true }\n")),
      k("get widget w -n $NS -o jsonpath={.status}"),
    ],
  },
  {
    name: "status subresource patch",
    steps: [
      ...crdSteps,
      setup("apply -f -", widget("w", "{ color: red }")),
      k(`patch widget w -n $NS --subresource=status --type merge -p {"status":{"ready":true}}`),
      k("get widget w -n $NS --subresource=status -o jsonpath={.status.ready}"),
    ],
  },
  {
    name: "service status subresource",
    steps: [
      setup("apply -f -", svc("lb")),
      k(`patch svc lb -n $NS --subresource=status --type merge -p {"status":{"loadBalancer":{"ingress":[{"hostname":"lb.example.com"}]}}}`),
      k("get svc lb -n $NS -o jsonpath={.status}"),
    ],
  },

  // CRD schema defaults and validation
  {
    name: "CRD default applied",
    steps: [...crdSteps, apply(widget("w", "{ color: red }")), k("get widget w -n $NS -o jsonpath={.spec}"), k("get widgets -n $NS")],
  },
  { name: "CRD enum refused", steps: [...crdSteps, apply(widget("w", "{ color: green }"))] },
  { name: "CRD required missing", steps: [...crdSteps, apply(widget("w", "{ size: big }"))] },
  { name: "CRD wrong type", steps: [...crdSteps, apply(widget("w", '{ color: red, count: "many" }'))] },
  { name: "CRD minimum, maxLength and pattern", steps: [...crdSteps, apply(widget("w", "{ color: red, count: 0, name: TOOLONG1 }"))] },
  {
    name: "CRD unknown field warned and dropped",
    steps: [...crdSteps, apply(widget("w", "{ color: red, shape: round }")), k("get widget w -n $NS -o jsonpath={.spec}")],
  },
  {
    name: "CRD unknown field refused under Strict",
    steps: [...crdSteps, apply(widget("w", "{ color: red, shape: round }"), "--validate=strict")],
  },

  // Endpoints and EndpointSlice validation
  { name: "Endpoints accepted", steps: [apply(endpoints("ok", ["192.0.2.10", "203.0.113.7"]))] },
  { name: "Endpoints loopback refused", steps: [apply(endpoints("lo", ["127.0.0.1"]))] },
  {
    name: "Endpoints link-local, multicast, unspecified refused",
    steps: [apply(endpoints("ll", ["169.254.1.1", "224.0.0.1", "0.0.0.0", "::1"]))],
  },
  { name: "Endpoints address that is no IP", steps: [apply(endpoints("bad", ["web.example.com"]))] },
  { name: "EndpointSlice accepted", steps: [apply(slice("ok", "IPv4", ["192.0.2.10"]))] },
  { name: "EndpointSlice loopback refused", steps: [apply(slice("lo", "IPv4", ["127.0.0.1"]))] },
  { name: "EndpointSlice IPv6 link-local refused", steps: [apply(slice("ll", "IPv6", ["fe80::1"]))] },
  { name: "EndpointSlice IPv4 slice holding an IPv6 address", steps: [apply(slice("fam", "IPv4", ["2001:db8::1"]))] },

  // Status bodies
  { name: "422 Invalid service port", steps: [apply(svc("bad").replace("port: 80", "port: 70000"))] },
  { name: "422 Invalid name", steps: [apply(cm("Bad_Name"))] },
  {
    name: "400 a body of the wrong kind",
    steps: [
      {
        args: ["create", "--raw", "/api/v1/namespaces/$NS/configmaps", "-f", "-"],
        stdin: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}',
      },
    ],
  },
  {
    name: "410 watch from a compacted resourceVersion",
    steps: [k("get --raw /api/v1/namespaces/$NS/configmaps?watch=1&timeoutSeconds=2&resourceVersion=2")],
  },

  // auth can-i
  { name: "auth can-i as the admin", steps: [k("auth can-i create configmaps -n $NS"), k("auth can-i '*' '*'")] },
  {
    name: "auth can-i as a ServiceAccount with nothing granted",
    steps: [k("auth can-i list pods -n $NS --as=system:serviceaccount:$NS:nobody")],
  },
  {
    name: "auth can-i after a RoleBinding",
    steps: [
      setup("create role reader -n $NS --verb=get,list --resource=configmaps"),
      setup("create rolebinding r -n $NS --role=reader --serviceaccount=$NS:bot"),
      k("auth can-i list configmaps -n $NS --as=system:serviceaccount:$NS:bot"),
      k("auth can-i delete configmaps -n $NS --as=system:serviceaccount:$NS:bot"),
    ],
  },

  // namespace deletion, ownerReference cascade
  {
    name: "namespace deletion removes what it holds",
    steps: [setup("create -f -", cm("cm")), k("delete ns $NS --wait=true --timeout=60s"), k("get cm -n $NS -o name"), k("get ns $NS")],
  },
  {
    name: "ownerReference cascade: the child goes with its owner",
    steps: [
      setup("create -f -", cm("parent")),
      parentUid,
      setup("create -f -", child),
      k("delete cm parent -n $NS"),
      k("get cm child -n $NS", { until: "NotFound" }),
    ],
  },
  {
    name: "ownerReference cascade=orphan keeps the child",
    steps: [
      setup("create -f -", cm("parent")),
      parentUid,
      setup("create -f -", child),
      k("delete cm parent -n $NS --cascade=orphan"),
      k("get cm child -n $NS -o 'jsonpath={.metadata.name} {.metadata.ownerReferences}'", { until: /^child $/ }),
    ],
  },
  { name: "objects in a missing namespace", steps: [{ args: ["create", "-f", "-"], stdin: cm("cm").replaceAll("$NS", "no-such-ns") }] },

  // controllers: slice mirroring of selector-less Endpoints, the endpoints of a selector Service
  {
    name: "selector-less Endpoints are mirrored to an EndpointSlice",
    steps: [
      setup("apply -f -", svc("ext")),
      setup("apply -f -", endpoints("ext", ["192.0.2.10"])),
      k(
        "get endpointslices -n $NS -l kubernetes.io/service-name=ext -o 'jsonpath={.items[*].endpoints[*].addresses} {.items[*].metadata.labels.endpointslice\\.kubernetes\\.io/managed-by} {.items[*].addressType}'",
        { until: "192.0.2.10" },
      ),
    ],
  },
  {
    name: "a selector Service with no Pods gets empty Endpoints",
    steps: [
      setup("apply -f -", svc("lonely", "  selector: { app: none }\n")),
      k("get endpoints lonely -n $NS -o jsonpath={.subsets}", { until: "" }),
    ],
  },

  // Leases
  { name: "Lease create and read", steps: [apply(lease), k("get lease lock -n $NS -o jsonpath={.spec}")] },
  {
    name: "Lease holder changed by patch",
    steps: [
      setup("apply -f -", lease),
      k(`patch lease lock -n $NS --type merge -p {"spec":{"holderIdentity":"b","leaseTransitions":1}}`),
      k("get lease lock -n $NS -o 'jsonpath={.spec.holderIdentity} {.spec.leaseTransitions}'"),
    ],
  },
  { name: "Lease with a bad duration", steps: [apply(lease.replace("leaseDurationSeconds: 15", "leaseDurationSeconds: -1"))] },
];
