import { describe, expect, it } from "vitest";
import { asEvent } from "../../helpers/loose-events.js";
import { runCheckers, type Checker } from "../../../src/check/checker.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { PaxosAgreementChecker } from "../../../src/check/protocols/paxos-agreement.js";
import { PaxosValidityChecker } from "../../../src/check/protocols/paxos-validity.js";
import { PaxosLearnedChosenChecker } from "../../../src/check/protocols/paxos-learned-chosen.js";
import { PaxosLivenessChecker } from "../../../src/check/protocols/paxos-liveness.js";

/** Canaries for every Paxos checker: hand-made traces that break (and keep) each invariant. */
let index = 0;
const ev = (atMs: number, kind: string, node: string, fields?: Record<string, unknown>): TraceEvent => asEvent({ index: index++, atUs: atMs * 1000, kind, node, ...(fields ? { fields } : {}) });
const accepted = (atMs: number, node: string, ballot: number, value: string | number) => ev(atMs, "paxos.accepted", node, { ballot, value, acceptors: 3 });
const check = (c: Checker, events: TraceEvent[]) => runCheckers([c], events);

describe("paxos checkers", () => {
  it("agreement: one value chosen at two ballots passes; two values each accepted by a majority fail", () => {
    const same = [accepted(1, "a1", 1, "A"), accepted(2, "a2", 1, "A"), accepted(3, "a2", 2, "A"), accepted(4, "a3", 2, "A")];
    expect(check(new PaxosAgreementChecker(), same)).toEqual([]);
    const two = [accepted(1, "a1", 1, "A"), accepted(2, "a2", 1, "A"), accepted(3, "a2", 2, "B"), accepted(4, "a3", 2, "B")];
    const v = check(new PaxosAgreementChecker(), two);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("two values chosen: A at ballot 1 (accepted by a1, a2) and B at ballot 2 (accepted by a2, a3)");
    // A minority for B is not a choice.
    expect(check(new PaxosAgreementChecker(), two.slice(0, 3))).toEqual([]);
  });

  it("agreement: a malformed acceptance and one ballot with two values are reported", () => {
    expect(check(new PaxosAgreementChecker(), [ev(1, "paxos.accepted", "a1", { ballot: "x", value: "A", acceptors: 3 })])[0]!.message).toContain("malformed");
    expect(check(new PaxosAgreementChecker(), [accepted(1, "a1", 1, "A"), accepted(2, "a2", 1, "B")])[0]!.message).toContain("one ballot, two values");
  });

  it("validity: only a proposer's input may be accepted", () => {
    const input = ev(0, "paxos.proposer.input", "p1", { value: "A", round: -1 });
    expect(check(new PaxosValidityChecker(), [input, accepted(1, "a1", 1, "A")])).toEqual([]);
    expect(check(new PaxosValidityChecker(), [input, accepted(1, "a1", 1, "Z")])[0]!.message).toContain('accepted "Z", which no proposer proposed');
  });

  it("learned ⇒ chosen: learning before a majority accepted is caught", () => {
    const learned = ev(5, "paxos.learned", "l1", { value: "A", via: "chosen" });
    expect(check(new PaxosLearnedChosenChecker(), [accepted(1, "a1", 1, "A"), accepted(2, "a2", 1, "A"), learned])).toEqual([]);
    expect(check(new PaxosLearnedChosenChecker(), [accepted(1, "a1", 1, "A"), learned])[0]!.message).toContain("which is not chosen");
  });

  it("liveness: judged only after a quiet budget; a learner that lost its value in a crash counts as behind", () => {
    const start = ev(0, "paxos.learner.recovered", "l1", { value: null });
    const learned = ev(10, "paxos.learned", "l1", { value: "A", via: "accepted" });
    const end = ev(20_000, "timer", "p1");
    expect(check(new PaxosLivenessChecker(15_000), [start, learned, end])).toEqual([]);
    expect(check(new PaxosLivenessChecker(15_000), [start, end])[0]!.message).toContain("l1 learned no value");
    // Not quiet long enough: no verdict.
    expect(check(new PaxosLivenessChecker(15_000), [start, ev(10_000, "crash", "a1"), end])).toEqual([]);
    // Crashed after learning, restarted without a durable value.
    const again = [start, learned, ev(11, "crash", "l1"), ev(12, "restart", "l1"), ev(12, "paxos.learner.recovered", "l1", { value: null }), end];
    expect(check(new PaxosLivenessChecker(15_000), again)[0]!.message).toContain("l1 learned no value");
  });
});
