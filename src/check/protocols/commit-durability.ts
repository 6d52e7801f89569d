/**
 * `commit.durability` (2PC and 3PC): what was announced survives a crash.
 * - The coordinator's decision: once announced ("*.decision"), a recovering coordinator finds
 *   it in its log ("*.recover" lists its decisions), and never decides the other way.
 * - A participant's promise: once it voted Yes it recovers the transaction in doubt (with its
 *   lock) until it applies an outcome; once it applied an outcome it recovers that outcome, and
 *   never applies the other one.
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { COMMIT_KINDS, type CommitKind, protocolOf, readCommitEvent, type Outcome } from "./commit-events.js";

interface ParticipantMemory {
  promised: Set<string>;
  applied: Map<string, Outcome>;
}

export class CommitDurabilityChecker implements Checker<CommitKind> {
  readonly name = "commit.durability";
  readonly kinds = COMMIT_KINDS;
  readonly log = new ViolationLog(this.name);
  /** txn → announced decision, per coordinator node. */
  private readonly decisions = new Map<string, Map<string, Outcome>>();
  private readonly participants = new Map<string, ParticipantMemory>();

  onEvent(e: TraceEvent<CommitKind>): void {
    guarded(this.log, e, this, this.onCommitEvent);
  }

  private onCommitEvent(e: TraceEvent<CommitKind>): void {
    const ev = readCommitEvent(e);
    const p = protocolOf(e.kind);
    switch (ev.kind) {
      case "decision": {
        const mine = this.coordinator(e.node);
        const before = mine.get(ev.txn);
        if (before !== undefined && before !== ev.decision) this.log.add(e, `${p} decision durability: ${e.node} announced ${word(before)} for ${ev.txn}, then ${ev.word}`);
        mine.set(ev.txn, ev.decision);
        return;
      }
      case "recover-coordinator": {
        for (const [txn, d] of this.coordinator(e.node)) {
          const found = ev.decisions.get(txn);
          if (found === d) continue;
          this.log.add(e, `${p} decision durability: ${e.node} had announced ${word(d)} for ${txn}, but after its crash its log ${found === undefined ? "holds no decision for it" : `says ${word(found)}`}`);
        }
        return;
      }
      case "vote":
        if (ev.vote === "yes") this.participant(e.node).promised.add(ev.txn);
        return;
      case "apply": {
        const mem = this.participant(e.node);
        const before = mem.applied.get(ev.txn);
        if (before !== undefined && before !== ev.outcome) this.log.add(e, `${p} outcome durability: ${e.node} applied ${word(before)} to ${ev.txn}, later ${ev.word}`);
        mem.applied.set(ev.txn, ev.outcome);
        mem.promised.delete(ev.txn);
        return;
      }
      case "recover-participant":
        return this.recoverParticipant(e, p, ev.inDoubt, ev.outcomes);
      case "begin":
      case "request":
      case "result":
        return;
    }
  }

  private recoverParticipant(e: TraceEvent, p: string, inDoubt: string[], outcomes: Map<string, Outcome>): void {
    const mem = this.participant(e.node);
    const recovered = new Set(inDoubt);
    for (const txn of mem.promised) {
      if (!recovered.has(txn)) this.log.add(e, `${p} prepared-state durability: ${e.node} voted Yes on ${txn} but recovered after its crash without it (its vote was not durable)`);
    }
    for (const [txn, o] of mem.applied) {
      const found = outcomes.get(txn);
      if (found !== o) this.log.add(e, `${p} outcome durability: ${e.node} had applied ${word(o)} to ${txn} but recovered ${found === undefined ? "no outcome" : word(found)}`);
    }
  }

  private coordinator(node: string): Map<string, Outcome> {
    let m = this.decisions.get(node);
    if (m === undefined) this.decisions.set(node, (m = new Map()));
    return m;
  }

  private participant(node: string): ParticipantMemory {
    let m = this.participants.get(node);
    if (m === undefined) this.participants.set(node, (m = { promised: new Set(), applied: new Map() }));
    return m;
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}

function word(o: Outcome): string {
  return o === "commit" ? "commit" : "abort/rollback";
}
