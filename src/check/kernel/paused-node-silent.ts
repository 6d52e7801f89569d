/**
 * A paused node processes nothing: between its "pause" and its "resume" (or crash) no message
 * is delivered to it, no timer of it fires, it sends nothing and accepts or opens no connection.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";

/** Its pause and wake-up, and everything a node does (that a paused node must not). */
const KINDS = ["pause", "resume", "crash", "deliver", "timer", "send", "conn.accept", "conn.open", "conn.connect", "conn.reset", "conn.closed", "conn.refused", "conn.timeout"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PausedNodeSilentChecker implements Checker<Kind> {
  readonly name = "kernel.paused-node-silent";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly paused = new Set<string>();

  onEvent(e: TraceEvent<Kind>): void {
    // Nearly every event it reads (each message, timer and connection event) comes while no node is paused.
    if (this.paused.size === 0 && e.kind !== "pause") return;
    if (e.kind === "pause") this.paused.add(e.node);
    else if (e.kind === "resume" || e.kind === "crash") this.paused.delete(e.node);
    else if (this.paused.has(e.node)) {
      this.log.add(e, `${e.node} is paused but ${e.kind}${e.detail !== undefined ? ` (${e.detail})` : ""} happened on it`);
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
