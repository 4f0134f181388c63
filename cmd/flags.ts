// Flag validation with valibot: the first problem becomes one line naming the flag and the fix.
import * as v from "valibot";
import { UserError } from "../src/errors.ts";

export function parseFlags<S extends v.GenericSchema>(schema: S, input: Record<string, unknown>): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = issue.path?.map((p) => String(p.key)).join(".") ?? "";
  const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const got = issue.input === undefined ? "" : `, got ${JSON.stringify(issue.input)}`;
  throw new UserError(`${flag}: ${issue.message}${got}`);
}
