// How many target Services the Link exports (its selector through a gateway, or its remote-
// discovery selector): counted from the exported-Services informer's events, by the same rule
// reconcile follows (exportMode), since that informer is unfiltered when the two selectors share
// no key (coveringSelector). O(1) per event; read by the health (ServicesSelected) and the log.
import type { Informer } from "../../kube/index.ts";
import type { Link } from "../../model/link.ts";
import { exportMode } from "../reconcile/remote-discovery.ts";
import type { Svc } from "../reconcile/read.ts";

export class SelectedServices {
  private readonly keys = new Set<string>();
  readonly close: () => void;

  constructor(informer: Informer<Svc> | undefined, link: Link) {
    const hasGateway = !!link.gateway;
    this.close =
      informer?.on((e) => {
        if (e.type !== "deleted" && exportMode(link, e.object, hasGateway) !== null) this.keys.add(e.key);
        else this.keys.delete(e.key);
      }) ?? (() => {});
  }

  get size(): number {
    return this.keys.size;
  }
}
