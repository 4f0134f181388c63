// Writes per mirror in either form: with Endpoints, with `--mirror-endpoint-slices`, and with names a template chose.
import type { StoreEvent } from "../../src/sandbox/storage/watch-hub.ts";
import * as L from "../../src/model/labels.ts";
import { startMirroring } from "../lib/controller.ts";
import { seedExported, startPair, until } from "../lib/pair.ts";
import { numbers, say, size, type Scenario } from "../lib/scenario.ts";
import { ms } from "../lib/stats.ts";

// Writes per mirror in either form: N exported Services mirrored with Endpoints (Linkerd's form,
// the default), with `--mirror-endpoint-slices`, and with Endpoints under names a template chose
// (`--mirror-name-template`: names cost no write), and with `--namespace-selector` selecting half
// the namespaces (the other half's Services cost no write at all), counting every write west stores to the
// mirrors' Services, Endpoints and EndpointSlices — kube's EndpointSlice mirroring controller's
// included, which copies every mirror Endpoints into a slice. Done is what Linkerd's destination
// reads: every mirror has a slice, all ready (sync) or all not ready (a gateway liveness flip).
// Target: one write per mirror per change with slices.

const NAMESPACES = 10;
const KINDS = new Set(["Service", "Endpoints", "EndpointSlice"]);

type Form = "endpoints" | "slices" | "endpoints, named {cluster}-{service}" | "endpoints, --namespace-selector (half the namespaces)";
const HALF = "half=yes";

interface FormFigures {
  form: Form;
  n: number;
  syncWrites: number;
  /** Writes to namespaces the selector leaves out (0 expected). */
  unselectedWrites: number;
  downWrites: number;
  upWrites: number;
  downMs: number;
}

type Slice = { endpoints?: Array<{ conditions?: { ready?: boolean } }> };

async function measure(n: number, form: Form): Promise<FormFigures> {
  const slices = form === "slices";
  const scoped = form.includes("namespace-selector");
  const pair = await startPair({ namespaces: NAMESPACES, probePeriod: "3s" });
  try {
    // With the selector: ns-0 … ns-4 labelled half=yes in east, so half the exports are mirrored.
    const selected = (ns: string) => !scoped || Number(ns.slice(3)) < NAMESPACES / 2;
    if (scoped) {
      const nsType = pair.east.api.registry.findKind("v1", "Namespace")!;
      for (let i = 0; i < NAMESPACES / 2; i++) {
        const ns = pair.east.api.get(nsType, undefined, `ns-${i}`);
        pair.east.api.update(
          nsType,
          undefined,
          `ns-${i}`,
          { ...ns, metadata: { ...ns.metadata, labels: { half: "yes" } } },
          { fieldManager: "mc-bench" },
        );
      }
    }
    seedExported(pair.east, n, NAMESPACES);
    const mirrored = scoped ? Array.from({ length: n }, (_, i) => i).filter((i) => selected(`ns-${i % NAMESPACES}`)).length : n;
    let unselected = 0;
    // Every mirror's slices as west stores them (whoever manages them), and every write to a mirror object.
    const sliceState = new Map<string, Map<string, boolean | null>>();
    let writes = 0;
    const fires = new Set<() => void>();
    const off = pair.west.store.onCommit((e: StoreEvent) => {
      const meta = e.object.metadata;
      if (!meta.namespace?.startsWith("ns-") || !KINDS.has(e.object.kind ?? "")) return;
      if (!selected(meta.namespace)) unselected++;
      writes++;
      if (e.object.kind === "EndpointSlice") {
        const service = meta.labels?.[L.SLICE_SERVICE_NAME] ?? "";
        const of = sliceState.get(`${meta.namespace}/${service}`) ?? new Map<string, boolean | null>();
        const eps = (e.object as unknown as Slice).endpoints ?? [];
        if (e.type === "DELETED") of.delete(meta.name ?? "");
        // true: every endpoint ready; false: every one not ready; null: none, or some of each.
        else
          of.set(
            meta.name ?? "",
            eps.length === 0
              ? null
              : eps.every((x) => x.conditions?.ready === true)
                ? true
                : eps.every((x) => x.conditions?.ready !== true)
                  ? false
                  : null,
          );
        sliceState.set(`${meta.namespace}/${service}`, of);
      }
      for (const f of fires) f();
    });
    const on = (fire: () => void) => {
      fires.add(fire);
      return () => fires.delete(fire);
    };
    const all = (ready: boolean) => () => {
      if (sliceState.size < mirrored) return false;
      for (const of of sliceState.values()) if (of.size === 0 || [...of.values()].some((r) => r !== ready)) return false;
      return true;
    };
    const m = await startMirroring(pair, {
      mirrorEndpointSlices: slices,
      ...(form.includes("named") && { mirrorNameTemplate: "{cluster}-{service}" }),
      ...(scoped && { namespaceSelector: HALF }),
    });
    try {
      await until(all(true), [on], `${mirrored} mirrors with ready slices`, 60_000 + n * 30);
      await m.settle();
      const syncWrites = writes;
      const flip = async (alive: boolean) => {
        writes = 0;
        const t = performance.now();
        m.controller.setAlive(alive);
        await until(all(alive), [on], `${mirrored} mirrors' slices ${alive ? "" : "not "}ready`, 60_000 + n * 30);
        const wall = performance.now() - t;
        await m.settle();
        return { wall, writes };
      };
      const down = await flip(false);
      const up = await flip(true);
      const f: FormFigures = {
        form,
        n: mirrored,
        syncWrites: syncWrites / mirrored,
        unselectedWrites: unselected,
        downWrites: down.writes / mirrored,
        upWrites: up.writes / mirrored,
        downMs: down.wall,
      };
      say(
        `${size(n)} with ${f.form}: ${f.syncWrites.toFixed(2)} writes/mirror to sync, ${f.downWrites.toFixed(2)} per flip down (${ms(down.wall)} until every slice was not ready), ${f.upWrites.toFixed(2)} per flip up`,
      );
      return f;
    } finally {
      off();
      await m.stop();
    }
  } finally {
    await pair.stop();
  }
}

