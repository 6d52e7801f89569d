/**
 * `paxos.liveness`: after the faults end, with one (distinguished) proposer, a value is chosen
 * and every learner learns it. Judged only when the run ends at least `budgetMs` after its
 * last fault, or comes to rest with nothing left to happen; then every learner (a node that annotated `paxos.learner.recovered`) must hold a
 * learned value in its current incarnation — recovered from its disk or learned since.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, MalformedEvent, presentField } from "../event-reader.js";
import { isProtocolValue } from "./paxos-chosen.js";
import { QuietPeriod } from "./quiet-period.js";

export const PAXOS_LIVENESS_BUDGET_MS = 15_000;

const KINDS = ["paxos.learner.recovered", "paxos.learned", ...QuietPeriod.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class PaxosLivenessChecker implements Checker<Kind> {
  readonly name = "paxos.liveness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly quiet = new QuietPeriod();
  /** Learner → whether its current incarnation holds a learned value. */
  private readonly learners = new Map<string, boolean>();

  constructor(private readonly budgetMs = PAXOS_LIVENESS_BUDGET_MS) {}


  onEvent(e: TraceEvent<Kind>): void {
    this.quiet.onEvent(e);
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "paxos.learner.recovered": {
        // null on purpose (nothing learned yet); absent or of another type is malformed.
        const v = presentField(e, "value");
        if (v !== null && !isProtocolValue(v)) throw new MalformedEvent(e, "value", v, "a value (text or a finite number) or null");
        this.learners.set(e.node, v !== null);
        return;
      }
      case "paxos.learned":
        this.learners.set(e.node, true);
        return;
      case "crash":
        if (this.learners.has(e.node)) this.learners.set(e.node, false);
        return;
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (!this.quiet.judgeable(end, this.budgetMs)) return this.log.violations;
    const behind = [...this.learners].filter(([, learned]) => !learned).map(([l]) => l);
    if (behind.length > 0) {
      this.log.add(end, `${behind.join(", ")} learned no value ${this.quiet.describe(end, this.budgetMs)}: with one proposer and a healed network, Paxos must choose a value and tell every learner`);
    }
    return this.log.violations;
  }
}
