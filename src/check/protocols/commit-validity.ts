/**
 * `commit.validity` (2PC and 3PC): a transaction commits — by the coordinator's decision or at
 * any participant — only if every participant of it voted Yes (book 2.1.1: "if every
 * participant answered Yes, commit"; a single No or a missing vote means rollback).
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
        return;
      case "apply":
        if (ev.outcome === "commit") this.judge(e, ev.txn, t, `${e.node} committed it`);
        return;
      case "request":
      case "result":
        return;
    }
  }

  private txnOf(txn: string): Txn {
    const t = this.txns.get(txn) ?? { participants: undefined, yes: new Set<string>(), no: new Set<string>(), reported: false };
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

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
