/**
 * `paxos.learned-durable` (learner.ts: "a learner never unlearns what it has made durable"): a
 * value a learner reported learned (`paxos.learned`, annotated once the value is durable) is
 * the value it holds when it starts again after a crash (`paxos.learner.recovered`). A learner
 * that reports a value it could not write (a full disk) or did not sync comes back empty, or
 * with another value, and tells whoever asks again something other than what it told before.
 */
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type Violation } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { protocolValueField } from "./paxos-chosen.js";

const KINDS = ["paxos.learned", "paxos.learner.recovered"] as const;
type Kind = KindsOf<typeof KINDS>;

export class PaxosLearnedDurableChecker implements Checker<Kind> {
  readonly name = "paxos.learned-durable";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** Learner → the value it reported learned, and when. */
  private readonly learned = new Map<string, { value: unknown; atUs: number }>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "paxos.learned") {
      if (!this.learned.has(e.node)) this.learned.set(e.node, { value: protocolValueField(e, "value"), atUs: e.atUs });
      return;
    }
    const had = this.learned.get(e.node);
    if (had === undefined) return;
    const value = e.fields.value === null ? null : protocolValueField(e, "value");
    if (value === had.value) return;
    const now = value === null ? "nothing learned" : `${JSON.stringify(value)}`;
    // Reported once: what it learns from here on is judged afresh.
    this.learned.delete(e.node);
    this.log.add(e, `learner ${e.node} reported ${JSON.stringify(had.value)} learned (durable) at ${(had.atUs / 1000).toFixed(1)} ms, but started again with ${now} on its disk`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
