/**
 * What the 2PC and 3PC lessons' goals read from the trace: per transaction, each
 * participant's vote, preCommit, outcome (and when), the coordinator's decisions and
 * recoveries, and when the coordinator was down. A goal is a judgement over this record, so
 * it holds whatever path the learner took to it.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { goalWatch } from "./lesson.js";
import type { GoalWatch } from "../../stepper/types.js";

export interface TxnRecord {
  votes: Record<string, "yes" | "no">;
  /** Vote time (µs) of each Yes: in doubt (2PC) or uncertain (3PC) since. */
  yesAtUs: Record<string, number>;
  precommitted: string[];
  applied: Record<string, { outcome: string; atUs: number; by: string }>;
  decision: string;
  /** The coordinator recovered it: "decided commit/rollback" or "presumed abort". */
  recovered: string;
  /** Participants that had applied an outcome while another still waited, with the coordinator down. */
  splitSeen: string;
}

export interface CommitRecord {
  txns: Record<string, TxnRecord>;
  coordinatorDownSinceUs: number;
  coordinatorCrashes: number;
  lastAtUs: number;
}

/** What a commit goal reads, per protocol: lifecycle, messages and the participants' decisions. */
const COMMIT_GOAL_KINDS = {
  "2pc": ["crash", "start", "restart", "timer", "deliver", "2pc.vote", "2pc.decision", "2pc.apply", "2pc.recover", "2pc.in-doubt"],
  "3pc": ["crash", "start", "restart", "timer", "deliver", "3pc.vote", "3pc.precommit", "3pc.decision", "3pc.apply", "3pc.recover", "3pc.timeout"],
} as const;
type CommitGoalKind = (typeof COMMIT_GOAL_KINDS)[keyof typeof COMMIT_GOAL_KINDS][number];

const PAST: Record<string, string> = { commit: "committed", rollback: "rolled back", abort: "aborted" };

function txnOf(r: CommitRecord, txn: string): TxnRecord {
  return (r.txns[txn] ??= { votes: {}, yesAtUs: {}, precommitted: [], applied: {}, decision: "", recovered: "", splitSeen: "" });
}

/** Folds one trace event into the record (the coordinator is node `co`). */
export function recordCommitEvent(r: CommitRecord, e: TraceEvent<CommitGoalKind>): void {
  r.lastAtUs = e.atUs;
  switch (e.kind) {
    case "crash":
      if (e.node !== "co") return;
      r.coordinatorDownSinceUs = e.atUs;
      r.coordinatorCrashes++;
      return;
    case "start":
    case "restart":
      if (e.node === "co") r.coordinatorDownSinceUs = -1;
      return;
    case "2pc.vote":
    case "3pc.vote": {
      const t = txnOf(r, e.fields.txn);
      t.votes[e.node] = e.fields.vote;
      if (e.fields.vote === "yes") t.yesAtUs[e.node] = e.atUs;
      return;
    }
    case "3pc.precommit":
      txnOf(r, e.fields.txn).precommitted.push(e.node);
      return;
    case "2pc.decision":
    case "3pc.decision":
      txnOf(r, e.fields.txn).decision = e.fields.decision;
      return;
    case "2pc.apply":
    case "3pc.apply": {
      const t = txnOf(r, e.fields.txn);
      const outcome = e.fields.outcome;
      t.applied[e.node] = { outcome, atUs: e.atUs, by: e.fields.by };
      if (r.coordinatorDownSinceUs >= 0 && t.splitSeen === "") {
        const waiting = waitingOn(t);
        if (waiting.length > 0) t.splitSeen = `${e.node} ${PAST[outcome] ?? outcome} while ${waiting.join(", ")} still waited`;
      }
      return;
    }
    case "2pc.recover":
    case "3pc.recover":
      if (e.fields.role !== "coordinator") return;
      for (const [txn, decision] of e.fields.decisions) txnOf(r, txn).recovered = `decided ${decision}`;
      for (const txn of e.fields.presumedAbort) txnOf(r, txn).recovered = "presumed abort";
      return;
  }
}

/** Participants still waiting (voted Yes, no outcome) on `t`. */
export function waitingOn(t: TxnRecord): string[] {
  return Object.keys(t.yesAtUs).filter((p) => t.applied[p] === undefined).sort();
}

export function entries(r: CommitRecord): [string, TxnRecord][] {
  return Object.entries(r.txns);
}

/** A goal watch over the commit record. */
export function commitGoal(protocol: "2pc" | "3pc", status: (r: CommitRecord) => { reached: boolean; text: string }): () => GoalWatch {
  const blank: CommitRecord = { txns: {}, coordinatorDownSinceUs: -1, coordinatorCrashes: 0, lastAtUs: 0 };
  return goalWatch(COMMIT_GOAL_KINDS[protocol], blank, recordCommitEvent, status);
}

export function secs(us: number): string {
  return `${(us / 1e6).toFixed(1)} s`;
}
