/**
 * Every checker of the teaching protocols (check/protocols: 2PC/3PC, Paxos, Multi-Paxos) turns a
 * malformed event of a kind it reads (a field missing or of the wrong type) into exactly one
 * violation naming the event's index, kind and field, and none for the same event well formed
 * (the canary) — the harness of test/check/malformed-events.test.ts (malformed-harness.ts). The quiet period of the
 * liveness checkers reads no field (only the kind and time of fault events).
 */
import { describe, expect, it } from "vitest";
import type { Checker } from "../../../src/check/checker.js";
import { PROTOCOL_CHECKERS } from "../../../src/check/protocols/index.js";
import { caseTitle, expectMalformedCase, type MalformedCase } from "../malformed-harness.js";

interface Case extends MalformedCase {
  checker: string;
}

const ev = (kind: string, fields: Record<string, unknown>, node = "p1"): Case["event"] => ({ kind, node, fields });

const CASES: Case[] = [
  { checker: "commit.atomicity", event: ev("2pc.apply", { txn: "t1", outcome: "commit", by: "coordinator" }), field: "by" },
  { checker: "commit.atomicity", event: ev("3pc.apply", { txn: "t1", outcome: "abort", by: "timeout" }), field: "outcome", bad: "maybe" },
  { checker: "commit.validity", event: ev("2pc.begin", { txn: "t1", client: "c1", key: "x", value: 1, participants: ["p1", "p2"] }, "co"), field: "participants", bad: [] },
  { checker: "commit.validity", event: ev("3pc.decision", { txn: "t1", decision: "commit", reason: "all yes" }, "co"), field: "decision", bad: true },
  { checker: "commit.durability", event: ev("3pc.recover", { role: "coordinator", decisions: [["t1", "commit"]], learning: [], presumedAbort: [] }, "co"), field: "decisions", bad: [["t1", "maybe"]] },
  { checker: "commit.durability", event: ev("2pc.recover", { role: "participant", inDoubt: ["t1"], locks: ["x"], outcomes: [] }), field: "outcomes" },
  { checker: "commit.durability", event: ev("2pc.recover", { role: "participant", inDoubt: ["t1"], locks: ["x"], outcomes: [] }), field: "role", bad: "bystander" },
  { checker: "commit.blocking", event: ev("2pc.vote", { txn: "t1", vote: "yes", locks: ["x"], reason: "ok" }), field: "locks", bad: "x" },
  { checker: "commit.blocking", event: ev("3pc.request", { txn: "t1", key: "x", value: 1 }, "c1"), field: "txn" },
  { checker: "paxos.agreement", event: ev("paxos.accepted", { ballot: 1, value: "A", acceptors: 3 }, "a1"), field: "ballot", bad: 0 },
  { checker: "paxos.validity", event: ev("paxos.proposer.input", { value: "A", round: 1 }), field: "value" },
  { checker: "paxos.learned-chosen", event: ev("paxos.learned", { value: "A", via: "accepted" }, "l1"), field: "value", bad: { not: "a value" } },
  { checker: "paxos.learned-chosen", event: ev("paxos.accepted", { ballot: 1, value: "A", acceptors: 3 }, "a1"), field: "acceptors", bad: "three" },
  { checker: "paxos.learned-durable", event: ev("paxos.learned", { value: "A", via: "accepted" }, "l1"), field: "value", bad: { not: "a value" } },
  { checker: "paxos.liveness", event: ev("paxos.learner.recovered", { value: null }, "l1"), field: "value" },
  { checker: "paxos.liveness", event: ev("paxos.learner.recovered", { value: "A" }, "l1"), field: "value", bad: true },
  { checker: "multipaxos.slot-agreement", event: ev("multipaxos.accepted", { slot: 1, ballot: 1, command: "c1#1", acceptors: 3 }, "r1"), field: "acceptors", bad: "three" },
  { checker: "multipaxos.state-machine-safety", event: ev("multipaxos.apply", { slot: 1, command: "noop" }, "r1"), field: "slot", bad: 1.5 },
  { checker: "multipaxos.linearizable", event: ev("multipaxos.client.invoke", { client: "c1", reqId: 1, op: "put", key: "k1", value: "c1-1" }, "c1"), field: "value" },
  { checker: "multipaxos.linearizable", event: ev("multipaxos.client.complete", { client: "c1", reqId: 1, op: "get", key: "k1", value: null }, "c1"), field: "value" },
  { checker: "multipaxos.linearizable", event: ev("multipaxos.client.invoke", { client: "c1", reqId: 1, op: "get", key: "k1" }, "c1"), field: "op", bad: "cas" },
  { checker: "multipaxos.liveness", event: ev("multipaxos.apply", { slot: 3, command: "noop" }, "r1"), field: "slot", bad: "three" },
  { checker: "multipaxos.liveness", event: ev("multipaxos.accepted", { slot: 1, ballot: 1, command: "c1#1", acceptors: 3 }, "r1"), field: "command" },
  { checker: "commit.liveness", event: ev("3pc.vote", { txn: "t1", vote: "yes", locks: ["x"], reason: "ready" }), field: "vote", bad: "maybe" },
  { checker: "commit.liveness", event: ev("2pc.result", { txn: "t1", outcome: "commit", waitedMs: 3 }, "c1"), field: "txn" },
];

const FACTORIES = new Map<string, () => Checker>(PROTOCOL_CHECKERS);

describe("protocol checkers: a malformed event is a violation naming its index, kind and field", () => {
  it("every checker of check/protocols has a case", () => {
    expect([...FACTORIES.keys()].filter((n) => !CASES.some((c) => c.checker === n))).toEqual([]);
  });

  for (const c of CASES) {
    it(`${c.checker}: ${caseTitle(c)}`, () => expectMalformedCase(FACTORIES.get(c.checker)!, c));
  }
});
