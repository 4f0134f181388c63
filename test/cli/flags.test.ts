// One flag table per command: the same rows give citty its args and valibot its checks.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { defineFlags } from "../../src/cli/flags.ts";
import { durationFlag, namespaceFlag, outputFlag } from "../../src/cli/groups.ts";
import { UserError } from "../../src/errors.ts";

const flags = defineFlags(
  {
    "cluster-name": {
      type: "string",
      description: "Target cluster",
      schema: v.pipe(v.string("is required"), v.regex(/^[a-z]+$/, "must be lowercase letters")),
    },
    namespace: namespaceFlag("Where the Links are"),
    "gateway-port": { type: "string", default: "4143", description: "Port", schema: v.pipe(v.string(), v.transform(Number)) },
    wait: durationFlag({ alias: "w", default: "0s", description: "How long", message: "must be a duration such as 30s", min: 0 }),
    identity: { type: "string", description: "As given" },
    ha: { type: "boolean", default: false, description: "Three replicas" },
    output: outputFlag(["table", "json"]),
  },
  { command: "gateways", example: "--cluster-name east" },
);

describe("a flag table", () => {
  test("gives citty each flag's type, alias, default and help text (with its value's name and choices), and nothing of the checks", () => {
    expect(flags.args).toEqual({
      "cluster-name": { type: "string", description: "Target cluster" },
      namespace: { type: "string", default: "linkerd-multicluster", description: "Where the Links are" },
      "gateway-port": { type: "string", default: "4143", description: "Port" },
      wait: { type: "string", alias: "w", default: "0s", description: "How long", valueHint: "DURATION" },
      identity: { type: "string", description: "As given" },
      ha: { type: "boolean", default: false, description: "Three replicas" },
      output: { type: "string", alias: "o", default: "table", description: "Output format: table or json", choices: ["table", "json"] },
    });
  });

  test("parses into checked values under camelCase keys, a flag not given taking its default", () => {
    expect(flags.parse({ _: [], "cluster-name": "east", wait: " 2m " })).toEqual({
      clusterName: "east",
      namespace: "linkerd-multicluster",
      gatewayPort: 4143,
      wait: 120_000,
      identity: undefined,
      ha: false,
      output: "table",
    });
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["a missing required flag", {}, "--cluster-name: is required"],
    ["a bad value, named by its flag", { "cluster-name": "East" }, '--cluster-name: must be lowercase letters, got "East"'],
    [
      "a bad shared row",
      { "cluster-name": "east", namespace: "A" },
      `--namespace: must be a namespace name (lowercase letters, digits, '-'), got "A"`,
    ],
    ["a bad duration", { "cluster-name": "east", wait: "soon" }, '--wait: must be a duration such as 30s, got "soon"'],
    ["a choice not offered", { "cluster-name": "east", output: "yaml" }, '--output: must be one of table, json, got "yaml"'],
  ])("%s is one UserError naming the flag", (_what, args, message) => {
    expect(() => flags.parse(args)).toThrow(new UserError(message));
  });

  test("refuses an argument, saying the command takes flags only", () => {
    expect(() => flags.parse({ _: ["east"], "cluster-name": "east" })).toThrow(
      new UserError('unexpected argument "east": mc gateways takes flags only (e.g. --cluster-name east)'),
    );
    const plain = defineFlags({ output: outputFlag(["yaml", "json"]) }, { command: "uninstall" });
    expect(() => plain.parse({ _: ["x"] })).toThrow(new UserError('unexpected argument "x": mc uninstall takes flags only'));
  });

  test("takes as many arguments as it has positional rows, no more", () => {
    const serve = defineFlags(
      { link: { type: "positional", required: false, description: "Link" }, ha: { type: "boolean", default: true, description: "HA" } },
      { command: "serve" },
    );
    expect(serve.args.link).toEqual({ type: "positional", required: false, description: "Link" });
    expect(serve.parse({ _: ["east"], link: "east" })).toEqual({ link: "east", ha: true });
    expect(() => serve.parse({ _: ["east", "west"], link: "east" })).toThrow(
      new UserError('unexpected argument "west": mc serve takes only flags and LINK'),
    );
  });
});
