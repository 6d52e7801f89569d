/**
 * A paused node processes nothing: between its "pause" and its "resume" (or crash) no message
 * is delivered to it, no timer of it fires, it sends nothing and accepts or opens no connection.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation } from "../checker.js";

const ACTIVITY = new Set(["deliver", "timer", "send", "conn.accept", "conn.open", "conn.connect", "conn.reset", "conn.closed", "conn.refused", "conn.timeout"]);

export class PausedNodeSilentChecker implements Checker {
  readonly name = "kernel.paused-node-silent";
  readonly log = new ViolationLog(this.name);
  private readonly paused = new Set<string>();

  accepts(kind: string): boolean {
    return kind === "pause" || kind === "resume" || kind === "crash" || ACTIVITY.has(kind);
  }

  onEvent(e: TraceEvent): void {
    if (e.kind === "pause") this.paused.add(e.node);
    else if (e.kind === "resume" || e.kind === "crash") this.paused.delete(e.node);
    else if (this.paused.has(e.node) && ACTIVITY.has(e.kind)) {
      this.log.add(e, `${e.node} is paused but ${e.kind}${e.detail !== undefined ? ` (${e.detail})` : ""} happened on it`);
    }
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
