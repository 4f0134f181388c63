// The MCS API's conformance suite (kubernetes-sigs/mcs-api v0.5, conformance/service_import.go and endpoint_slice.go), one test per
// upstream case and named after it, on two sandboxes or, with MC_BACKEND=real, two real kube-apiservers (conformance-kit.ts says how the
// suite is set up). The DNS and connectivity cases need CoreDNS's multicluster plugin and a data plane: not here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isIP } from "node:net";
import { resources } from "../../src/kube/index.ts";
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_SOURCE_CLUSTER } from "../../src/mcs/api.ts";
import { BACKEND, realUnavailable } from "../real/backend.ts";
import {
  consistently,
  eventually,
  hasKeyValues,
  helloServiceName,
  notHasKeyValues,
  sortMCSPorts,
  startSuite,
  TestDriver,
  toMCSPorts,
  TwoClusterTestDriver,
  type Suite,
} from "./conformance-kit.ts";

const skip = realUnavailable;
const named = (name: string) => `${name} [${BACKEND}]${skip ? ` (skipped: ${skip})` : ""}`;
const SLOW = 90_000;
/** The Kubernetes EndpointSlice controller's name: an MCS EndpointSlice must not claim it. */
const K8S_ENDPOINT_SLICE_MANAGED_BY = "endpointslice-controller.k8s.io";

let suite: Suite;

beforeAll(async () => {
  if (!skip) suite = await startSuite();
}, 180_000);

afterAll(async () => {
  await suite?.stop();
}, 60_000);

/** One upstream case: fresh objects, the test's own changes, the suite's set-up, the body, the clean-up. */
function spec<D extends TestDriver>(name: string, make: (s: Suite) => D, body: (t: D) => Promise<void>, before?: (t: D) => void) {
  test.skipIf(!!skip)(
    named(name),
    async () => {
      const t = make(suite);
      t.reset();
      before?.(t);
      try {
        await t.setUp();
        await body(t);
      } finally {
        await t.tearDown();
      }
    },
    SLOW,
  );
}

const one = (s: Suite) => new TestDriver(s);
const two = (s: Suite) => new TwoClusterTestDriver(s);

describe(named("ServiceImport (service_import.go)"), () => {
  spec("A ServiceImport should only exist as long as there's at least one exporting cluster", one, async (t) => {
    const [c0, c1] = t.clients as [(typeof t.clients)[0], (typeof t.clients)[0]];
    await t.awaitServiceImport(c0, t.helloService.metadata.name);
    await t.deployHelloService(c1, t.helloService);
    await t.createServiceExport(c1, t.helloServiceExport);
    await t.ensureServiceImport(
      c0,
      t.helloService.metadata.name,
      `the ServiceImport no longer exists after exporting on cluster "${c1.name}"`,
    );
    await t.deleteServiceExport(c0);
    await t.ensureServiceImport(
      c0,
      t.helloService.metadata.name,
      `the ServiceImport no longer exists after unexporting the service on cluster "${c0.name}" while still exported on cluster "${c1.name}"`,
    );
    await t.deleteServiceExport(c1);
    await t.awaitNoServiceImport(c0, helloServiceName, "the ServiceImport still exists after unexporting the service on all clusters");
  });

  spec(
    "Only labels and annotations specified as exported in the ServiceExport should be propagated to the ServiceImport",
    one,
    async (t) => {
      await t.awaitServiceImport(t.clients[0]!, helloServiceName, (si) => {
        hasKeyValues(si.metadata.annotations, t.helloServiceExport.spec?.exportedAnnotations);
        notHasKeyValues(si.metadata.annotations, t.helloService.metadata.annotations);
        hasKeyValues(si.metadata.labels, t.helloServiceExport.spec?.exportedLabels);
        notHasKeyValues(si.metadata.labels, t.helloService.metadata.labels);
      });
    },
    (t) => {
      t.helloServiceExport.spec = { exportedAnnotations: { "dummy-annotation": "true" }, exportedLabels: { "dummy-label": "true" } };
    },
  );

  spec(
    "A service exported on two clusters with conflicting annotations and labels should apply the conflict resolution policy and report a Conflict condition on each ServiceExport",
    two,
    async (t) => {
      await t.awaitServiceExportCondition(t.clients[0]!, "Conflict", "True");
      await t.awaitServiceExportCondition(t.clients[1]!, "Conflict", "True");
      await t.awaitServiceImport(t.clients[0]!, t.helloService.metadata.name, (si) => {
        hasKeyValues(si.metadata.annotations, t.helloServiceExport.spec?.exportedAnnotations);
        notHasKeyValues(si.metadata.annotations, t.helloServiceExport2.spec?.exportedAnnotations);
        hasKeyValues(si.metadata.labels, t.helloServiceExport.spec?.exportedLabels);
        notHasKeyValues(si.metadata.labels, t.helloServiceExport2.spec?.exportedLabels);
      });
    },
    (t) => {
      t.helloServiceExport.spec = { exportedAnnotations: { "dummy-annotation": "true" }, exportedLabels: { "dummy-label": "true" } };
      t.helloServiceExport2.spec = { exportedAnnotations: { "dummy-annotation2": "true" }, exportedLabels: { "dummy-label2": "true" } };
    },
  );
});

