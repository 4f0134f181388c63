// Empty selectors (docs/decisions.md#d27): an empty or impossible selector would silently delete every mirror. `mc link` refuses one unless
// --selector-allow-empty; `mc check` warns while a Link's controller reports that it selects nothing though its mirrors existed (the
// controller's side: test/serve/link-conditions.test.ts).
import { describe, expect, test } from "bun:test";
import { linksSelectServices } from "../../src/checker/checks/links.ts";
import { createCheckContext } from "../../src/checker/context.ts";
import { runChecks } from "../../src/checker/runner.ts";
import type { KubeClient } from "../../src/kube/index.ts";
import { impossibility, parseLabelSelector } from "../../src/model/selector.ts";
import { mc } from "../helpers/mc.ts";
import { link } from "../mirror/fixtures.ts";

const FIX = "give one such as mirror.linkerd.io/exported=true, or pass --selector-allow-empty if nothing is to be mirrored";
const linkWith = (...args: string[]) => mc(["--kubeconfig", "/nonexistent/kubeconfig", "link", "--cluster-name", "east", ...args]);

describe("mc link", () => {
  test.each<[string, string]>([
    [
      "",
      `error: --selector: "" selects no Service (an empty selector selects nothing, and the controller deletes every mirror of the link): ${FIX}\n`,
    ],
    [
      "  ",
      `error: --selector: "  " selects no Service (an empty selector selects nothing, and the controller deletes every mirror of the link): ${FIX}\n`,
    ],
    ["app in ()", `error: --selector: "app in ()" can match no Service (app in () lists no values): ${FIX}\n`],
    ["app=a,app=b", `error: --selector: "app=a,app=b" can match no Service (no value of app meets every requirement on it): ${FIX}\n`],
    ["app,!app", `error: --selector: "app,!app" can match no Service (app must both exist and not exist): ${FIX}\n`],
  ])("-l %p is refused in one line, before the target is read", async (selector, stderr) => {
    expect(await linkWith("-l", selector)).toEqual({ code: 1, stdout: "", stderr });
  });

  test("--selector-allow-empty lets it through (then the target is read: here there is none)", async () => {
    const r = await linkWith("-l", "", "--selector-allow-empty");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: kubeconfig /nonexistent/kubeconfig: no such file\n");
  });

  test("a selector that can match passes, and a link without a gateway does not use one", async () => {
    for (const args of [["-l", "mirror.linkerd.io/exported=true,app!=x"], ["--gateway=false"]]) {
      expect((await linkWith(...args)).stderr).toBe("error: kubeconfig /nonexistent/kubeconfig: no such file\n");
    }
  });
});

describe("impossibility", () => {
  test.each([
    ["a=x", undefined],
    ["a=x,a!=y", undefined],
    ["a in (x,y),a notin (x)", undefined],
    ["a in (x,y),a notin (x,y)", "no value of a meets every requirement on it"],
    ["a in (x),a=y", "no value of a meets every requirement on it"],
    ["a,!a", "a must both exist and not exist"],
    ["!a,a=x", "a must both exist and not exist"],
    ["a notin (x),!b", undefined],
  ])("%p: %p", (text, why) => {
    expect(impossibility(parseLabelSelector(text))).toBe(why);
  });
});

describe("mc check", () => {
  const selectsNothing = {
    type: "ServicesSelected",
    status: "False",
    reason: "SelectsNothing",
    message: "spec.selector matches no Service in east, though this Link's mirrors existed: they are deleted",
    lastTransitionTime: "2026-12-03T10:00:00Z",
  };
  const run = async (conditions: unknown[]) => {
    const ctx = createCheckContext({ local: undefined as unknown as KubeClient, linkerdNamespace: "linkerd" });
    ctx.links = [link({ status: { conditions } })];
    return (await runChecks([linksSelectServices], ctx)).results[0]!;
  };

  test("warns while a Link selects nothing though its mirrors existed, naming it and since when", async () => {
    expect(await run([selectsNothing])).toMatchObject({
      status: "warning",
      message: "Links that select nothing though their mirrors existed:",
      details: [`east: ${selectsNothing.message} (since 2026-12-03T10:00:00Z)`],
    });
  });

  test("passes when the Link selects, or never mirrored anything", async () => {
    expect((await run([{ ...selectsNothing, status: "True", reason: "Selected" }])).status).toBe("success");
    expect((await run([{ ...selectsNothing, reason: "NoneExported" }])).status).toBe("success");
    expect((await run([])).status).toBe("success");
  });
});
