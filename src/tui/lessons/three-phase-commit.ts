/**
 * The 3PC lessons (book 2.1.2), on the teaching model: coordinator co, participants p1–p3,
 * clients c1, c2. Goals are judged from the trace's `3pc.*` annotations and the checkers'
 * verdicts (commit-goals.ts).
 *
 * With seed 1 and `txn c1 x 1` at the start: every vote has reached co after 16 steps, p1 gets
 * preCommit at step 21, every participant is precommitted after 27 and every Ack is in after 30
 * (co's doCommit decision is then being fsynced).
 */
import type { Action } from "../../stepper/types.js";
import type { Lesson } from "./lesson.js";
import { BOOK_3PC, commitGoal, decisionPrediction, entries, outcomePrediction } from "./commit-goals.js";

const TXN_X: readonly Action[] = [{ kind: "client", client: "c1", op: "txn", key: "x", value: "1", noVoteFrom: [] }];
const ALL = ["p1", "p2", "p3"];

const threePhases: Lesson = {
  protocol: "3pc",
  name: "three-phases",
  title: "canCommit, preCommit, doCommit",
  idea: "3PC splits 2PC's first phase in two: canCommit only asks whether each participant could commit; preCommit makes each execute and log undo/redo; doCommit commits. Between the last two, every participant knows all voted Yes.",
  intro: [
    "c1 has asked co for transaction c1-1: x=1 at p1, p2 and p3.",
    "Step (s or → ; step 10) and watch the three rounds: canCommit → Yes, preCommit → Ack, doCommit → Ack.",
    "A log record marked … is written but not yet fsynced: a crash would lose it.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "The extra round buys knowledge: once a participant is precommitted it knows everyone voted Yes, so it can finish without the coordinator — the property 2PC lacks.",
  book: `${BOOK_3PC}: canCommit, preCommit, doCommit`,
  invariants: ["commit.atomicity", "commit.validity"],
  predictions: [decisionPrediction("3pc")],
  goal: commitGoal("3pc", (r) => {
    const done = entries(r).find(([, t]) => t.decision === "commit" && ALL.every((p) => t.precommitted.includes(p) && t.applied[p]?.outcome === "commit"));
    if (done === undefined) return { reached: false, text: "run a transaction through all three phases until every participant has committed" };
    return { reached: true, text: `${done[0]}: every participant said Yes to canCommit, executed it on preCommit and acked, then committed on doCommit` };
  }),
  solution: "step 10; step 10; step 10; run 100ms",
};

const nonblocking: Lesson = {
  protocol: "3pc",
  name: "coordinator-crash-commits",
  title: "The coordinator crashes: precommitted participants commit",
  idea: "The crash that blocks 2PC does not block 3PC: a participant that got preCommit knows every vote was Yes, so when the coordinator falls silent the participants elect a recovery coordinator among themselves, which finds them precommitted and commits for all (the book's rule: a precommitted participant commits on its timeout).",
  intro: [
    "Step until every participant is precommitted and co has their Acks (step 30), then crash co before doCommit goes out.",
    "Run on (run 2s): p1–p3 time out and ask each other; p1, their recovery coordinator, commits and tells the others — without the coordinator.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "A coordinator crash no longer holds locks hostage: participants that reached preCommit finish without it, which is why 3PC is called non-blocking (with crashes only). The book lets a precommitted participant commit alone on its timeout; this model follows Skeen's termination protocol instead — those that time out elect a recovery coordinator, which brings any uncertain participant to precommitted before anyone commits, so a later crash cannot leave one committed and another aborted.",
  book: `${BOOK_3PC}: what a participant may decide alone (the termination protocol: Skeen, 1981)`,
  invariants: ["commit.atomicity"],
  predictions: [outcomePrediction("3pc", 2_000, ["crash"])],
  goal: commitGoal("3pc", (r) => {
    const down = r.coordinatorDownSinceUs;
    const done = entries(r).find(([, t]) => ALL.every((p) => t.applied[p]?.outcome === "commit" && t.applied[p]!.by !== "doCommit"));
    if (done !== undefined && down >= 0) return { reached: true, text: `${done[0]}: co crashed before doCommit; p1–p3 were precommitted, so they committed without it — no blocking, and all agree` };
    return { reached: false, text: down >= 0 ? "run on until the participants finish without the coordinator" : "crash the coordinator after every participant is precommitted, before doCommit reaches them" };
  }),
  solution: "step 30; crash co; run 2s",
};

const uncertain: Lesson = {
  protocol: "3pc",
  name: "uncertain-aborts",
  title: "Before preCommit, a timeout aborts",
  idea: "A participant that voted Yes but never got preCommit cannot know whether the others did: when the coordinator falls silent the participants elect a recovery coordinator, which hears that none got preCommit and aborts for all — nobody can have committed.",
  intro: [
    "Step until co has every vote (step 16), then crash co before preCommit goes out: crash co",
    "Run on (run 2s): p1–p3 are uncertain; they time out, and their recovery coordinator (p1) finds none precommitted and aborts for all.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "Aborting is safe exactly when nobody can have committed. The book's uncertain participant aborts alone on its timeout; in this model (Skeen's termination protocol) the recovery coordinator aborts only when every participant it reaches is uncertain — one precommitted peer would make it commit them all.",
  book: `${BOOK_3PC}: timeouts before preCommit (the termination protocol's rule: all uncertain, abort)`,
  invariants: ["commit.atomicity"],
  predictions: [outcomePrediction("3pc", 2_000, ["crash"])],
  goal: commitGoal("3pc", (r) => {
    const done = entries(r).find(([, t]) => ALL.every((p) => t.votes[p] === "yes" && t.applied[p]?.outcome === "abort" && t.applied[p]!.by !== "abort") && t.precommitted.length === 0);
    if (done !== undefined) return { reached: true, text: `${done[0]}: every participant voted Yes, none got preCommit; with co silent they timed out and aborted without it — safe, since nobody could have committed` };
    return { reached: false, text: "crash the coordinator after the votes, before any preCommit arrives, and run on" };
  }),
  solution: "step 16; crash co; run 2s",
};

const partition: Lesson = {
  protocol: "3pc",
  name: "partition-breaks-atomicity",
  title: "A partition after preCommit breaks atomicity",
  idea: "3PC's flaw: a participant cut off after preCommit commits on its timeout, while the coordinator, missing its Ack, aborts the others. The commit.atomicity invariant breaks.",
  intro: [
    "Step until p1 receives preCommit (step 21), then cut p1 off from everyone: cut p1 <-> co,p2,p3,c1",
    "Run on (run 2s): co aborts p2 and p3; p1 can ask nobody and commits. Watch the invariants panel.",
  ],
  seed: 1,
  setup: TXN_X,
  why: "Networks partition; a protocol that is non-blocking under crashes can still split its decision under a partition — each side terminates on its own, by the book's rule and by Skeen's termination protocol alike — which is why real systems reach for consensus (Paxos, ZAB) to commit across machines.",
  book: `${BOOK_3PC}: the network partition problem`,
  invariants: ["commit.atomicity"],
  predictions: [outcomePrediction("3pc", 2_000, ["partition"])],
  goal: commitGoal("3pc", (r) => {
    for (const [txn, t] of entries(r)) {
      const outcomes = ALL.map((p) => t.applied[p]?.outcome);
      const committed = ALL.filter((_, i) => outcomes[i] === "commit");
      const aborted = ALL.filter((_, i) => outcomes[i] === "abort");
      if (committed.length > 0 && aborted.length > 0) {
        return { reached: true, text: `${txn}: ${committed.join(", ")} committed on timeout after preCommit while ${aborted.join(", ")} aborted on co's word — one transaction, two outcomes (commit.atomicity ✗)` };
      }
    }
    return { reached: false, text: "separate a precommitted participant from the coordinator and its peers, and run on" };
  }),
  solution: "step 21; cut p1 <-> co,p2,p3,c1; run 2s",
};

export const THREE_PC_LESSONS: readonly Lesson[] = [threePhases, nonblocking, uncertain, partition];
