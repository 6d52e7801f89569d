/**
 * Standalone durability: anything a client saw acknowledged survives a server restart. From the
 * trace alone: every successful client operation reports the zxid of its reply
 * ("client.complete" with outcome ok and a zxid); when the single server starts again it
 * reports the last zxid it recovered ("zk.server.start"). The recovered zxid must be at least
 * the highest zxid any client has seen.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { guarded, optionalStringField, optionalZxidField, stringField, zxidField } from "../event-reader.js";

const KINDS = ["client.complete", "zk.server.start"] as const;
type Kind = KindsOf<typeof KINDS>;

export class StandaloneDurabilityChecker implements Checker<Kind> {
  readonly name = "zk.standalone-durability";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private maxSeen = 0n;
  private seenBy = "";

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "client.complete") {
      if (optionalStringField(e, "outcome") !== "ok") return;
      const zxid = optionalZxidField(e, "zxid");
      if (zxid === undefined) return;
      if (zxid > this.maxSeen) {
        this.maxSeen = zxid;
        // A completion does not repeat its op's name: "op" stands for it.
        this.seenBy = `${stringField(e, "client")} (op #${stringField(e, "opId")})`;
      }
      return;
    }
    if (e.kind === "zk.server.start") {
      const last = zxidField(e, "lastZxid");
      if (last < this.maxSeen) {
        this.log.add(e, `${e.node} restarted with last zxid 0x${last.toString(16)}, but zxid 0x${this.maxSeen.toString(16)} had been acknowledged to ${this.seenBy}: an acknowledged write was lost`);
      }
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
