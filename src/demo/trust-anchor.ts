// The identity trust anchor a stand-in Linkerd control plane advertises in linkerd-config: a self-signed ECDSA CA certificate named as
// Linkerd's docs name theirs (root.linkerd.cluster.local). `mc sandbox --linkerd --trust-anchor FILE` shares one between sandboxes: the
// first to start writes FILE, the others read it.
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { anchorSet } from "../checker/anchors.ts";
import { UserError } from "../errors.ts";
import { makeCA } from "../sandbox/http/tls.ts";

// The write is a hard link of a complete temporary file, so two sandboxes started at the same moment
// cannot both win, and none reads half a file.

export const TRUST_ANCHOR_CN = "root.linkerd.cluster.local";

/** A fresh anchor (PEM certificate; its key is not kept: a sandbox issues no workload certificates). */
export async function generateTrustAnchor(): Promise<string> {
  return (await makeCA(TRUST_ANCHOR_CN)).cert;
}

/** FILE's PEM bundle if it exists, else a new anchor written to FILE. `flag` names the flag in errors. */
export async function sharedTrustAnchor(file: string, flag = "--trust-anchor"): Promise<{ pem: string; created: boolean }> {
  const existing = await readIfExists(file, flag);
  if (existing !== undefined) return { pem: checked(existing, file, flag), created: false };
  const pem = await generateTrustAnchor();
  const temp = `${file}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temp, pem, { mode: 0o644 });
    await link(temp, file);
    return { pem, created: true };
  } catch (err) {
    // Another sandbox wrote it between our read and our link: use theirs.
    if (code(err) === "EEXIST") return { pem: checked((await readIfExists(file, flag)) ?? "", file, flag), created: false };
    throw new UserError(`${flag}: cannot write ${file} (${code(err) ?? "error"}): pass a path in a directory that exists and is writable`);
  } finally {
    await unlink(temp).catch(() => {});
  }
}

async function readIfExists(file: string, flag: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    if (code(err) === "ENOENT") return undefined;
    throw new UserError(
      `${flag}: cannot read ${file} (${code(err) ?? "error"}): pass a readable PEM file, or a path that does not exist yet to have one generated there`,
    );
  }
}

function checked(pem: string, file: string, flag: string): string {
  if (anchorSet(pem).size === 0) {
    throw new UserError(
      `${flag}: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----): pass Linkerd's trust anchor file, or a path that does not exist yet to have one generated there`,
    );
  }
  return pem;
}

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;
