/**
 * `commit.validity` (2PC and 3PC): a transaction commits — by the coordinator's decision or at
 * any participant — only if every participant of it voted Yes (book 2.1.1: "if every
 * participant answered Yes, commit"; a single No or a missing vote means rollback).
 *
 * And (2PC, whose decision names it as `votedNo`) a rollback that rests on a participant's No
 * rests on a No that participant gave: before the decision it voted No, or it had already rolled
 * the transaction back (it aborted alone before voting, or heard the outcome, and says so again
 * when asked to vote). A participant that voted Yes has given up its right to abort alone (book
 * 2.1.1: it waits for the decision); a No counted from it while it is prepared is a vote it never
 * cast. (3PC's participant answers an inquiry with the abort it is still making durable, before
 * its apply is in the trace, so its decisions do not name the voter.)
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { COMMIT_KINDS, type CommitKind, protocolOf, readCommitEvent } from "./commit-events.js";

interface Txn {
  participants: string[] | undefined;
  yes: Set<string>;
  no: Set<string>;
  /** Participants that applied (or recovered) an abort of it: a No from them repeats what they know. */
  aborted: Set<string>;
  reported: boolean;
}

export class CommitValidityChecker implements Checker<CommitKind> {
  readonly name = "commit.validity";
  readonly kinds = COMMIT_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly txns = new Map<string, Txn>();

  onEvent(e: TraceEvent<CommitKind>): void {
    guarded(this.log, e, this, this.onCommitEvent);
  }

  private onCommitEvent(e: TraceEvent<CommitKind>): void {
    const ev = readCommitEvent(e);
    if (ev.kind === "recover-coordinator") return;
    if (ev.kind === "recover-participant") {
      // In doubt after a restart: its log holds the durable record of a Yes vote (2PC's prepared,
      // 3PC's ready), which it answers the coordinator with. A crash between that record becoming
      // durable and the vote being sent leaves no "vote" event, yet the Yes was given
      // (found by zksim check 3pc-crashes: crash and restart p3 right after its fsync).
      for (const txn of ev.inDoubt) this.txnOf(txn).yes.add(e.node);
      for (const [txn, o] of ev.outcomes) if (o === "abort") this.txnOf(txn).aborted.add(e.node);
      return;
    }
    const t = this.txnOf(ev.txn);
    switch (ev.kind) {
      case "begin":
        t.participants = ev.participants;
        return;
      case "vote":
        (ev.vote === "yes" ? t.yes : t.no).add(e.node);
        return;
      case "decision":
        if (ev.decision === "commit") this.judge(e, ev.txn, t, `the coordinator ${e.node} decided commit`);
        if (ev.votedNo !== undefined) this.judgeNo(e, ev.txn, t, ev.word, ev.votedNo);
        return;
      case "apply":
        if (ev.outcome === "commit") this.judge(e, ev.txn, t, `${e.node} committed it`);
        else t.aborted.add(e.node);
        return;
      case "request":
      case "result":
        return;
    }
  }

  private txnOf(txn: string): Txn {
    const t = this.txns.get(txn) ?? { participants: undefined, yes: new Set<string>(), no: new Set<string>(), aborted: new Set<string>(), reported: false };
    this.txns.set(txn, t);
    return t;
  }

  private judge(e: TraceEvent, txn: string, t: Txn, what: string): void {
    if (t.reported) return;
    const missing = (t.participants ?? []).filter((p) => !t.yes.has(p));
    if (t.participants === undefined) {
      t.reported = true;
      return this.log.add(e, `${protocolOf(e.kind)} validity: ${what}, but ${txn} was never begun by a coordinator`);
    }
    if (missing.length === 0 && t.no.size === 0) return;
    t.reported = true;
    const no = [...t.no];
    this.log.add(
      e,
      `${protocolOf(e.kind)} validity: ${what}, yet ${no.length > 0 ? `${no.join(", ")} voted No` : ""}${no.length > 0 && missing.length > 0 ? " and " : ""}${missing.length > 0 ? `${missing.join(", ")} never voted Yes` : ""} on ${txn}`,
    );
  }

  /** A decision on `p`'s No: `p` voted No, or had rolled the transaction back, before it. */
  private judgeNo(e: TraceEvent, txn: string, t: Txn, word: string, p: string): void {
    if (t.no.has(p) || t.aborted.has(p)) return;
    const had = t.yes.has(p) ? `${p} had voted Yes and not rolled it back` : `${p} had neither voted nor rolled it back`;
    this.log.add(e, `${protocolOf(e.kind)} validity: the coordinator ${e.node} decided ${word} on ${txn} because ${p} voted No, yet ${had}: a No it never cast`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
