/**
 * Canaries for the commit checkers on hand-written traces: each checker passes a correct
 * history and fails the broken one it exists for; a malformed event is a violation.
 */
import { asEvent } from "../../helpers/loose-events.js";
import { describe, expect, it } from "vitest";
import { runCheckers, type Checker } from "../../../src/check/checker.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { CommitAtomicityChecker } from "../../../src/check/protocols/commit-atomicity.js";
import { CommitValidityChecker } from "../../../src/check/protocols/commit-validity.js";
import { CommitDurabilityChecker } from "../../../src/check/protocols/commit-durability.js";
import { CommitBlockingChecker } from "../../../src/check/protocols/commit-blocking.js";

type E = [atMs: number, kind: string, node: string, fields?: Record<string, unknown>];

function trace(events: E[]): TraceEvent[] {
  return events.map(([atMs, kind, node, fields], index) => asEvent({ index, atUs: atMs * 1000, kind, node, ...(fields ? { fields } : {}) }));
}

const run = (c: Checker, events: E[]) => runCheckers([c], trace(events)).map((v) => v.message);

const P = ["p1", "p2"];
const begin: E = [1, "2pc.begin", "coordinator", { txn: "t1", client: "c1", key: "x", value: 1, participants: P }];
const yes = (p: string, at = 2): E => [at, "2pc.vote", p, { txn: "t1", vote: "yes", locks: ["x"], reason: "" }];
const no = (p: string): E => [2, "2pc.vote", p, { txn: "t1", vote: "no", locks: [], reason: "" }];
const decision = (d: string, at = 3): E => [at, "2pc.decision", "coordinator", { txn: "t1", decision: d, reason: "" }];
const apply = (p: string, o: string, at = 4, by = "coordinator"): E => [at, "2pc.apply", p, { txn: "t1", outcome: o, by }];

describe("commit.atomicity", () => {
  it("passes agreeing participants, fails a commit beside a rollback", () => {
    expect(run(new CommitAtomicityChecker(), [begin, yes("p1"), yes("p2"), decision("commit"), apply("p1", "commit"), apply("p2", "commit")])).toEqual([]);
    const bad = run(new CommitAtomicityChecker(), [begin, yes("p1"), yes("p2"), apply("p1", "rollback", 3, "timeout"), decision("commit"), apply("p2", "commit")]);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/t1 rolled back at p1 .*by timeout.* but committed at p2/);
  });

  it("treats 3PC's abort like 2PC's rollback", () => {
    const bad = run(new CommitAtomicityChecker(), [
      [4, "3pc.apply", "p1", { txn: "t1", outcome: "abort", by: "abort" }],
      [5, "3pc.apply", "p2", { txn: "t1", outcome: "commit", by: "timeout" }],
    ]);
    expect(bad[0]).toMatch(/^3PC atomicity broken: t1 aborted at p1/);
  });
});

describe("commit.validity", () => {
  it("passes commit after every Yes, fails commit after a No or a missing vote", () => {
    expect(run(new CommitValidityChecker(), [begin, yes("p1"), yes("p2"), decision("commit"), apply("p1", "commit")])).toEqual([]);
    expect(run(new CommitValidityChecker(), [begin, yes("p1"), no("p2"), decision("commit")])[0]).toMatch(/decided commit, yet p2 voted No/);
    expect(run(new CommitValidityChecker(), [begin, yes("p1"), apply("p1", "commit")])[0]).toMatch(/p1 committed it, yet p2 never voted Yes/);
    expect(run(new CommitValidityChecker(), [begin, yes("p1"), no("p2"), decision("rollback"), apply("p1", "rollback")])).toEqual([]);
  });

  it("counts a participant recovered in doubt as a Yes (its durable prepared record), and nothing else it recovered", () => {
    const recovered = (p: string, inDoubt: string[]): E => [2.5, "2pc.recover", p, { role: "participant", inDoubt, locks: [], outcomes: [] }];
    expect(run(new CommitValidityChecker(), [begin, yes("p1"), recovered("p2", ["t1"]), decision("commit")])).toEqual([]);
    expect(run(new CommitValidityChecker(), [begin, yes("p1"), recovered("p2", []), decision("commit")])[0]).toMatch(/p2 never voted Yes/);
  });

  it("a rollback on a participant's No (votedNo) needs that No, or a rollback it had applied or recovered; a No counted from a Yes voter is a vote it never cast", () => {
    const onNo = (p: string): E => [3, "2pc.decision", "coordinator", { txn: "t1", decision: "rollback", reason: `${p} voted No`, votedNo: p }];
    const v = () => new CommitValidityChecker();
    expect(run(v(), [begin, yes("p1"), apply("p2", "rollback", 2, "vote-no"), no("p2"), onNo("p2")])).toEqual([]);
    expect(run(v(), [begin, yes("p1"), yes("p2"), apply("p2", "rollback", 2.5, "peer"), onNo("p2")])).toEqual([]);
    const recoveredAborted: E = [2.5, "2pc.recover", "p2", { role: "participant", inDoubt: [], locks: [], outcomes: [["t1", "rollback"]] }];
    expect(run(v(), [begin, yes("p1"), recoveredAborted, onNo("p2")])).toEqual([]);
    // the canary: p2 prepared (Yes) and still in doubt, yet the coordinator rolls back on its No
    expect(run(v(), [begin, yes("p1"), yes("p2"), onNo("p2")])[0]).toMatch(/^2PC validity: the coordinator coordinator decided rollback on t1 because p2 voted No, yet p2 had voted Yes and not rolled it back: a No it never cast/);
    expect(run(v(), [begin, yes("p1"), onNo("p2"), yes("p2", 4)])[0]).toMatch(/p2 had neither voted nor rolled it back/);
    // a malformed votedNo is a violation, not a skipped rule
    expect(run(v(), [begin, [3, "2pc.decision", "coordinator", { txn: "t1", decision: "rollback", reason: "", votedNo: ["p2"] }]])[0]).toMatch(/field "votedNo" = an array/);
  });
});

