/**
 * `commit.liveness` (2PC and 3PC): once every fault is over — every node up, the network whole,
 * clocks and disks right — every transaction finishes. Judged only when the run ends at least
 * `budgetMs` after its last fault, or comes to rest with nothing left to happen (QuietPeriod);
 * then
 *  - every participant that voted Yes on a transaction has applied its outcome (none is left in
 *    doubt, or uncertain, holding its lock), and
 *  - every client has heard the outcome of each transaction it asked for, unless it crashed
 *    since (a restarted client forgets the transactions it was waiting for).
 * 2PC promises this only once the coordinator is back (its blocking while the coordinator is
 * down is `commit.blocking`, its documented flaw); 3PC without the coordinator too, but a
 * participant recovered from a crash may wait for the others (docs/protocols.md). Both must
 * finish after the heal. A stuck run says who waits for what.
 */
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type Violation } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { COMMIT_KINDS, isCommitEvent, protocolOf, readCommitEvent } from "./commit-events.js";
import { QuietPeriod } from "./quiet-period.js";

export const COMMIT_LIVENESS_BUDGET_MS = 5000;

const KINDS = [...COMMIT_KINDS, ...QuietPeriod.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class CommitLivenessChecker implements Checker<Kind> {
  readonly name = "commit.liveness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly quiet = new QuietPeriod();
  /** "participant txn" → the transaction's participant and id, from a Yes vote until an outcome. */
  private readonly inDoubt = new Map<string, { node: string; txn: string }>();
  /** Client → the transactions it asked for and has not heard about, in its current incarnation. */
  private readonly waiting = new Map<string, Set<string>>();
  private protocol = "";

  constructor(private readonly budgetMs = COMMIT_LIVENESS_BUDGET_MS) {}

  onEvent(e: TraceEvent<Kind>): void {
    this.quiet.onEvent(e);
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "crash") {
      this.waiting.delete(e.node);
      return;
    }
    if (!isCommitEvent(e)) return;
    this.protocol = protocolOf(e.kind);
    const ev = readCommitEvent(e);
    switch (ev.kind) {
      case "vote":
        if (ev.vote === "yes") this.inDoubt.set(`${e.node} ${ev.txn}`, { node: e.node, txn: ev.txn });
        return;
      case "apply":
        this.inDoubt.delete(`${e.node} ${ev.txn}`);
        return;
      case "request": {
        const mine = this.waiting.get(e.node) ?? new Set<string>();
        this.waiting.set(e.node, mine.add(ev.txn));
        return;
      }
      case "result":
        this.waiting.get(e.node)?.delete(ev.txn);
        return;
      default:
        return;
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (!this.quiet.judgeable(end, this.budgetMs)) return this.log.violations;
    const stuck: string[] = [];
    for (const { node, txn } of this.inDoubt.values()) stuck.push(`${node} voted Yes on ${txn} and has no outcome`);
    for (const [client, txns] of this.waiting) if (txns.size > 0) stuck.push(`${client} never heard the outcome of ${[...txns].join(", ")}`);
    if (stuck.length > 0) {
      this.log.add(end, `${this.protocol} did not finish ${this.quiet.describe(end, this.budgetMs)}, every node up and the network whole: ${stuck.slice(0, 8).join("; ")}${stuck.length > 8 ? ` (and ${stuck.length - 8} more)` : ""}`);
    }
    return this.log.violations;
  }
}
