/**
 * Nothing crosses a cut link: while the directed link a→b is cut (by a "partition" event and
 * until a "heal" names it), no message from a may be delivered at b — datagram or connection.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation } from "../checker.js";
import { CutLinks } from "../cut-links.js";
import { guarded, peerOf } from "../event-reader.js";

export class NoDeliveryAcrossCutChecker implements Checker {
  readonly name = "kernel.no-delivery-across-cut";
  readonly log = new ViolationLog(this.name);
  private readonly cut = new CutLinks();

  accepts(kind: string): boolean {
    return CutLinks.KINDS.has(kind) || kind === "deliver" || kind === "conn.open" || kind === "conn.accept";
  }

  onEvent(e: TraceEvent): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent): void {
    if (this.cut.apply(e)) return;
    switch (e.kind) {
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
