// Mirror names a user chooses: a template per controller (`--mirror-name-template`, default Linkerd's `{service}-{cluster}`) and, per
// target Service, the annotation MIRROR_NAME_ANNOTATION (a template too, `{service}` not required). A name is never truncated: one that is
// no Service name (over 63 characters, or other characters) is a problem to report. Pure.
import * as v from "valibot";
import { HEADLESS_MIRROR_SVC_NAME, REMOTE_SVC_FQ_NAME } from "./labels.ts";
import { isDns1123Label } from "./names.ts";

/** Linkerd's mirror name: the target's name, a dash, the target cluster's name. */
export const DEFAULT_MIRROR_NAME_TEMPLATE = "{service}-{cluster}";
/** Annotation on a target Service: the name (a template) of its mirrors, over the controller's template. mc only. */
export const MIRROR_NAME_ANNOTATION = "mc-project.io/mirror-name";
/** What a template may say besides lowercase letters, digits and '-'. */
const PLACEHOLDERS = ["{service}", "{cluster}", "{namespace}"] as const;
const MAX_NAME = 63;

export interface NameParts {
  service: string;
  cluster: string;
  namespace: string;
}

/** The template with its placeholders filled in. */
export function fillTemplate(template: string, p: NameParts): string {
  return template.replaceAll("{service}", p.service).replaceAll("{cluster}", p.cluster).replaceAll("{namespace}", p.namespace);
}

/** The template's own characters (placeholders left out). */
const literal = (template: string) => PLACEHOLDERS.reduce((t, p) => t.replaceAll(p, ""), template);

/** Why a template can make no Service name, whatever it is filled with (undefined: it can). */
function templateProblem(template: string, o: { needService: boolean }): string | undefined {
  if (o.needService && !template.includes("{service}"))
    return "must contain {service} (the target Service's name), e.g. {service}-{cluster}";
  if (!/^[a-z0-9-]*$/.test(literal(template)) || /\{(?!service\}|cluster\}|namespace\})/.test(template))
    return "may hold only {service}, {cluster}, {namespace} and lowercase letters, digits and '-', e.g. {service}-{cluster}";
  if (literal(template).length + 1 > MAX_NAME)
    return `its own ${literal(template).length} characters leave no room for a name (a Service name has at most ${MAX_NAME}); shorten it`;
  return undefined;
}

/** `--mirror-name-template`: contains {service}, only known placeholders and name characters, and leaves room for a name. */
export const mirrorNameTemplate = v.pipe(
  v.string(),
  v.trim(),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? templateProblem(dataset.value, { needService: true }) : undefined;
    if (problem) addIssue({ message: problem });
  }),
);

/** Why no target of cluster `cluster` can get a name from `template` (its own characters and the cluster's fill 63): undefined when one can. */
export function templateFitsCluster(template: string, cluster: string): string | undefined {
  const fixed = literal(template).length + (template.split("{cluster}").length - 1) * cluster.length;
  if (fixed + 1 <= MAX_NAME) return undefined;
  return `with cluster ${cluster} its fixed part is ${fixed} characters, which leaves no room for a Service name (at most ${MAX_NAME}); shorten the template or the cluster name`;
}

/**
 * The mirror name of target Service `service` (namespace, name, annotations) from `cluster`, or
 * why it has none: the annotation's template when it has one, else `template`.
 */
export function mirrorNameOf(
  template: string,
  service: { name: string; namespace: string; annotations?: Record<string, string> },
  cluster: string,
): { name: string; problem?: string } {
  const own = service.annotations?.[MIRROR_NAME_ANNOTATION]?.trim();
  const parts = { service: service.name, cluster, namespace: service.namespace };
  if (own) {
    const bad = templateProblem(own, { needService: false });
    const name = fillTemplate(own, parts);
    if (bad)
      return {
        name,
        problem: `metadata.annotations[${MIRROR_NAME_ANNOTATION}]: ${JSON.stringify(own)} ${bad.replace(", e.g. {service}-{cluster}", "")}; fix the annotation`,
      };
    if (name.length > MAX_NAME)
      return {
        name,
        problem: `metadata.annotations[${MIRROR_NAME_ANNOTATION}]: the mirror name ${name} would be ${name.length} characters, more than the ${MAX_NAME} a Service name may have; shorten the annotation`,
      };
    if (!isDns1123Label(name))
      return {
        name,
        problem: `metadata.annotations[${MIRROR_NAME_ANNOTATION}]: the mirror name ${name} is no Service name (lowercase letters, digits, '-', starting and ending with a letter or digit); fix the annotation`,
      };
    return { name };
  }
  const name = fillTemplate(template, parts);
  if (name.length > MAX_NAME) {
    const room = MAX_NAME - (name.length - service.name.length * (template.split("{service}").length - 1));
    const how =
      template === DEFAULT_MIRROR_NAME_TEMPLATE ? "link the cluster under a shorter name" : "use a shorter --mirror-name-template";
    return {
      name,
      problem: `metadata.name: the mirror name ${name} would be ${name.length} characters, more than the ${MAX_NAME} a Service name may have; shorten the Service's name to at most ${Math.max(room, 0)} characters (or ${how})`,
    };
  }
  return { name };
}

/**
 * The target Service a mirror object stands for, from its `remote-svc-fq-name` annotation
 * (`<svc>.<ns>.svc.<domain>`; an endpoint mirror's is `<pod>.<svc>.<ns>.svc.<domain>`), never from
 * its name, which a template or an annotation may have chosen. Undefined: no such annotation.
 */
/** The local namespace of a target namespace's mirrors: `--namespace-map`'s, or its own name. */
export function localNamespace(map: Readonly<Record<string, string>>, targetNamespace: string): string {
  return Object.hasOwn(map, targetNamespace) ? map[targetNamespace]! : targetNamespace;
}

export function mirrorTarget(
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined,
): { namespace: string; name: string } | undefined {
  const fq = meta?.annotations?.[REMOTE_SVC_FQ_NAME];
  if (!fq) return undefined;
  const parts = fq.split(".");
  const i = meta?.labels?.[HEADLESS_MIRROR_SVC_NAME] ? 1 : 0;
  if (parts.length < i + 4 || parts[i + 2] !== "svc" || !parts[i] || !parts[i + 1]) return undefined;
  return { name: parts[i]!, namespace: parts[i + 1]! };
}
