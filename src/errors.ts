// User-facing errors: one line that says what is wrong and how to fix it, never a secret.

/** An error the user can fix; its message is printed as is, without a stack. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

const SECRET_PATTERNS: RegExp[] = [
  /(bearer\s+)[A-Za-z0-9._~+/=-]+/gi,
  // Not inside a word, path or flag: `…/serviceaccount/token: no such file`, `./east.kubeconfig: no
  // such file` and `--kubeconfig: needs a value` name a file or a flag, not a secret.
  /(?<![\w./\\-])("?(?:token|client-key-data|client-certificate-data|password|kubeconfig)"?\s*[:=]\s*)("[^"]*"|[^\s,}]+)/gi,
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g, // JWTs (service-account tokens)
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Text without one of these words cannot match SECRET_PATTERNS (one scan, not four, per log line). */
const MAY_HOLD_SECRET = /bearer|token|client-key-data|client-certificate-data|password|kubeconfig|eyJ|-----BEGIN/i;

/** Removes anything that looks like a credential from a text meant for a log or an error. */
export function redact(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_m, prefix: string | undefined) =>
      typeof prefix === "string" && !prefix.startsWith("-----") ? `${prefix}<redacted>` : "<redacted>",
    );
  }
  return out;
}

/** One line for any thrown value: the message only, redacted, newlines folded. */
export function formatError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (
    redact(message)
      .replace(/\s*\n\s*/g, " ")
      .trim() || "unknown error"
  );
}
