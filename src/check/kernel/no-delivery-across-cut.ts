/**
 * Nothing crosses a cut link: while the directed link a→b is cut (by a "partition" event and
 * until a "heal" names it), no message from a may be delivered at b — datagram or connection.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { CutLinks } from "../cut-links.js";
import { guarded, peerOf } from "../event-reader.js";

const KINDS = ["partition", "heal", "deliver", "conn.open", "conn.accept"] as const;
type Kind = KindsOf<typeof KINDS>;

export class NoDeliveryAcrossCutChecker implements Checker<Kind> {
  readonly name = "kernel.no-delivery-across-cut";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly cut = new CutLinks();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "partition":
      case "heal":
        this.cut.apply(e);
        return;
      case "deliver":
      case "conn.open":
      case "conn.accept": {
        const peer = peerOf(e);
        if (this.cut.has(peer, e.node)) this.log.add(e, `${e.kind} at ${e.node} from ${peer} while the link ${peer} → ${e.node} is cut`);
        return;
      }
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
