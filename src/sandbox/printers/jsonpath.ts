// JSONPath: the subset of k8s.io/client-go/util/jsonpath that printer columns use.

const isRec = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A path that could not be parsed. */
export class JsonPathError extends Error {
  constructor(path: string, why: string) {
    super(`invalid JSONPath ${JSON.stringify(path)}: ${why}`);
    this.name = "JsonPathError";
  }
}

type Operand = { kind: "literal"; value: string | number | boolean | null } | { kind: "path"; root: "@" | "$"; segs: Segment[] };
type Segment =
  | { t: "field"; name: string }
  | { t: "recursive" }
  | { t: "wildcard" }
  | { t: "union"; items: (number | string)[] }
  | { t: "slice"; start?: number; end?: number; step?: number }
  | { t: "filter"; left: Operand & { kind: "path" }; op?: "==" | "!=" | "<" | "<=" | ">" | ">="; right?: Operand };

/** A parsed path, reusable across objects. */
export interface JsonPath {
  source: string;
  segs: Segment[];
}

const FIELD_END = new Set([".", "[", "]", "(", ")", ",", " ", "\t", "=", "!", "<", ">", "&", "|", "{", "}"]);

/**
 * Parses a JSONPath as CRD printer columns write it: `.spec.x`, `{.spec.x}`, `$.spec.x`,
 * `..name`, `.*`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `['a.b']`, `[0,2]`, `[?(@.type=="Ready")]`,
 * `[?(@.port > 80)]`, `[?(@.name)]`, and `\.` for a dot inside a field name.
 */
export function parseJsonPath(path: string): JsonPath {
  let s = path.trim();
  if (s.startsWith("{") && s.endsWith("}")) s = s.slice(1, -1).trim();
  const p = new PathParser(path, s);
  if (p.peek() === "$") p.i++;
  const segs = p.segments(false);
  if (p.i < s.length) throw new JsonPathError(path, `unexpected ${JSON.stringify(s[p.i])} at ${p.i}`);
  return { source: path, segs };
}

class PathParser {
  i = 0;
  constructor(
    private readonly original: string,
    private readonly s: string,
  ) {}

  peek(offset = 0): string | undefined {
    return this.s[this.i + offset];
  }

  fail(why: string): never {
    throw new JsonPathError(this.original, why);
  }

  /** Segments until the end, or (inside a filter) until an operator, space or ')'. */
  segments(inFilter: boolean): Segment[] {
    const segs: Segment[] = [];
    while (this.i < this.s.length) {
      const c = this.peek();
      if (c === ".") {
        if (this.peek(1) === ".") {
          this.i += 2;
          segs.push({ t: "recursive" });
          if (this.peek() === "[") continue;
        } else {
          this.i++;
          if (this.i >= this.s.length || (inFilter && FIELD_END.has(this.peek()!))) continue; // "." alone: the current node
        }
        if (this.peek() === "*") {
          this.i++;
          segs.push({ t: "wildcard" });
        } else {
          const name = this.field();
          if (name === "") this.fail(`expected a field name at ${this.i}`);
          segs.push({ t: "field", name });
        }
      } else if (c === "[") {
        segs.push(this.bracket());
      } else if (inFilter) {
        break;
      } else {
        this.fail(`unexpected ${JSON.stringify(c)} at ${this.i}; a path starts with "."`);
      }
    }
    return segs;
  }

  field(): string {
    let name = "";
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === "\\" && this.i + 1 < this.s.length) {
        name += this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (FIELD_END.has(c)) break;
      name += c;
      this.i++;
    }
    return name;
  }

  bracket(): Segment {
    this.i++; // [
    this.skipSpace();
    if (this.peek() === "?") {
      this.i++;
      this.skipSpace();
      if (this.peek() !== "(") this.fail(`expected "(" after "?" at ${this.i}`);
      this.i++;
      const seg = this.filter();
      this.skipSpace();
      if (this.peek() !== ")") this.fail(`expected ")" at ${this.i}`);
      this.i++;
      this.expectClose();
      return seg;
    }
    if (this.peek() === "*") {
      this.i++;
      this.expectClose();
      return { t: "wildcard" };
    }
    // slice or union
    const items: (number | string | undefined)[] = [];
    const seps: string[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.peek();
      if (c === "'" || c === '"') items.push(this.quoted());
      else if (c !== undefined && /[-+0-9]/.test(c)) items.push(this.number(true) as number);
      else items.push(undefined);
      this.skipSpace();
      const sep = this.peek();
      if (sep === "," || sep === ":") {
        seps.push(sep);
        this.i++;
        continue;
      }
      break;
    }
    this.expectClose();
    if (seps.includes(":")) {
      if (seps.includes(",") || items.length > 3 || items.some((v) => typeof v === "string")) this.fail("bad slice");
      const [start, end, step] = items as (number | undefined)[];
      if (step !== undefined && step <= 0) this.fail("slice step must be positive");
      return { t: "slice", start, end, step };
    }
    if (items.some((v) => v === undefined)) this.fail("empty subscript");
    return { t: "union", items: items as (number | string)[] };
  }

  filter(): Segment {
    this.skipSpace();
    const left = this.operand();
    if (left.kind !== "path") this.fail("a filter must start with @ or $");
    this.skipSpace();
    const op = ["==", "!=", "<=", ">=", "<", ">"].find((o) => this.s.startsWith(o, this.i)) as
      | "=="
      | "!="
      | "<"
      | "<="
      | ">"
      | ">="
      | undefined;
    if (!op) return { t: "filter", left };
    this.i += op.length;
    this.skipSpace();
    return { t: "filter", left, op, right: this.operand() };
  }

  operand(): Operand {
    const c = this.peek();
    if (c === "@" || c === "$") {
      this.i++;
      return { kind: "path", root: c, segs: this.segments(true) };
    }
    if (c === "'" || c === '"') return { kind: "literal", value: this.quoted() };
    if (c !== undefined && /[-+0-9]/.test(c)) return { kind: "literal", value: this.number(false) };
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return { kind: "literal", value };
      }
    }
    return this.fail(`unexpected ${JSON.stringify(c ?? "end")} in filter at ${this.i}`);
  }

  quoted(): string {
    const q = this.s[this.i++];
    let out = "";
    while (this.i < this.s.length && this.s[this.i] !== q) {
      if (this.s[this.i] === "\\" && this.i + 1 < this.s.length) this.i++;
      out += this.s[this.i++];
    }
    if (this.i >= this.s.length) this.fail("unterminated string");
    this.i++;
    return out;
  }

  number(integer: boolean): number {
    const m = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (!m) this.fail(`expected a number at ${this.i}`);
    const value = Number(m[0]);
    if (integer && !Number.isInteger(value)) this.fail(`expected an integer at ${this.i}`);
    this.i += m[0].length;
    return value;
  }

  skipSpace(): void {
    while (this.peek() === " " || this.peek() === "\t") this.i++;
  }

  expectClose(): void {
    this.skipSpace();
    if (this.peek() !== "]") this.fail(`expected "]" at ${this.i}`);
    this.i++;
  }
}