export const slices: Scenario = {
  name: "slices",
  diagnostic: true,
  title: "Writes per mirror: Endpoints (kube mirrors them into slices) against --mirror-endpoint-slices",
  flags: {
    sizes: { default: "200", description: "exported Services" },
  },
  async run(flags) {
    const results: FormFigures[] = [];
    const forms: Form[] = [
      "endpoints",
      "slices",
      "endpoints, named {cluster}-{service}",
      "endpoints, --namespace-selector (half the namespaces)",
    ];
    for (const n of numbers("sizes", flags.sizes!)) for (const form of forms) results.push(await measure(n, form));
    const sliced = results.filter((r) => r.form === "slices");
    const worst = Math.max(...sliced.flatMap((r) => [r.downWrites, r.upWrites]));
    const named = results.filter((r) => r.form.includes("named"));
    const plain = results.filter((r) => r.form === "endpoints");
    return {
      tables: [
        {
          headers: [
            "mirrors",
            "form",
            "writes/mirror: sync",
            "writes/mirror: flip down",
            "writes/mirror: flip up",
            "flip down → every slice not ready",
            "writes outside the selection",
          ],
          rows: results.map((r) => [
            size(r.n),
            r.form,
            r.syncWrites.toFixed(2),
            r.downWrites.toFixed(2),
            r.upWrites.toFixed(2),
            ms(r.downMs),
            String(r.unselectedWrites),
          ]),
        },
      ],
      targets: [
        {
          name: "writes per mirror per change, with slices",
          want: "1",
          got: worst.toFixed(2),
          met: sliced.every((r) => Math.abs(r.downWrites - 1) < 1e-9 && Math.abs(r.upWrites - 1) < 1e-9),
        },
        {
          name: "writes per mirror to sync, named by a template",
          want: "as Linkerd's names",
          got: named.map((r) => r.syncWrites.toFixed(2)).join(", "),
          met: named.every(
            (r, i) => Math.abs(r.syncWrites - plain[i]!.syncWrites) < 1e-9 && Math.abs(r.downWrites - plain[i]!.downWrites) < 1e-9,
          ),
        },
        {
          name: "writes to namespaces --namespace-selector leaves out",
          want: "0",
          got: String(Math.max(...results.filter((r) => r.form.includes("namespace-selector")).map((r) => r.unselectedWrites))),
          met: results
            .filter((r) => r.form.includes("namespace-selector"))
            .every((r) => r.unselectedWrites === 0 && Math.abs(r.syncWrites - plain[0]!.syncWrites) < 1e-9),
        },
      ],
      figures: { sizes: results },
      notes: [
        "Writes: every change west stores to the mirrors' Services, Endpoints and EndpointSlices, kube's EndpointSlice mirroring controller's included (the sandbox runs it as kube-controller-manager does).",
        "Done: every mirror has EndpointSlices and all their endpoints are ready (sync, flip up) or not ready (flip down): what Linkerd's destination reads.",
      ],
    };
  },
};
