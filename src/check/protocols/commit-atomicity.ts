/**
 * `commit.atomicity` (2PC and 3PC): no transaction commits at one participant and aborts
 * (rolls back) at another. Reads each participant's applied outcomes ("*.apply"). This is the
 * property 3PC gives up under a partition (book 2.1.2) and 2PC keeps, at the price of blocking.
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { COMMIT_KINDS, type CommitKind, protocolOf, readCommitEvent, secs } from "./commit-events.js";

interface Applied {
  node: string;
  word: string;
  by: string;
  atUs: number;
}

export class CommitAtomicityChecker implements Checker<CommitKind> {
  readonly name = "commit.atomicity";
  readonly kinds = COMMIT_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly applied = new Map<string, Map<string, Applied>>();
  private readonly reported = new Set<string>();

  onEvent(e: TraceEvent<CommitKind>): void {
    guarded(this.log, e, this, this.onCommitEvent);
  }

  private onCommitEvent(e: TraceEvent<CommitKind>): void {
    const ev = readCommitEvent(e);
    if (ev.kind !== "apply") return;
    const byNode = this.applied.get(ev.txn) ?? new Map<string, Applied>();
    this.applied.set(ev.txn, byNode);
    const mine: Applied = { node: e.node, word: ev.word, by: ev.by, atUs: e.atUs };
    for (const other of byNode.values()) {
      if (other.node === e.node || (other.word === "commit") === (ev.outcome === "commit") || this.reported.has(ev.txn)) continue;
      this.reported.add(ev.txn);
      this.log.add(
        e,
        `${protocolOf(e.kind)} atomicity broken: ${ev.txn} ${describe(other)} but ${describe(mine)} — the participants disagree on the outcome`,
      );
    }
    if (!byNode.has(e.node)) byNode.set(e.node, mine);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}

function describe(a: Applied): string {
  const verb = a.word === "commit" ? "committed" : a.word === "rollback" ? "rolled back" : "aborted";
  return `${verb} at ${a.node} (at ${secs(a.atUs)}, by ${a.by})`;
}