/**
 * The first value `path` selects in `obj`, or undefined when it selects nothing — what a CRD
 * printer column shows (kube prints only the first match, so `.spec.ports[*].port` gives the
 * first port). Throws JsonPathError for a path that does not parse.
 */
export function evalJsonPath(obj: unknown, path: string): unknown {
  return evalParsed(obj, parseJsonPath(path))[0];
}

/** Every value `path` selects in `obj`, in document order. */
export function evalJsonPathAll(obj: unknown, path: string): unknown[] {
  return evalParsed(obj, parseJsonPath(path));
}

/** Every value a parsed `path` selects in `root`, in document order. */
export function evalParsed(root: unknown, path: JsonPath): unknown[] {
  return walk([root], path.segs, root);
}

function walk(start: unknown[], segs: Segment[], root: unknown): unknown[] {
  let cur = start;
  for (const seg of segs) {
    cur = seg.t === "recursive" ? cur.flatMap(selfAndDescendants) : cur.flatMap((v) => step(v, seg, root));
  }
  return cur;
}

function selfAndDescendants(v: unknown): unknown[] {
  const out: unknown[] = [v];
  if (Array.isArray(v)) for (const x of v) out.push(...selfAndDescendants(x));
  else if (isRec(v)) for (const x of Object.values(v)) out.push(...selfAndDescendants(x));
  return out;
}

function step(v: unknown, seg: Exclude<Segment, { t: "recursive" }>, root: unknown): unknown[] {
  switch (seg.t) {
    case "field":
      return isRec(v) && Object.hasOwn(v, seg.name) ? [v[seg.name]] : [];
    case "wildcard":
      return Array.isArray(v) ? v : isRec(v) ? Object.values(v) : [];
    case "union": {
      const out: unknown[] = [];
      for (const item of seg.items) {
        if (typeof item === "number" && Array.isArray(v)) {
          const idx = item < 0 ? v.length + item : item;
          if (idx >= 0 && idx < v.length) out.push(v[idx]);
        } else if (typeof item === "string" && isRec(v) && Object.hasOwn(v, item)) {
          out.push(v[item]);
        }
      }
      return out;
    }
    case "slice": {
      if (!Array.isArray(v)) return [];
      const n = v.length;
      const norm = (x: number | undefined, dflt: number) => (x === undefined ? dflt : x < 0 ? Math.max(0, n + x) : Math.min(n, x));
      const start = norm(seg.start, 0);
      const end = norm(seg.end, n);
      const out: unknown[] = [];
      for (let i = start; i < end; i += seg.step ?? 1) out.push(v[i]);
      return out;
    }
    case "filter": {
      if (!Array.isArray(v)) return [];
      return v.filter((el) => {
        const lefts = operandValues(seg.left, el, root);
        if (!seg.op) return lefts.length > 0;
        if (lefts.length !== 1) return false;
        const rights = operandValues(seg.right!, el, root);
        if (rights.length !== 1) return false;
        return compare(lefts[0], seg.op, rights[0]);
      });
    }
  }
}

function operandValues(o: Operand, current: unknown, root: unknown): unknown[] {
  if (o.kind === "literal") return [o.value];
  return walk([o.root === "@" ? current : root], o.segs, root);
}

function compare(a: unknown, op: "==" | "!=" | "<" | "<=" | ">" | ">=", b: unknown): boolean {
  switch (op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
  }
  const ordered = (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
  if (!ordered) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
}
