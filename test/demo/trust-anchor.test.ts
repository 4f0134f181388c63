// The trust anchor `mc sandbox --linkerd --trust-anchor FILE` shares: written once by whichever
// sandbox comes first, read by the others, never two different anchors for one file.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { anchorSet } from "../../src/checker/anchors.ts";
import { generateTrustAnchor, sharedTrustAnchor, TRUST_ANCHOR_CN } from "../../src/demo/trust-anchor.ts";
import { UserError } from "../../src/errors.ts";

const dir = () => mkdtempSync(join(tmpdir(), "mc-anchor-"));

describe("trust anchors for sandboxes", () => {
  test("a generated anchor is one self-signed CA certificate named as Linkerd's docs name theirs", async () => {
    const pem = await generateTrustAnchor();
    expect(anchorSet(pem).size).toBe(1);
    expect(pem).not.toContain("PRIVATE KEY");
    const cert = new X509Certificate(pem);
    expect(cert.subject).toBe(`CN=${TRUST_ANCHOR_CN}`);
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.ca).toBe(true);
    expect(await generateTrustAnchor()).not.toBe(pem);
  });

  test("a missing file is generated and written; the next caller reads the same anchor", async () => {
    const file = join(dir(), "anchor.pem");
    const first = await sharedTrustAnchor(file);
    expect(first.created).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(first.pem);
    const second = await sharedTrustAnchor(file);
    expect(second).toEqual({ pem: first.pem, created: false });
  });

  test("callers racing on one missing file all get the one anchor that was written, and leave no temporary files", async () => {
    const d = dir();
    const file = join(d, "anchor.pem");
    const results = await Promise.all(Array.from({ length: 6 }, () => sharedTrustAnchor(file)));
    expect(new Set(results.map((r) => r.pem)).size).toBe(1);
    expect(results.filter((r) => r.created).length).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(results[0]!.pem);
    expect(readdirSync(d)).toEqual(["anchor.pem"]);
  });

  test("an existing bundle is used as it is (several anchors, as during a rotation)", async () => {
    const file = join(dir(), "bundle.pem");
    const bundle = (await generateTrustAnchor()) + (await generateTrustAnchor());
    writeFileSync(file, bundle);
    expect(await sharedTrustAnchor(file)).toEqual({ pem: bundle, created: false });
  });

  test("a file without a certificate, an unreadable file and an unwritable place are one line naming the flag", async () => {
    const d = dir();
    writeFileSync(join(d, "junk.pem"), "not a certificate\n");
    await expect(sharedTrustAnchor(join(d, "junk.pem"))).rejects.toThrow(
      new UserError(
        `--trust-anchor: ${join(d, "junk.pem")} holds no PEM certificate (-----BEGIN CERTIFICATE-----): pass Linkerd's trust anchor file, or a path that does not exist yet to have one generated there`,
      ),
    );
    await expect(sharedTrustAnchor(join(d, "no-such-dir", "a.pem"))).rejects.toThrow(
      `--trust-anchor: cannot write ${join(d, "no-such-dir", "a.pem")} (ENOENT): pass a path in a directory that exists and is writable`,
    );
    await expect(sharedTrustAnchor(d)).rejects.toThrow(`--trust-anchor: cannot read ${d} (EISDIR)`);
    if (process.getuid?.() !== 0) {
      const locked = join(d, "locked.pem");
      writeFileSync(locked, await generateTrustAnchor());
      chmodSync(locked, 0);
      await expect(sharedTrustAnchor(locked)).rejects.toThrow(`--trust-anchor: cannot read ${locked} (EACCES)`);
    }
  });
});
