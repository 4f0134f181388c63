// What the docs tests read out of Markdown: the paths a page names (link targets and code spans
// that look like repository paths), the anchors a page offers, and the repository's file list.
import { Glob } from "bun";
import { dirname, join, normalize, relative } from "node:path";

export const ROOT = join(import.meta.dir, "../..");

/** Folders that are never part of the tree a doc may name: installed, built or scratch output. */
const UNTRACKED = new Set([".git", "node_modules", "dist", ".scratch"]);
/** Extensions that make a code span a file name even without a folder (`view.ts`, `bun.lock`). */
const FILE_EXTENSIONS = /\.(ts|md|ya?ml|json|toml|lock)$/;

/** Every file of the repository (relative, `/`-separated), without installed or built output. */
export function repoFiles(): string[] {
  const files: string[] = [];
  for (const rel of new Glob("**/*").scanSync({ cwd: ROOT, dot: true, onlyFiles: true })) {
    if (UNTRACKED.has(rel.split("/")[0]!)) continue;
    files.push(rel);
  }
  return files;
}

/** The page with its fenced code blocks (commands and examples, not references) blanked, lines kept. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ""));
}

export interface Reference {
  /** 1-based line of the page. */
  line: number;
  /** As written. */
  text: string;
  /** A Markdown link target (relative to the page) or a code span (relative to the repository). */
  kind: "link" | "code";
}

/** Link targets and code spans of a page, outside fenced blocks. */
export function references(text: string): Reference[] {
  const out: Reference[] = [];
  prose(text)
    .split("\n")
    .forEach((lineText, i) => {
      const line = i + 1;
      for (const m of lineText.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ line, text: m[1]!, kind: "link" });
      for (const m of lineText.matchAll(/`([^`\n]+)`/g)) out.push({ line, text: m[1]!, kind: "code" });
    });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a page offers: explicit `<a id>` and `id=` attributes, and its headings' slugs. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/\bid="([^"]+)"/g)) found.add(m[1]!);
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+)$/gm)) found.add(slug(m[1]!));
  return found;
}

export interface PathCheck {
  /** Repository-relative path to look for, or a glob when it has `*`. */
  path: string;
  /** How to look: exactly, or as the end of some file's path (a name relative to a folder the page implies). */
  match: "exact" | "suffix";
  anchor?: string;
}

/**
 * Which file a reference names, if it names one. A link is relative to its page; a code span is
 * a path when it starts with a top-level folder of the repository or ends with a file extension
 * (then, without a top-level folder, it is matched as the end of some path). `<placeholder>`s
 * become globs; URLs, label keys and API paths are not paths.
 */
export function pathOf(ref: Reference, page: string, topLevel: Set<string>): PathCheck | undefined {
  const [target, anchor] = ref.text.split("#", 2) as [string, string | undefined];
  if (ref.kind === "link") {
    if (/^[a-z][a-z0-9+.-]*:/i.test(ref.text)) return undefined; // https:, mailto:
    const path = target === "" ? page : normalize(join(dirname(page), target));
    return { path, match: "exact", ...(anchor !== undefined && { anchor }) };
  }
  if (/\s|:\/\/|\$/.test(target) || target === "") return undefined;
  const path = target.replace(/^\.\//, "").replace(/<[^>]*>/g, "*");
  const first = path.split("/")[0]!;
  if (path.includes("/") && topLevel.has(first)) return { path, match: "exact", ...(anchor !== undefined && { anchor }) };
  if (FILE_EXTENSIONS.test(path) && /^([\w.*@-]+\/)*[\w*@-][\w.*@-]*$/.test(path)) {
    return { path, match: path.includes("/") || !topLevel.has(path) ? "suffix" : "exact", ...(anchor !== undefined && { anchor }) };
  }
  return undefined;
}

/** Whether a path check finds something among the repository's files (and their folders). */
export function exists(check: PathCheck, files: string[]): boolean {
  const wanted = check.path.replace(/\/$/, "");
  if (wanted.includes("*") || wanted.includes("{")) {
    const glob = new Glob(check.match === "suffix" ? `**/${wanted}` : wanted);
    return files.some((f) => glob.match(f) || dirsOf(f).some((d) => glob.match(d)));
  }
  if (check.match === "exact") return files.some((f) => f === wanted || f.startsWith(`${wanted}/`));
  return files.some((f) => f === wanted || f.endsWith(`/${wanted}`));
}

function dirsOf(file: string): string[] {
  const parts = file.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** A page's path relative to the repository. */
export const fromRoot = (abs: string): string => relative(ROOT, abs);