describe(named("ClusterIP ServiceImport (service_import.go)"), () => {
  spec(
    "Exporting a ClusterIP service should create a ServiceImport of type ClusterSetIP in the service's namespace in each cluster. Unexporting should delete the ServiceImport",
    one,
    async (t) => {
      await t.awaitServiceExportCondition(t.clients[0]!, "Valid", "True");
      for (const c of t.clients) {
        const si = await t.awaitServiceImport(c, helloServiceName);
        expect(si.spec.type, `ServiceImport on cluster "${c.name}" has type "${si.spec.type}"`).toBe("ClusterSetIP");
      }
      await t.deleteServiceExport(t.clients[0]!);
      for (const c of t.clients)
        await t.awaitNoServiceImport(
          c,
          helloServiceName,
          `the ServiceImport still exists on cluster "${c.name}" after unexporting the service`,
        );
    },
  );

  spec("The SessionAffinity for a ClusterSetIP ServiceImport should match the exported service's SessionAffinity", one, async (t) => {
    await t.awaitServiceImport(t.clients[0]!, helloServiceName, (si) => {
      expect(si.spec.sessionAffinity).toBe(t.helloService.spec.sessionAffinity);
      expect(
        si.spec.sessionAffinityConfig,
        "The SessionAffinityConfig of the ServiceImport does not match the exported Service's SessionAffinityConfig",
      ).toEqual(t.helloService.spec.sessionAffinityConfig);
    });
  });

  spec(
    "The InternalTrafficPolicy for a ClusterSetIP ServiceImport should match the exported service's InternalTrafficPolicy",
    one,
    async (t) => {
      await t.awaitServiceImport(t.clients[0]!, helloServiceName, (si) => {
        expect(
          si.spec.internalTrafficPolicy,
          "The InternalTrafficPolicy of the ServiceImport does not match the exported Service's InternalTrafficPolicy",
        ).toBe(t.helloService.spec.internalTrafficPolicy!);
      });
    },
    (t) => {
      t.helloService.spec.internalTrafficPolicy = "Cluster";
    },
  );

  spec(
    "The TrafficDistribution for a ClusterSetIP ServiceImport should match the exported service's TrafficDistribution",
    one,
    async (t) => {
      await t.awaitServiceImport(t.clients[0]!, helloServiceName, (si) => {
        expect(
          si.spec.trafficDistribution,
          "The TrafficDistribution of the ServiceImport does not match the exported Service's TrafficDistribution",
        ).toBe(t.helloService.spec.trafficDistribution!);
      });
    },
    (t) => {
      t.helloService.spec.trafficDistribution = "PreferClose";
    },
  );

  spec("An IP should be allocated for a ClusterSetIP ServiceImport", one, async (t) => {
    const si = await t.awaitServiceImport(t.clients[0]!, t.helloService.metadata.name, (si) => {
      expect(si.spec.ips ?? []).not.toEqual([]);
    });
    expect(isIP(si.spec.ips![0]!), `The value "${si.spec.ips![0]}" is not a valid IP`).not.toBe(0);
    // The issue's addition to the upstream case: the ips match the ipFamilies, family by family.
    expect(si.spec.ipFamilies?.length).toBe(si.spec.ips!.length);
    si.spec.ips!.forEach((ip, i) => expect(si.spec.ipFamilies![i]).toBe(isIP(ip) === 6 ? "IPv6" : "IPv4"));
  });

  spec("The ports for a ClusterSetIP ServiceImport should match those of the exported service", one, async (t) => {
    await t.awaitServiceImport(t.clients[0]!, helloServiceName, (si) => {
      expect(sortMCSPorts(si.spec.ports)).toEqual(toMCSPorts(t.helloService.spec.ports));
    });
  });

  spec(
    "A ClusterIP service exported on two clusters should expose the union of the constituent service ports and raise a conflict",
    two,
    async (t) => {
      await t.awaitServiceExportCondition(t.clients[0]!, "Conflict", "True");
      await t.awaitServiceExportCondition(t.clients[1]!, "Conflict", "True");
      await t.awaitServiceImport(t.clients[0]!, t.helloService.metadata.name, (si) => {
        expect(sortMCSPorts(si.spec.ports)).toEqual(toMCSPorts([...t.helloService.spec.ports, t.helloService2.spec.ports[1]!]));
      });
    },
    (t) => {
      t.helloService2.spec.ports = [t.helloService.spec.ports[0]!, { name: "stcp", port: 142, protocol: "SCTP" }];
    },
  );

  spec(
    "A ClusterIP service exported on two clusters with conflicting ports should apply the conflict resolution policy and report a Conflict condition on each ServiceExport",
    two,
    async (t) => {
      await t.awaitServiceExportCondition(t.clients[0]!, "Conflict", "True");
      await t.awaitServiceExportCondition(t.clients[1]!, "Conflict", "True");
      await t.awaitServiceImport(t.clients[0]!, t.helloService.metadata.name, (si) => {
        expect(sortMCSPorts(si.spec.ports), "The service ports were not resolved correctly").toEqual(toMCSPorts(t.helloService.spec.ports));
      });
    },
    (t) => {
      t.helloService2.spec.ports = [{ ...t.helloService.spec.ports[0]!, port: t.helloService.spec.ports[0]!.port + 1 }];
    },
  );
});

