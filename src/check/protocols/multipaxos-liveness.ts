/**
 * `multipaxos.liveness`: once the faults are over, the replicated log has no holes and every
 * replica runs all of it (book 3.1.5: a new leader fills the gaps with no-ops, and a replica
 * behind the leader catches up). Judged only when the run ends at least `budgetMs` after its
 * last fault, or comes to rest with nothing left to happen (QuietPeriod). Then every replica
 * that is up must have applied, in its current incarnation (its learned log is volatile),
 * every slot up to the highest one chosen anywhere at least `settleMs` before the end — chosen
 * meaning accepted by a majority at one ballot (multipaxos-chosen.ts). Clients keep writing to
 * the end, so slots chosen in the last moments may not have reached every replica yet: those
 * are not judged.
 *
 * A stuck run says what is stuck: for each replica behind, the first slot it has not applied,
 * whether that slot was ever chosen (a hole no leader filled) or chosen and not learned, and
 * which replica led last, and when.
 */
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type Violation } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField } from "../event-reader.js";
import { SlotTally } from "./multipaxos-chosen.js";
import { QuietPeriod } from "./quiet-period.js";

export const MULTIPAXOS_LIVENESS_BUDGET_MS = 2500;
const SETTLE_MS = 500;

interface Replica {
  up: boolean;
  /** Slots applied in its current incarnation, from 0 (slots apply in order). */
  appliedUpTo: number;
}

const KINDS = ["multipaxos.accepted", "multipaxos.apply", "multipaxos.replica.recovered", "multipaxos.leader", ...QuietPeriod.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class MultiPaxosLivenessChecker implements Checker<Kind> {
  readonly name = "multipaxos.liveness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly quiet = new QuietPeriod();
  private readonly tally = new SlotTally();
  /** Slot → when its command was chosen, and which. */
  private readonly chosen = new Map<number, { atUs: number; command: string }>();
  private readonly replicas = new Map<string, Replica>();
  private lastLeader: { node: string; atUs: number } | undefined;

  constructor(
    private readonly budgetMs = MULTIPAXOS_LIVENESS_BUDGET_MS,
    private readonly settleMs = SETTLE_MS,
  ) {}

  onEvent(e: TraceEvent<Kind>): void {
    this.quiet.onEvent(e);
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "multipaxos.replica.recovered":
        this.replicas.set(e.node, { up: true, appliedUpTo: 0 });
        return;
      case "crash": {
        const r = this.replicas.get(e.node);
        if (r !== undefined) r.up = false;
        return;
      }
      case "multipaxos.leader":
        this.lastLeader = { node: e.node, atUs: e.atUs };
        return;
      case "multipaxos.apply": {
        const slot = intField(e, "slot");
        const r = this.replicas.get(e.node);
        if (r !== undefined) r.appliedUpTo = Math.max(r.appliedUpTo, slot + 1);
        return;
      }
      case "multipaxos.accepted": {
        const t = this.tally.add(e);
        if (t.kind === "chosen" && !this.chosen.has(t.slot)) this.chosen.set(t.slot, { atUs: e.atUs, command: t.command });
        return;
      }
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (!this.quiet.judgeable(end, this.budgetMs)) return this.log.violations;
    let top = -1;
    for (const [slot, c] of this.chosen) if (c.atUs <= end.atUs - this.settleMs * 1000) top = Math.max(top, slot);
    const behind = [...this.replicas].filter(([, r]) => r.up && r.appliedUpTo <= top);
    if (behind.length === 0) return this.log.violations;
    const stuck = behind.map(([node, r]) => {
      const first = this.chosen.get(r.appliedUpTo);
      const why = first === undefined ? "never chosen: a hole no leader filled" : `chosen (${first.command}) at ${(first.atUs / 1000).toFixed(1)} ms but not learned`;
      return `${node} applied slots below ${r.appliedUpTo} only (slot ${r.appliedUpTo}: ${why})`;
    });
    const leader = this.lastLeader === undefined ? "no replica ever led" : `the last to take the lead was ${this.lastLeader.node}, at ${(this.lastLeader.atUs / 1000).toFixed(1)} ms`;
    this.log.add(end, `${this.quiet.describe(end, this.budgetMs)}, slots up to ${top} are chosen but ${stuck.join("; ")}; ${leader}`);
    return this.log.violations;
  }
}
