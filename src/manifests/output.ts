// Manifest streams: YAML documents separated by `---` (what `kubectl apply -f -` reads) or one
// JSON `List` (`-o json`). Pure: returns the whole text, so a command prints once.
import YAML from "yaml";
import type { Manifest } from "./meta.ts";

export const OUTPUT_FORMATS = ["yaml", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The objects as one text: a YAML stream or a JSON `v1/List`, ending in a newline. */
export function formatManifests(objects: readonly Manifest[], format: OutputFormat): string {
  if (format === "json") return `${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2)}\n`;
  // No anchors/aliases for repeated sub-objects, long strings kept on one line (base64 data).
  return objects.map((o) => `---\n${YAML.stringify(o, { aliasDuplicateObjects: false, lineWidth: 0 })}`).join("");
}

/** Reads a YAML stream or JSON List back into objects (tests, and `mc` commands that take manifests). */
export function parseManifests(text: string): Manifest[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    const parsed = JSON.parse(trimmed) as Manifest & { items?: Manifest[] };
    return parsed.kind === "List" ? (parsed.items ?? []) : [parsed];
  }
  return YAML.parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
}
