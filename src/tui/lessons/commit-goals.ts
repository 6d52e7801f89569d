/**
 * What the 2PC and 3PC lessons' goals read from the trace: per transaction, each
 * participant's vote, preCommit, outcome (and when), the coordinator's decisions and
 * recoveries, and when the coordinator was down. A goal is a judgement over this record, so
 * it holds whatever path the learner took to it.
 */
import { isOfKind, type TraceEvent } from "../../sim/trace.js";
import { goalWatch, type Prediction } from "./lesson.js";
import type { Frame, GoalWatch } from "../../stepper/types.js";
import { listed } from "./frame-read.js";

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

export const BOOK_2PC = "From Paxos to ZooKeeper, 2.1.1 (two-phase commit)";
export const BOOK_3PC = "From Paxos to ZooKeeper, 2.1.2 (three-phase commit)";

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

/** A participant's open transaction in the frame (its state field, labelled by the txn id). */
function openTxn(f: Frame, p: string): { txn: string; state: string } | undefined {
  const field = fieldOfNode(f, p)?.find(([, v]) => /in doubt|uncertain|precommitted|executing|logging|applying/.test(v));
  return field === undefined ? undefined : { txn: field[0], state: field[1] };
}

function fieldOfNode(f: Frame, id: string): readonly (readonly [string, string])[] | undefined {
  return f.nodes.find((n) => n.id === id)?.fields;
}

const OUTCOME_CHOICES = ["every one commits", "every one rolls back (aborts)", "they all wait, holding their locks", "they end differently, or some still wait"] as const;

/**
 * Asked after a fault (the coordinator crashes or restarts, the network is cut) while
 * participants hold an open transaction: how will they end? The engine's answer: their
 * outcomes (`<protocol>.apply`) within `aheadMs`.
 */
export function outcomePrediction(protocol: "2pc" | "3pc", aheadMs: number, on: readonly ("crash" | "restart" | "partition")[]): Prediction {
  return {
    id: `outcome-after-${on.join("-")}`,
    on,
    aheadMs,
    ask(e, f) {
      const fault = (e.kind === "crash" || e.kind === "restart") && e.node === "co" ? `co ${e.kind === "crash" ? "crashed" : "restarted"}` : e.kind === "partition" ? "the network is cut" : undefined;
      if (fault === undefined) return undefined;
      const open = ["p1", "p2", "p3"].map((p) => ({ p, t: openTxn(f, p) })).filter((x) => x.t !== undefined);
      if (open.length === 0) return undefined;
      const states = open.map((x) => `${x.p} ${x.t!.state}`).join(", ");
      return { text: `${fault}; ${open[0]!.t!.txn} is open: ${states}. Within ${aheadMs / 1000} s, how will ${listed(open.map((x) => x.p))} end?`, choices: [...OUTCOME_CHOICES] };
    },
    answer(q, events) {
      const who = /how will (.+) end\?/.exec(q.text)![1]!.split(/, | and /);
      const outcome = new Map<string, string>();
      for (const e of events) if (isOfKind(e, `${protocol}.apply`) && who.includes(e.node) && !outcome.has(e.node)) outcome.set(e.node, e.fields.outcome);
      const said = who.map((p) => `${p} ${PAST[outcome.get(p) ?? ""] ?? "still waits"}`).join(", ");
      const values = who.map((p) => outcome.get(p));
      const choice = values.every((v) => v === "commit") ? 0 : values.every((v) => v === "rollback" || v === "abort") ? 1 : values.every((v) => v === undefined) ? 2 : 3;
      return { choice, because: said };
    },
  };
}

/** Asked when the coordinator has the votes it decides on: what will it decide? The engine's answer: its decision. */
export function decisionPrediction(protocol: "2pc" | "3pc"): Prediction {
  const choices = protocol === "2pc" ? ["Commit", "Rollback"] : ["preCommit, then doCommit", "abort"];
  return {
    id: "decision",
    on: ["deliver"],
    aheadMs: 50,
    ask(e, f) {
      if (e.kind !== "deliver" || e.node !== "co" || e.detail !== "vote") return undefined;
      // The votes that reached co, as the strip names them (Yes / No), the latest per participant.
      const got = new Map<string, string>();
      for (const r of f.recent) if (r.event.kind === "deliver" && r.event.node === "co" && r.event.detail === "vote" && r.book !== undefined) got.set(r.event.peer ?? "", r.book);
      const all = ["p1", "p2", "p3"];
      if (!all.every((p) => got.has(p)) && ![...got.values()].includes("No")) return undefined;
      const votes = all.map((p) => `${p}:${got.get(p) === "Yes" ? "Y" : got.get(p) === "No" ? "N" : "?"}`).join(" ");
      return { text: `co holds the votes ${votes}. What will it decide?`, choices };
    },
    answer(_q, events) {
      for (const e of events) {
        if (e.node !== "co") continue;
        if (e.kind === `${protocol}.phase`) return { choice: 0, because: "co logged preCommit: every vote was Yes" };
        if (isOfKind(e, `${protocol}.decision`)) {
          const commit = e.fields.decision === "commit";
          return { choice: commit ? 0 : 1, because: `co logged ${commit ? choices[0] : choices[1]} (${e.fields.reason})` };
        }
      }
      return { choice: -1, because: "co decided nothing meanwhile" };
    },
  };
}
