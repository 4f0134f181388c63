// `mc install`: everything a cluster that is linked *to* runs, and the Link CRD a source needs too.
import type { TargetAccessModes } from "../model/access.ts";
import { POD_SECURITY_ENFORCE } from "../model/labels.ts";
import { renderLinkCrd, renderMcsCrds } from "./crd.ts";
import { renderGateway, type GatewayOptions } from "./gateway.ts";
import { renderInstallControllers, type InstallController } from "./install-controllers.ts";
import { renderLocalMirror, type LocalMirrorOptions } from "./local-mirror.ts";
import { createdBy, extensionLabels, type Manifest } from "./meta.ts";
import { renderRemoteAccess, type RemoteAccessOptions } from "./remote-access.ts";
import type { ControllerOptions } from "./service-mirror.ts";
import { renderSharedController } from "./shared-controller.ts";

// `mc install`: everything a cluster that is linked *to* runs
// (docs/linkerd-compatibility.md#install): the extension namespace, the gateway and its policy, the
// remote-access account, and the Link CRD (which a source cluster needs too); then, for a source,
// the local service mirror (as Linkerd's chart), with `--shared-controller` the one controller
// that serves every Link, and with `--controllers` a controller per named Link (Linkerd 2.18's
// chart). Pure: options in, objects out, in apply order.

export interface InstallOptions {
  namespace: string;
  linkerdNamespace: string;
  /** Linkerd's identity trust domain (from linkerd-config): part of the gateway identity. */
  trustDomain: string;
  /** null: no gateway (`--gateway=false`). */
  gateway: GatewayOptions | null;
  /** Remote-access ServiceAccounts to create; empty with `--service-mirror-credentials=false`. */
  remoteAccessAccounts: string[];
  /** What they may do beyond mirroring (`--endpoint-slices-access`, `--remote-discovery-access`); default nothing more. */
  remoteAccess?: TargetAccessModes;
  /** mc's version, for `linkerd.io/created-by`. */
  version: string;
  /** The local service mirror; absent or null: none (`--local-service-mirror=false`). */
  localMirror?: LocalMirrorOptions | null;
  /** The controller serving every Link (`--shared-controller`); absent or null: none. */
  sharedController?: ControllerOptions | null;
  /** A controller per Link, as Linkerd 2.18's chart `controllers[]` (`--controllers`); absent: none. */
  controllers?: readonly InstallController[];
  /** The Multi-Cluster Services API's CRDs (`--mcs`, default on); absent: on. */
  mcs?: boolean;
}

function renderNamespace(name: string): Manifest {
  // linkerd-init needs capabilities, so the extension namespace admits privileged pods.
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: extensionLabels({ [POD_SECURITY_ENFORCE]: "privileged" }) } };
}

export function renderInstall(o: InstallOptions): Manifest[] {
  const context = { namespace: o.namespace, linkerdNamespace: o.linkerdNamespace, trustDomain: o.trustDomain, version: o.version };
  return [
    renderNamespace(o.namespace),
    ...(o.gateway ? renderGateway(o.gateway, context) : []),
    ...o.remoteAccessAccounts.flatMap((serviceAccount) =>
      renderRemoteAccess({ namespace: o.namespace, serviceAccount, version: o.version, access: o.remoteAccess }),
    ),
    renderLinkCrd(createdBy(o.version)),
    ...(o.mcs !== false ? renderMcsCrds(createdBy(o.version)) : []),
    ...(o.localMirror ? renderLocalMirror({ ...o.localMirror, namespace: o.namespace, version: o.version }) : []),
    ...(o.sharedController ? renderSharedController({ controller: o.sharedController, namespace: o.namespace, version: o.version }) : []),
    ...renderInstallControllers({ controllers: o.controllers ?? [], namespace: o.namespace, version: o.version }),
  ];
}

/** `mc allow`: the namespace and one more remote-access account (docs/linkerd-compatibility.md#unlink). */
export function renderAllow(o: RemoteAccessOptions): Manifest[] {
  return [renderNamespace(o.namespace), ...renderRemoteAccess(o)];
}
