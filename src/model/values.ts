// Valibot schemas for values people type on the command line (and the messages that say the
// fix): cluster names, ports, selectors, address lists, key lists. Each takes the flag's raw
// string and outputs the parsed value. Pure.
import * as v from "valibot";
import { isAddress, parsePort, splitList, unusableGatewayAddress } from "./address.ts";
import { isDns1123Label, isDns1123Subdomain, MAX_CLUSTER_NAME } from "./names.ts";
import { parseLabelSelector, SelectorError } from "./selector.ts";

/** A cluster name: a DNS-1123 label short enough for `probe-gateway-<name>`. */
export const clusterName = v.pipe(
  v.string("is required: the target cluster's name, e.g. --cluster-name east"),
  v.nonEmpty("is required: the target cluster's name, e.g. --cluster-name east"),
  v.check(isDns1123Label, "must be a DNS-1123 label (lowercase letters, digits, '-')"),
  v.maxLength(MAX_CLUSTER_NAME, `must be at most ${MAX_CLUSTER_NAME} characters (probe-gateway-<name> must fit in 63)`),
);

/** Comma-separated Link (target cluster) names, none twice: `mc install --controllers east,north`. */
export const clusterNameList = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const list = splitList(dataset.value).filter((n) => n !== "");
    const bad = list.find((n) => !isDns1123Label(n) || n.length > MAX_CLUSTER_NAME);
    const twice = list.find((n, i) => list.indexOf(n) !== i);
    if (bad === undefined && twice === undefined) return list;
    addIssue({
      message:
        bad !== undefined
          ? `must be comma-separated Link names (DNS-1123 labels, at most ${MAX_CLUSTER_NAME} characters), e.g. east,north; ${JSON.stringify(bad)} is not one`
          : `names ${twice} twice`,
    });
    return NEVER;
  }),
);

/** A namespace name. */
export const namespace = v.pipe(
  v.string(),
  v.nonEmpty("is required: a namespace name"),
  v.check(isDns1123Label, "must be a namespace name (lowercase letters, digits, '-')"),
);

/** An object name (ServiceAccount, Service). */
export const objectName = v.pipe(
  v.string(),
  v.nonEmpty("is required: an object name"),
  v.check(isDns1123Subdomain, "must be a DNS-1123 name (lowercase letters, digits, '-', '.')"),
);

/** A DNS domain such as cluster.local. */
export const domain = v.pipe(v.string(), v.check(isDns1123Subdomain, "must be a DNS domain such as cluster.local"));

/** A port 1–65535. */
export const port = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const n = parsePort(dataset.value.trim());
    if (n !== undefined) return n;
    addIssue({ message: "must be a port number from 1 to 65535" });
    return NEVER;
  }),
);

/** A port, or "" / "0" for "not set". */
export const optionalPort = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const text = dataset.value.trim();
    if (text === "" || text === "0") return undefined;
    const n = parsePort(text);
    if (n !== undefined) return n;
    addIssue({ message: "must be a port number from 1 to 65535" });
    return NEVER;
  }),
);

/** A whole number from `min` to `max`. */
export const wholeNumber = (min: number, what: string, max = 999_999) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,6}$/, `must be a whole number of ${what}`),
    v.transform(Number),
    v.minValue(min, `must be at least ${min} (${what})`),
    v.maxValue(max, `must be at most ${max} (${what})`),
  );

/** A label selector in kubectl's syntax; parsed. */
export const selector = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return parseLabelSelector(dataset.value);
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err;
      addIssue({ message: `${err.message} (use kubectl's selector syntax, e.g. mirror.linkerd.io/exported=true)` });
      return NEVER;
    }
  }),
);

/** `--namespace-selector`: a label selector in kubectl's syntax that parses, kept as written ("" = every namespace). */
export const namespaceSelector = v.pipe(
  v.string(),
  v.trim(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      parseLabelSelector(dataset.value);
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err;
      addIssue({ message: `${err.message} (use kubectl's selector syntax on the target's Namespace labels, e.g. team=payments)` });
    }
  }),
);

/** Comma-separated IPs or hostnames; "" = none. */
export const addressList = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    if (dataset.value.trim() === "") return [];
    const list = splitList(dataset.value);
    const bad = list.find((a) => !isAddress(a));
    const unusable = list.map(unusableGatewayAddress).find((m) => m !== undefined);
    if (bad === undefined && unusable === undefined) return list;
    addIssue({
      message:
        bad !== undefined
          ? `must be comma-separated IPs or hostnames, e.g. 203.0.113.10,gw.example.com; ${JSON.stringify(bad)} is neither`
          : unusable!,
    });
    return NEVER;
  }),
);

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?|\*)$/;

/** Comma-separated label/annotation keys, or `prefix/*` patterns; repeated flags add up. */
export const keyList = v.pipe(
  v.union([v.string(), v.array(v.string())]),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const list = [dataset.value]
      .flat()
      .flatMap(splitList)
      .filter((k) => k !== "");
    const bad = list.find((k) => !LABEL_KEY.test(k) || k === "*");
    if (bad === undefined) return list;
    addIssue({
      message: `must be comma-separated keys such as example.com/owner, or prefixes such as argocd.argoproj.io/*; ${JSON.stringify(bad)} is neither`,
    });
    return NEVER;
  }),
);

