/**
 * The 2PC lessons (book 2.1.1), on the teaching model: coordinator co, participants p1–p3,
 * clients c1, c2. Each goal is judged from the trace's `2pc.*` annotations (commit-goals.ts),
 * so it holds whatever path the learner takes to it.
 *
 * With seed 1 and `txn c1 x 1` at the start: every vote has reached co after 16 steps, its
 * Commit decision is durable and sent after 18, and the first Commit arrives (at p2) at step 19.
 */
import type { Action } from "../../stepper/types.js";
import type { Lesson } from "./lesson.js";
import { BOOK_2PC, commitGoal, decisionPrediction, entries, outcomePrediction, secs, waitingOn } from "./commit-goals.js";

const TXN_X: readonly Action[] = [{ kind: "client", client: "c1", op: "txn", key: "x", value: "1", noVoteFrom: [] }];
const BLOCKED_US = 3_000_000;
const ALL = ["p1", "p2", "p3"];

const twoPhases: Lesson = {
  protocol: "2pc",
  name: "two-phases",
  title: "Phase 1 votes, phase 2 commits",
  idea: "The coordinator asks every participant (Prepare); each executes, logs undo/redo and votes Yes; with every Yes the coordinator logs Commit, sends it, and each participant commits and acks.",
  intro: [
    "c1 has asked co for transaction c1-1: x=1 at p1, p2 and p3.",
    "Step (s or → ; step 5) and watch phase 1: Prepare out, Yes back; then phase 2: Commit out, Ack back.",
    "A log record marked … is written but not yet fsynced: a crash would lose it.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "Every database that spans machines (XA transactions, sharded stores) needs all-or-nothing: a transfer that debits one account and never credits the other is a lost payment. 2PC gets it by letting nobody commit until everyone could.",
  book: `${BOOK_2PC}: the two phases`,
  invariants: ["commit.atomicity", "commit.validity"],
  predictions: [decisionPrediction("2pc")],
  goal: commitGoal("2pc", (r) => {
    const done = entries(r).find(([, t]) => t.decision === "commit" && ALL.every((p) => t.applied[p]?.outcome === "commit"));
    if (done === undefined) return { reached: false, text: "run a transaction through both phases until every participant has committed" };
    return { reached: true, text: `${done[0]}: every participant voted Yes in phase 1, so co decided Commit; in phase 2 p1, p2 and p3 committed and released x's lock` };
  }),
  solution: "step 10; step 10; run 100ms",
};

const oneNo: Lesson = {
  protocol: "2pc",
  name: "one-no-vote",
  title: "One No vote rolls everyone back",
  idea: "If any participant cannot execute the transaction it votes No, and the coordinator sends Rollback to all: each undoes its work with the undo log and releases its locks.",
  intro: [
    "Start a transaction that p2 cannot execute: txn c1 x 1 no p2",
    "Run on (run 100ms) and watch p2's No, the Rollback, and the others undoing their work.",
  ],
  seed: 1,
  setup: [],
  why: "One participant that cannot apply a change (a constraint fails, a disk is full) must be able to veto it for everyone; otherwise the replicas of the data disagree.",
  book: `${BOOK_2PC}: a No vote and the rollback`,
  invariants: ["commit.atomicity", "commit.validity"],
  predictions: [decisionPrediction("2pc")],
  goal: commitGoal("2pc", (r) => {
    const rolled = entries(r).find(([, t]) => Object.values(t.votes).includes("no") && ALL.every((p) => t.applied[p]?.outcome === "rollback"));
    if (rolled === undefined) return { reached: false, text: "make one participant vote No and see the whole transaction rolled back" };
    const no = Object.entries(rolled[1].votes).filter(([, v]) => v === "no").map(([p]) => p);
    return { reached: true, text: `${rolled[0]}: ${no.join(", ")} voted No, so co sent Rollback; every participant undid it — all or nothing` };
  }),
  solution: "txn c1 x 1 no p2; run 100ms",
};

const blocks: Lesson = {
  protocol: "2pc",
  name: "coordinator-crash-blocks",
  title: "The coordinator crashes: participants block",
  idea: "A participant that voted Yes may not decide alone. If the coordinator crashes before they hear its decision, they wait in doubt, holding their locks, for as long as it stays down — the single point of failure.",
  intro: [
    "Step until co has every vote (step 16), then crash the coordinator: crash co",
    "Run on (run 4s): p1–p3 time out, ask co for the decision, and get no answer — x stays locked.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "This is 2PC's price in production: a coordinator that dies at the wrong moment leaves rows locked on every participant until it comes back, and no timeout may safely release them.",
  book: `${BOOK_2PC}: blocking, the single point of failure`,
  invariants: ["commit.atomicity", "commit.blocking"],
  predictions: [outcomePrediction("2pc", 3_000, ["crash"])],
  goal: commitGoal("2pc", (r) => {
    const down = r.coordinatorDownSinceUs;
    for (const [txn, t] of entries(r)) {
      const waiting = waitingOn(t);
      if (down < 0 || waiting.length < ALL.length) continue;
      const since = Math.max(down, ...waiting.map((p) => t.yesAtUs[p]!));
      if (r.lastAtUs - since >= BLOCKED_US) return { reached: true, text: `${waiting.join(", ")} voted Yes on ${txn} and have waited ${secs(r.lastAtUs - since)} with co down, holding x's lock: nobody may decide without the coordinator — 2PC blocks` };
      return { reached: false, text: `${waiting.join(", ")} are in doubt about ${txn} and co is down: run on (3 s in all)` };
    }
    return { reached: false, text: "crash the coordinator after every participant voted Yes, before any hears the decision" };
  }),
  solution: "step 16; crash co; run 4s",
};

const presumedAbort: Lesson = {
  protocol: "2pc",
  name: "presumed-abort",
  title: "Recovery reads the log: presumed abort",
  idea: "The coordinator writes its decision to its log before announcing it. Restarted with a begin record but no decision, it knows nobody can have been told Commit, so it rolls back — and the blocked participants are freed.",
  intro: [
    "Crash co after it has every vote but before its decision is fsynced (step 16; crash co), and run on (run 2s).",
    "Restart it (restart co) and run on: it reads its log, finds no decision, and sends Rollback.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "Recovery must give the same answer the coordinator would have given: writing the decision before announcing it means a restart with no decision on disk can safely abort, because nobody was told Commit.",
  book: `${BOOK_2PC}: the coordinator's log and recovery`,
  invariants: ["commit.atomicity", "commit.durability"],
  predictions: [outcomePrediction("2pc", 1_000, ["restart"])],
  goal: commitGoal("2pc", (r) => {
    const freed = entries(r).find(([, t]) => t.recovered === "presumed abort" && Object.keys(t.yesAtUs).length > 0 && ALL.every((p) => t.applied[p]?.outcome === "rollback"));
    if (freed !== undefined) return { reached: true, text: `co restarted with begin ${freed[0]} in its log but no decision: it presumed abort and sent Rollback; p1–p3, in doubt until then, rolled back and released x` };
    const lost = entries(r).find(([, t]) => t.recovered === "presumed abort");
    if (lost !== undefined) return { reached: false, text: `co presumed abort for ${lost[0]}: run on until every participant has rolled back` };
    return { reached: false, text: "crash the coordinator before its decision is durable, then restart it" };
  }),
  solution: "step 16; crash co; run 2s; restart co; run 500ms",
};

const partialCommit: Lesson = {
  protocol: "2pc",
  name: "partial-commit",
  title: "Commit reaches only some participants",
  idea: "If a local network failure, or the coordinator's crash before every Commit has left, keeps Commit from some participants, those commit and the others stay in doubt: the book's data inconsistency. The decision is in the coordinator's log, so after its restart it sends Commit again and all commit.",
  intro: [
    "Step until the first Commit arrives (step 19), then cut co off from p1 and p3 (cut co <-> p1,p3) and crash co: the Commits still on the wire are lost to the cut.",
    "Run on (run 2s): one participant has x=1, the others still hold x's lock. Then heal, restart co and run on.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "Between the first Commit and the last, the participants disagree; 2PC only promises that they agree in the end, which holds because the decision is durable before it is sent.",
  book: `${BOOK_2PC}: data inconsistency while Commit is in flight`,
  invariants: ["commit.atomicity", "commit.durability"],
  predictions: [outcomePrediction("2pc", 1_000, ["restart"])],
  goal: commitGoal("2pc", (r) => {
    for (const [txn, t] of entries(r)) {
      if (t.splitSeen === "") continue;
      if (t.recovered.startsWith("decided") && ALL.every((p) => t.applied[p]?.outcome === "commit")) {
        return { reached: true, text: `${txn}: ${t.splitSeen} with co down — the data disagreed; co's log held Commit, so its restart sent it again and all committed` };
      }
      return { reached: false, text: `${txn}: ${t.splitSeen}: restart co and run on` };
    }
    return { reached: false, text: "crash the coordinator after one participant got Commit but before the others did" };
  }),
  solution: "step 19; cut co <-> p1,p3; crash co; run 2s; heal; restart co; run 500ms",
};

export const TWO_PC_LESSONS: readonly Lesson[] = [twoPhases, oneNo, blocks, presumedAbort, partialCommit];