describe("commit.durability", () => {
  const recoverCoordinator = (decisions: unknown[]): E => [10, "2pc.recover", "coordinator", { role: "coordinator", decisions, presumedAbort: [] }];
  const recoverParticipant = (p: string, inDoubt: string[], outcomes: unknown[]): E => [10, "2pc.recover", p, { role: "participant", inDoubt, locks: [], outcomes }];

  it("passes a recovered decision, fails a lost or reversed one", () => {
    expect(run(new CommitDurabilityChecker(), [begin, decision("commit"), recoverCoordinator([["t1", "commit"]])])).toEqual([]);
    expect(run(new CommitDurabilityChecker(), [begin, decision("commit"), recoverCoordinator([])])[0]).toMatch(/had announced commit for t1, but after its crash its log holds no decision/);
    expect(run(new CommitDurabilityChecker(), [begin, decision("commit"), decision("rollback", 11)])[0]).toMatch(/announced commit for t1, then rollback/);
  });

  it("passes a recovered prepared state and outcome, fails a lost Yes or a changed outcome", () => {
    expect(run(new CommitDurabilityChecker(), [begin, yes("p1"), recoverParticipant("p1", ["t1"], [])])).toEqual([]);
    expect(run(new CommitDurabilityChecker(), [begin, yes("p1"), recoverParticipant("p1", [], [])])[0]).toMatch(/p1 voted Yes on t1 but recovered after its crash without it/);
    expect(run(new CommitDurabilityChecker(), [begin, yes("p1"), apply("p1", "commit"), recoverParticipant("p1", [], [["t1", "rollback"]])])[0]).toMatch(/p1 had applied commit to t1 but recovered abort/);
    expect(run(new CommitDurabilityChecker(), [begin, yes("p1"), apply("p1", "commit"), apply("p1", "rollback", 5)])[0]).toMatch(/p1 applied commit to t1, later rollback/);
  });
});

describe("commit.blocking", () => {
  it("passes a short doubt, reports a long one with its lock, the down coordinator and the waiting client", () => {
    const request: E = [0.5, "2pc.request", "c1", { txn: "t1", key: "x", value: 1 }];
    expect(run(new CommitBlockingChecker(1000), [request, begin, yes("p1"), decision("commit", 500), apply("p1", "commit", 900)])).toEqual([]);
    const bad = run(new CommitBlockingChecker(1000), [request, begin, yes("p1"), [5, "crash", "coordinator"], [3000, "restart", "coordinator"], apply("p1", "commit", 3100)]);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/p1 was in doubt about t1 for 3\.098 s .*holding the lock on x.*coordinator was down from 0\.005 s to 3\.000 s.*client c1 waited from 0\.001 s to the end/);
  });

  it("reports a doubt still open at the end, and does not count the participant's own downtime", () => {
    expect(run(new CommitBlockingChecker(1000), [begin, yes("p1"), [2500, "heal", ""]])[0]).toMatch(/p1 was in doubt about t1 since 0\.002 s and still at the end/);
    expect(run(new CommitBlockingChecker(1000), [begin, yes("p1"), [10, "crash", "p1"], [2900, "restart", "p1"], [2901, "2pc.recover", "p1", { role: "participant", inDoubt: ["t1"], locks: ["x"], outcomes: [] }], apply("p1", "commit", 3000)])).toEqual([]);
  });
});

describe("malformed events", () => {
  it("are violations, not skipped", () => {
    for (const c of [new CommitAtomicityChecker(), new CommitValidityChecker(), new CommitDurabilityChecker(), new CommitBlockingChecker()]) {
      expect(run(c, [[1, "2pc.apply", "p1", { txn: "t1", outcome: "maybe", by: "x" }]])[0], c.name).toMatch(/malformed 2pc\.apply event #0 on p1: field "outcome" = "maybe", expected one of commit, rollback, abort/);
    }
  });
});