/** An http(s) URL (`--api-server-address`); "" = not set. */
export const serverUrl = v.pipe(
  v.string(),
  v.check((s) => s === "" || /^https?:\/\/[^\s/]+/.test(s), "must be an http(s) URL such as https://203.0.113.10:6443"),
  v.transform((s) => s.replace(/\/+$/, "") || undefined),
);

/** A container image reference. */
export const image = v.pipe(v.string(), v.regex(/^[^\s]+$/, "must be an image reference such as ghcr.io/mc-project/mc:0.1.0"));

/** One of a fixed set, with the choices in the message. */
export const oneOf = <const T extends string>(choices: readonly T[]) => v.picklist(choices as T[], `must be one of ${choices.join(", ")}`);

/** A fraction from 0 to 1, such as 0.1. */
export const fraction = () =>
  v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const text = dataset.value.trim();
      const n = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
      if (n >= 0 && n <= 1) return n;
      addIssue({ message: "must be a fraction from 0 to 1, e.g. 0.1" });
      return NEVER;
    }),
  );

/** The words Go's ParseBool (pflag, kubectl, linkerd) reads as true and as false. */
export const TRUE_WORDS: ReadonlySet<string> = new Set(["1", "t", "T", "TRUE", "true", "True"]);
export const FALSE_WORDS: ReadonlySet<string> = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** `mc link --controller`: a boolean as pflag reads it (true: the link's own controller, false: none), or `shared`. */
export const controllerChoice = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const s = dataset.value;
    if (TRUE_WORDS.has(s)) return "dedicated" as const;
    if (FALSE_WORDS.has(s)) return "none" as const;
    if (s === "shared") return "shared" as const;
    addIssue({ message: "must be true, false or shared" });
    return NEVER;
  }),
);

const QUANTITY = /^([+]?)(\d+(\.\d*)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+)?$/;
const SCALE: Record<string, number> = {
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes quantity's value (`512Mi` → 536870912, `100m` → 0.1); undefined when it is none. */
export function quantityValue(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const unit = m[4] ?? "";
  const scale = /^[eE]/.test(unit) ? 10 ** Number(unit.slice(1)) : SCALE[unit];
  return scale === undefined ? undefined : Number(m[2]) * scale;
}

/** A Kubernetes quantity (`100m`, `1`, `512Mi`), or "" for not set. */
export const quantity = (example: string) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.check((s) => s === "" || quantityValue(s) !== undefined, `must be a Kubernetes quantity such as ${example} (or empty: not set)`),
  );

/**
 * `--probe-address`: `host:port` (every Link served), or `LINK=host:port,...` (per Link); "" = none.
 * Resolves to a record by Link name ("" for every Link).
 */
export const probeAddressMap = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const out: Record<string, string> = {};
    if (dataset.value.trim() === "") return out;
    for (const entry of splitList(dataset.value)) {
      const eq = entry.indexOf("=");
      const link = eq < 0 ? "" : entry.slice(0, eq);
      const target = eq < 0 ? entry : entry.slice(eq + 1);
      const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(target);
      const host = m?.[1]?.replace(/^\[|\]$/g, "") ?? "";
      if (!m || !isAddress(host) || parsePort(m[2]!) === undefined || (eq >= 0 && !isDns1123Label(link)) || link in out) {
        addIssue({
          message: `must be host:port (every Link) or LINK=host:port,... (per Link), e.g. 127.0.0.1:4191; got ${JSON.stringify(entry)}`,
        });
        return NEVER;
      }
      out[link] = target;
    }
    return out;
  }),
);

/** `--namespace-map`: `from=to,…`, target namespace to local namespace; "" = none. Two targets never share a local namespace. */
export const namespaceMap = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const out: Record<string, string> = {};
    if (dataset.value.trim() === "") return out;
    const fail = (why: string) => {
      addIssue({ message: `${why} (use TARGET=LOCAL,... with namespace names, each local namespace once, e.g. shop=shop-east)` });
      return NEVER;
    };
    const locals = new Map<string, string>();
    for (const entry of splitList(dataset.value)) {
      const parts = entry.split("=");
      if (parts.length !== 2) return fail(`${JSON.stringify(entry)} is not a pair TARGET=LOCAL`);
      const [from, to] = parts as [string, string];
      const bad = [from, to].find((n) => !isDns1123Label(n));
      if (bad !== undefined)
        return fail(
          `${JSON.stringify(bad)} in ${JSON.stringify(entry)} is not a namespace name (lowercase letters, digits, '-', at most 63)`,
        );
      if (from in out) return fail(`target namespace ${from} is mapped twice`);
      const other = locals.get(to);
      if (other !== undefined) return fail(`${other} and ${from} are both mapped to ${to}`);
      locals.set(to, from);
      out[from] = to;
    }
    return out;
  }),
);

/** A `--namespace-map` as the flag takes it. */
export const formatNamespaceMap = (m: Readonly<Record<string, string>>): string =>
  Object.entries(m)
    .map(([from, to]) => `${from}=${to}`)
    .join(",");

/** A string flag whose "" means unset (undefined), else checked by `schema`. */
export const unlessEmpty = <S extends v.GenericSchema<string, unknown>>(schema: S) =>
  v.pipe(
    v.optional(v.string()),
    v.transform((s) => s || undefined),
    v.optional(schema),
  );
