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

export const COMMIT_GOAL_KINDS = (protocol: "2pc" | "3pc"): string[] =>
  ["crash", "start", "restart", "timer", "deliver"].concat(["vote", "precommit", "decision", "apply", "recover", "in-doubt", "timeout"].map((k) => `${protocol}.${k}`));

const PAST: Record<string, string> = { commit: "committed", rollback: "rolled back", abort: "aborted" };

function txnOf(r: CommitRecord, txn: string): TxnRecord {
  return (r.txns[txn] ??= { votes: {}, yesAtUs: {}, precommitted: [], applied: {}, decision: "", recovered: "", splitSeen: "" });
}

/** Folds one trace event into the record (the coordinator is node `co`). */
export function recordCommitEvent(r: CommitRecord, e: TraceEvent): void {
  r.lastAtUs = e.atUs;
  const f = e.fields ?? {};
  if (e.node === "co" && e.kind === "crash") {
    r.coordinatorDownSinceUs = e.atUs;
    r.coordinatorCrashes++;
  }
  if (e.node === "co" && (e.kind === "start" || e.kind === "restart")) r.coordinatorDownSinceUs = -1;
  const kind = e.kind.slice(4);
  const t = typeof f.txn === "string" ? txnOf(r, f.txn) : undefined;
  switch (kind) {
    case "vote":
      t!.votes[e.node] = f.vote === "yes" ? "yes" : "no";
      if (f.vote === "yes") t!.yesAtUs[e.node] = e.atUs;
      return;
    case "precommit":
      t!.precommitted.push(e.node);
      return;
    case "decision":
      t!.decision = String(f.decision);
      return;
    case "apply":
      t!.applied[e.node] = { outcome: String(f.outcome), atUs: e.atUs, by: String(f.by) };
      if (r.coordinatorDownSinceUs >= 0 && t!.splitSeen === "") {
        const waiting = waitingOn(t!);
        if (waiting.length > 0) t!.splitSeen = `${e.node} ${PAST[String(f.outcome)] ?? String(f.outcome)} while ${waiting.join(", ")} still waited`;
      }
      return;
    case "recover":
      if (f.role !== "coordinator") return;
      for (const d of Array.isArray(f.decisions) ? f.decisions : []) if (Array.isArray(d)) txnOf(r, String(d[0])).recovered = `decided ${String(d[1])}`;
      for (const x of Array.isArray(f.presumedAbort) ? f.presumedAbort : []) txnOf(r, String(x)).recovered = "presumed abort";
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
  return goalWatch(COMMIT_GOAL_KINDS(protocol), blank, recordCommitEvent, status);
}

export function secs(us: number): string {
  return `${(us / 1e6).toFixed(1)} s`;
}
