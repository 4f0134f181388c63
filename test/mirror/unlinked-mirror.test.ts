// `mc unlink | kubectl delete -f -` deletes the Link, then its mirrors, while the controller may still run (its Pod is going, or
// `mc serve` by hand): a controller not yet told its Link is gone must not make those mirrors again (D181). Here no supervisor
// tells it: the controller sees only the mirrors go.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { resources } from "../../src/kube/index.ts";
import { linkResource } from "../../src/model/link.ts";
import { recordingLog } from "../kube/helpers.ts";
import { remoteEndpoints, remoteService } from "./fixtures.ts";
import { startPair, type Pair } from "../helpers/clusters.ts";
import { cached, read, startController } from "./harness.ts";

let pair: Pair;
beforeEach(async () => {
  pair = await startPair();
});
afterEach(() => pair.stop());

async function mirrored() {
  const log = recordingLog();
  const ctl = await startController(pair, { probe: null }, { log });
  const svc = await pair.eastClient.create(resources.service, remoteService());
  const ep = await pair.eastClient.create(resources.endpoints, remoteEndpoints());
  await cached(ctl.informers.remoteServices, svc);
  await cached(ctl.informers.remoteEndpoints, ep);
  await ctl.drain();
  const service = read(pair.west, "services", "ns1", "service-one-east")!;
  const endpoints = read(pair.west, "endpoints", "ns1", "service-one-east")!;
  expect(service).toBeDefined();
  expect(endpoints).toBeDefined();
  return { ctl, log, service, endpoints };
}

/** Deletes the mirror as kubectl does unlink's list: its Endpoints, then its Service; waits until the controller's caches saw both go. */
async function deleteMirror(m: Awaited<ReturnType<typeof mirrored>>) {
  await pair.westClient.delete(resources.endpoints, "ns1", "service-one-east");
  await pair.westClient.delete(resources.service, "ns1", "service-one-east");
  await cached(m.ctl.informers.endpoints, m.endpoints, true);
  await cached(m.ctl.informers.services, m.service, true);
  await m.ctl.drain();
}

test("mirrors deleted after their Link (mc unlink's order), before the controller is told, are not made again", async () => {
  const m = await mirrored();
  await pair.westClient.delete(linkResource, m.ctl.link.namespace, m.ctl.link.name);
  await deleteMirror(m);
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeUndefined();
  expect(read(pair.west, "endpoints", "ns1", "service-one-east")).toBeUndefined();
  expect(m.log.at("info")).toContain(`Link ${m.ctl.link.namespace}/${m.ctl.link.name} is gone: mirrors deleted since are not made again`);
});

test("a Link deleted and made again under its name (another uid) is not this controller's: the mirrors stay deleted", async () => {
  const m = await mirrored();
  const link = await pair.westClient.get(linkResource, m.ctl.link.namespace, m.ctl.link.name);
  await pair.westClient.delete(linkResource, m.ctl.link.namespace, m.ctl.link.name);
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _c, ...metadata } = link.metadata;
  await pair.westClient.create(linkResource, { ...link, metadata });
  await deleteMirror(m);
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeUndefined();
});

test("mirrors someone deletes while their Link stands are made again", async () => {
  const m = await mirrored();
  await deleteMirror(m);
  expect(read(pair.west, "services", "ns1", "service-one-east")).toBeDefined();
  expect(read(pair.west, "endpoints", "ns1", "service-one-east")).toBeDefined();
});
