// The Link CRD from k8s/link-crd.yaml and the MCS API's from k8s/mcs-crds.yaml, imported as text so
// `bun build --compile` embeds them.
import YAML from "yaml";
import crdText from "../../k8s/link-crd.yaml" with { type: "text" };
import mcsText from "../../k8s/mcs-crds.yaml" with { type: "text" };
import { CREATED_BY, EXTENSION, EXTENSION_NAME } from "../model/labels.ts";
import type { LinkVersion } from "../model/names.ts";
import type { Manifest } from "./meta.ts";

/** The parsed CRD with its YAML anchors expanded into plain, unshared objects. */
const CRD: Manifest = JSON.parse(JSON.stringify(YAML.parse(crdText as string))) as Manifest;

/** The Link CRD, annotated with the tool that rendered it. A fresh copy each call. */
export function renderLinkCrd(createdBy: string): Manifest {
  const crd = structuredClone(CRD);
  crd.metadata.annotations = { ...crd.metadata.annotations, [CREATED_BY]: createdBy };
  return crd;
}

/** One version's openAPIV3Schema (for validating Links against what the API server enforces). */
export function linkSchema(version: LinkVersion): Record<string, unknown> {
  const versions = (CRD.spec as { versions: Array<{ name: string; schema: { openAPIV3Schema: Record<string, unknown> } }> }).versions;
  const found = versions.find((x) => x.name === version);
  if (!found) throw new Error(`the Link CRD has no version ${version}`);
  return structuredClone(found.schema.openAPIV3Schema);
}

/** The Multi-Cluster Services API's CRDs (k8s/mcs-crds.yaml): ServiceExport, then ServiceImport. */
const MCS_CRDS: Manifest[] = YAML.parseAllDocuments(mcsText as string).map((d) => JSON.parse(JSON.stringify(d.toJS())) as Manifest);

/** ServiceExport's and ServiceImport's CRDs as `mc install --mcs` renders them, labelled as mc's (so `mc uninstall` finds them). */
export function renderMcsCrds(createdBy: string): Manifest[] {
  return MCS_CRDS.map((crd) => {
    const out = structuredClone(crd);
    out.metadata.labels = { ...out.metadata.labels, [EXTENSION]: EXTENSION_NAME };
    out.metadata.annotations = { ...out.metadata.annotations, [CREATED_BY]: createdBy };
    return out;
  });
}
