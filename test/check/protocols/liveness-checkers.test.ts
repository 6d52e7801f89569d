import { describe, expect, it } from "vitest";
import { offer, runCheckers, type Checker } from "../../../src/check/checker.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { asEvent } from "../../helpers/loose-events.js";
import { MultiPaxosLivenessChecker } from "../../../src/check/protocols/multipaxos-liveness.js";
import { CommitLivenessChecker } from "../../../src/check/protocols/commit-liveness.js";
import { PaxosLivenessChecker } from "../../../src/check/protocols/paxos-liveness.js";

/** Canaries for the protocols' liveness checkers: hand-made traces that finish, and ones stuck after the faults. */
let index = 0;
const ev = (atMs: number, kind: string, node: string, fields?: Record<string, unknown>): TraceEvent => asEvent({ index: index++, atUs: atMs * 1000, kind, node, ...(fields ? { fields } : {}) });
const check = (c: Checker, events: TraceEvent[]) => runCheckers([c], events);

const accepted = (atMs: number, node: string, slot: number, command = `c1#${slot}`) => ev(atMs, "multipaxos.accepted", node, { slot, ballot: 1, command, acceptors: 3 });
const apply = (atMs: number, node: string, slot: number, command = `c1#${slot}`) => ev(atMs, "multipaxos.apply", node, { slot, command });
const replicas = ["r1", "r2", "r3"].map((r) => ev(0, "multipaxos.replica.recovered", r, { promised: 0, accepted: 0 }));

describe("multipaxos.liveness", () => {
  const chosen = (slot: number, atMs: number) => [accepted(atMs, "r1", slot), accepted(atMs, "r2", slot)];
  const appliedAll = (slots: number, atMs: number) => ["r1", "r2", "r3"].flatMap((r) => Array.from({ length: slots }, (_, s) => apply(atMs, r, s)));

  it("passes when every replica applied every slot chosen before the settle time; judged only after the quiet budget", () => {
    const run = [...replicas, ...chosen(0, 10), ...chosen(1, 20), ...appliedAll(2, 30), ev(100, "crash", "r3"), ev(200, "restart", "r3"), ev(200, "multipaxos.replica.recovered", "r3", { promised: 1, accepted: 2 }), apply(250, "r3", 0), apply(250, "r3", 1), ev(5000, "timer", "r1")];
    expect(check(new MultiPaxosLivenessChecker(2500), run)).toEqual([]);
    // A slot chosen in the last moments is not judged yet.
    expect(check(new MultiPaxosLivenessChecker(2500), [...run.slice(0, -1), ...chosen(2, 4800), ev(5000, "timer", "r1")])).toEqual([]);
  });

  it("a hole no leader filled: names the slot and the last leader", () => {
    const run = [...replicas, ...chosen(0, 10), ...chosen(2, 20), ...appliedAll(1, 30), ev(40, "multipaxos.leader", "r2", { ballot: 2, fromSlot: 1, reproposed: 1, noops: 0, phase1: true }), ev(5000, "timer", "r1")];
    const [v] = check(new MultiPaxosLivenessChecker(2500), run);
    expect(v!.message).toMatch(/slots up to 2 are chosen but r1 applied slots below 1 only \(slot 1: never chosen: a hole no leader filled\); r2 .*; r3 .*; the last to take the lead was r2, at 40\.0 ms/);
    // Not quiet for the budget since the last fault: no verdict.
    expect(check(new MultiPaxosLivenessChecker(2500), [...run.slice(0, -1), ev(4000, "heal", ""), ev(5000, "timer", "r1")])).toEqual([]);
  });

  it("a restarted replica that never catches up is behind (its learned log is volatile)", () => {
    const run = [...replicas, ...chosen(0, 10), ...appliedAll(1, 30), ev(100, "crash", "r3"), ev(200, "restart", "r3"), ev(200, "multipaxos.replica.recovered", "r3", { promised: 1, accepted: 1 }), ev(5000, "timer", "r1")];
    expect(check(new MultiPaxosLivenessChecker(2500), run)[0]!.message).toContain("r3 applied slots below 0 only (slot 0: chosen (c1#0) at 10.0 ms but not learned)");
  });
});

describe("commit.liveness", () => {
  const vote = (atMs: number, node: string, txn: string) => ev(atMs, "2pc.vote", node, { txn, vote: "yes", locks: ["x"], reason: "logged" });
  const applied = (atMs: number, node: string, txn: string) => ev(atMs, "2pc.apply", node, { txn, outcome: "commit", by: "coordinator" });
  const request = (atMs: number, node: string, txn: string) => ev(atMs, "2pc.request", node, { txn, key: "x", value: 1 });
  const result = (atMs: number, node: string, txn: string) => ev(atMs, "2pc.result", node, { txn, outcome: "commit", waitedMs: 5 });

  it("passes when every Yes voter has an outcome and every client heard; a crashed client's wait does not count", () => {
    const done = [request(0, "c1", "c1-1"), vote(1, "p1", "c1-1"), vote(1, "p2", "c1-1"), applied(2, "p1", "c1-1"), applied(2, "p2", "c1-1"), result(3, "c1", "c1-1"), request(4, "c2", "c2-1"), ev(5, "crash", "c2"), ev(9000, "timer", "c1")];
    expect(check(new CommitLivenessChecker(5000), done)).toEqual([]);
  });

  it("a participant left in doubt and a client never answered after the heal are reported", () => {
    const stuck = [request(0, "c1", "c1-1"), vote(1, "p1", "c1-1"), vote(1, "p2", "c1-1"), applied(2, "p1", "c1-1"), ev(100, "restart", "coordinator"), ev(9000, "timer", "c1")];
    const [v] = check(new CommitLivenessChecker(5000), stuck);
    expect(v!.message).toBe("2PC did not finish 8900 ms after the last fault (budget 5000 ms), every node up and the network whole: p2 voted Yes on c1-1 and has no outcome; c1 never heard the outcome of c1-1");
    expect(check(new CommitLivenessChecker(10_000), stuck)).toEqual([]);
  });
});

describe("a run that comes to rest is judged at once (nothing left to happen)", () => {
  it("paxos.liveness and commit.liveness give their verdict at a quiescent end before the budget", () => {
    const learner = [ev(0, "paxos.learner.recovered", "l1", { value: null }), ev(400, "restart", "l1"), ev(400, "paxos.learner.recovered", "l1", { value: null })];
    const p = new PaxosLivenessChecker(15_000);
    for (const e of learner) offer(p, e);
    expect(p.finish({ index: 2, atUs: 500_000 })).toEqual([]);
    const q = new PaxosLivenessChecker(15_000);
    for (const e of learner) offer(q, e);
    expect(q.finish({ index: 2, atUs: 500_000, quiescent: true })[0]!.message).toContain("l1 learned no value the run came to rest 100 ms after the last fault, with nothing left to happen");
  });
});