describe(named("Headless ServiceImport (service_import.go)"), () => {
  const headless = (t: TestDriver) => {
    t.helloService.spec.clusterIP = "None";
  };

  spec(
    "Exporting a headless service should create a ServiceImport of type Headless in the service's namespace in each cluster. Unexporting should delete the ServiceImport",
    one,
    async (t) => {
      for (const c of t.clients) {
        const si = await t.awaitServiceImport(c, helloServiceName);
        expect(si.spec.type, `ServiceImport on cluster "${c.name}" has type "${si.spec.type}"`).toBe("Headless");
      }
      await t.deleteServiceExport(t.clients[0]!);
      for (const c of t.clients)
        await t.awaitNoServiceImport(
          c,
          helloServiceName,
          `the ServiceImport still exists on cluster "${c.name}" after unexporting the service`,
        );
    },
    headless,
  );

  spec(
    "No clusterset IP should be allocated for a Headless ServiceImport",
    one,
    async (t) => {
      await t.awaitServiceImport(t.clients[0]!, t.helloService.metadata.name);
      await consistently(async () => {
        const si = await t.getServiceImport(t.clients[0]!, t.helloService.metadata.name);
        expect(si?.spec.ips ?? []).toEqual([]);
      }, "a Headless ServiceImport has ips");
    },
    headless,
  );
});

describe(named("ExternalName Service (service_import.go)"), () => {
  spec(
    "Exporting an ExternalName service should set ServiceExport Valid condition to False",
    one,
    async (t) => {
      await t.awaitServiceExportCondition(t.clients[0]!, "Valid", "False");
      await t.ensureNoServiceImport(t.clients[0]!, helloServiceName, "the ServiceImport should not exist for an ExternalName service");
    },
    (t) => {
      t.helloService.spec.type = "ExternalName";
      t.helloService.spec.externalName = "example.com";
    },
  );
});

describe(named("Service type conflict (service_import.go)"), () => {
  spec(
    "A service exported on two clusters with conflicting headlessness should apply the conflict resolution policy and report a Conflict condition on the ServiceExport",
    two,
    async (t) => {
      await t.awaitServiceExportCondition(t.clients[0]!, "Conflict", "True");
      await t.awaitServiceExportCondition(t.clients[1]!, "Conflict", "True");
      for (const c of t.clients) {
        const si = await t.awaitServiceImport(c, helloServiceName);
        expect(si.spec.type, `ServiceImport on cluster "${c.name}" has type "${si.spec.type}"`).toBe("ClusterSetIP");
      }
    },
    (t) => {
      (t as TwoClusterTestDriver).helloService2.spec.clusterIP = "None";
    },
  );
});

describe(named("MCS EndpointSlices (endpoint_slice.go)"), () => {
  spec(
    "Exporting a service should create an MCS EndpointSlice in the service's namespace in each cluster with the required MCS labels. Unexporting should delete the EndpointSlice.",
    one,
    async (t) => {
      const names: string[] = [];
      for (const c of t.clients) {
        const eps = await eventually(async () => {
          const list = await c.client.list<{ metadata: { name?: string; labels?: Record<string, string> } }>(resources.endpointSlice, {
            namespace: t.namespace,
          });
          const found = list.items.find(
            (s) => s.metadata.labels?.[LABEL_SERVICE_NAME] !== undefined || s.metadata.labels?.[LABEL_SOURCE_CLUSTER] !== undefined,
          );
          if (!found) throw new Error("no EndpointSlice with an MCS label");
          return found;
        }, `an MCS EndpointSlice was not found on cluster "${c.name}"`);
        names.push(eps.metadata.name!);
        expect(eps.metadata.labels?.[LABEL_SERVICE_NAME]).toBe(t.helloService.metadata.name);
        expect(eps.metadata.labels).toHaveProperty([LABEL_SOURCE_CLUSTER]);
        expect(eps.metadata.labels).toHaveProperty([LABEL_MANAGED_BY]);
        expect(eps.metadata.labels?.[LABEL_MANAGED_BY]).not.toBe(K8S_ENDPOINT_SLICE_MANAGED_BY);
      }
      await t.deleteServiceExport(t.clients[0]!);
      for (const [i, c] of t.clients.entries()) {
        await eventually(
          async () => {
            try {
              await c.client.get(resources.endpointSlice, t.namespace, names[i]!);
            } catch (err) {
              if ((err as { code?: number }).code === 404) return;
              throw err;
            }
            throw new Error("still exists");
          },
          `the EndpointSlice was not deleted on unexport from cluster ${i + 1}`,
        );
      }
    },
  );
});
