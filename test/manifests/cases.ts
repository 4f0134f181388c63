// The rendering cases the golden and schema tests share: fixed inputs, so outputs are stable.
import { renderInstall, type InstallOptions } from "../../src/manifests/install.ts";
import { renderLinkBundle, type LinkBundleOptions } from "../../src/manifests/link-bundle.ts";
import type { Manifest } from "../../src/manifests/meta.ts";
import { parseLabelSelector } from "../../src/model/selector.ts";

export const VERSION = "0.1.0-test";

const gateway = { serviceType: "LoadBalancer" as const, port: 4143, probePort: 4191, probeSeconds: 3, replicas: 1, ha: false };

export const installBase: InstallOptions = {
  namespace: "linkerd-multicluster",
  linkerdNamespace: "linkerd",
  trustDomain: "cluster.local",
  gateway,
  remoteAccessAccounts: ["linkerd-service-mirror-remote-access-default"],
  localMirror: { controller: { image: "ghcr.io/mc-project/mc:0.1.0-test", logLevel: "info", logFormat: "plain", ha: false } },
  version: VERSION,
};

export const installCases: Record<string, InstallOptions> = {
  "install-default": installBase,
  "install-nodeport": { ...installBase, gateway: { ...gateway, serviceType: "NodePort" } },
  "install-no-gateway": { ...installBase, gateway: null },
  "install-ha": {
    ...installBase,
    gateway: { ...gateway, replicas: 3, ha: true },
    localMirror: { controller: { ...installBase.localMirror!.controller, ha: true } },
  },
  // A source with one controller for every Link (mc install --shared-controller), no gateway.
  "install-shared-controller": { ...installBase, gateway: null, sharedController: installBase.localMirror!.controller },
  // A source whose install renders its Links' controllers (mc install --controllers east,north
  // --controller-set north.gateway=false,north.ha=true; Linkerd 2.18's chart controllers[]), no gateway.
  "install-controllers": {
    ...installBase,
    gateway: null,
    controllers: [
      { clusterName: "east", controller: installBase.localMirror!.controller, probePort: 4191 },
      { clusterName: "north", controller: { ...installBase.localMirror!.controller, ha: true }, probePort: null },
    ],
  },
};

/** A kubeconfig as `mc link` builds it, with an obviously fake token. */
export const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: east
    cluster:
      server: https://203.0.113.1:6443
      certificate-authority-data: ZmFrZS1jYQ==
users:
  - name: linkerd-service-mirror-remote-access-default
    user:
      token: golden-test-token
contexts:
  - name: east
    context:
      cluster: east
      user: linkerd-service-mirror-remote-access-default
current-context: east
preferences: {}
`;

const controller = { image: "ghcr.io/mc-project/mc:0.1.0-test", logLevel: "info", logFormat: "plain" as const, ha: false };

export const linkBase: LinkBundleOptions = {
  clusterName: "east",
  namespace: "linkerd-multicluster",
  linkerdNamespace: "linkerd",
  kubeconfig: KUBECONFIG,
  clusterDomain: "cluster.local",
  trustDomain: "cluster.local",
  gateway: {
    addresses: ["203.0.113.10"],
    port: 4143,
    identity: "linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local",
    probe: { path: "/ready", port: 4191, periodMs: 3000 },
  },
  spec: {
    selector: parseLabelSelector("mirror.linkerd.io/exported=true"),
    remoteDiscoverySelector: parseLabelSelector("mirror.linkerd.io/exported=remote-discovery"),
    federatedServiceSelector: parseLabelSelector("mirror.linkerd.io/federated=member"),
    excludedAnnotations: [],
    excludedLabels: [],
  },
  controller,
  version: VERSION,
};

export const linkCases: Record<string, LinkBundleOptions> = {
  "link-default": linkBase,
  // A NodePort gateway: node addresses from --gateway-addresses, ports are the nodePorts.
  "link-nodeport": {
    ...linkBase,
    gateway: {
      ...linkBase.gateway!,
      addresses: ["192.0.2.11", "192.0.2.12"],
      port: 30143,
      probe: { path: "/ready", port: 30191, periodMs: 3000 },
    },
  },
  "link-no-gateway": { ...linkBase, gateway: null },
  "link-ha": { ...linkBase, controller: { ...controller, ha: true } },
  "link-no-controller": { ...linkBase, controller: null },
  // Served by the shared controller (mc install --shared-controller): Secrets, Link and the probe Service.
  "link-shared-controller": { ...linkBase, controller: "shared" },
  "link-exclusions": {
    ...linkBase,
    spec: {
      ...linkBase.spec,
      excludedAnnotations: ["argocd.argoproj.io/*"],
      excludedLabels: ["app.kubernetes.io/managed-by"],
      selector: parseLabelSelector("mirror.linkerd.io/exported=true,tier in (web,api)"),
    },
  },
};

export function renderCase(name: string): Manifest[] {
  const install = installCases[name];
  if (install) return renderInstall(install);
  const link = linkCases[name];
  if (link) return renderLinkBundle(link);
  throw new Error(`no rendering case ${name}`);
}

export const allCases = [...Object.keys(installCases), ...Object.keys(linkCases)];
