import { describe, expect, it } from "vitest";
import { asEvent } from "../../helpers/loose-events.js";
import { runCheckers } from "../../../src/check/checker.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { MultiPaxosSlotAgreementChecker } from "../../../src/check/protocols/multipaxos-slot-agreement.js";
import { MultiPaxosStateMachineChecker } from "../../../src/check/protocols/multipaxos-state-machine.js";
import { MultiPaxosLinearizableChecker } from "../../../src/check/protocols/multipaxos-linearizable.js";

/** Canaries for every Multi-Paxos checker: hand-made traces that keep and break each invariant. */
let index = 0;
const ev = (atMs: number, kind: string, node: string, fields: Record<string, unknown>): TraceEvent => asEvent({ index: index++, atUs: atMs * 1000, kind, node, fields });
const acc = (atMs: number, node: string, slot: number, ballot: number, command: string) => ev(atMs, "multipaxos.accepted", node, { slot, ballot, command, acceptors: 3 });

describe("multi-paxos checkers", () => {
  it("slot agreement: two commands each accepted by a majority in one slot fail", () => {
    const ok = [acc(1, "r1", 0, 1, "c1#1"), acc(2, "r2", 0, 1, "c1#1"), acc(3, "r2", 1, 1, "c2#1"), acc(4, "r3", 1, 1, "c2#1")];
    expect(runCheckers([new MultiPaxosSlotAgreementChecker()], ok)).toEqual([]);
    const two = [acc(1, "r1", 0, 1, "c1#1"), acc(2, "r2", 0, 1, "c1#1"), acc(3, "r2", 0, 2, "c2#1"), acc(4, "r3", 0, 2, "c2#1")];
    expect(runCheckers([new MultiPaxosSlotAgreementChecker()], two)[0]!.message).toContain("slot 0 has two chosen commands: c1#1 at ballot 1 and c2#1 at ballot 2");
    expect(runCheckers([new MultiPaxosSlotAgreementChecker()], [ev(1, "multipaxos.accepted", "r1", { slot: "x" })])[0]!.message).toContain("malformed");
  });

  it("state-machine safety: two replicas applying different commands in a slot fail", () => {
    const apply = (node: string, slot: number, command: string) => ev(slot, "multipaxos.apply", node, { slot, command });
    expect(runCheckers([new MultiPaxosStateMachineChecker()], [apply("r1", 0, "noop"), apply("r2", 0, "noop")])).toEqual([]);
    expect(runCheckers([new MultiPaxosStateMachineChecker()], [apply("r1", 0, "c1#1"), apply("r2", 0, "c2#1")])[0]!.message).toContain("diverge");
  });

  it("linearizable: a read of a value a completed later write replaced fails; an overlapping one passes", () => {
    const inv = (atMs: number, client: string, reqId: number, op: string, value?: string) => ev(atMs, "multipaxos.client.invoke", client, { client, reqId, op, key: "k1", ...(value !== undefined ? { value } : {}) });
    const done = (atMs: number, client: string, reqId: number, op: string, value?: string | null) => ev(atMs, "multipaxos.client.complete", client, { client, reqId, op, key: "k1", ...(value !== undefined ? { value } : {}) });
    const writes = [inv(0, "c1", 1, "put", "a"), done(10, "c1", 1, "put"), inv(20, "c1", 2, "put", "b"), done(30, "c1", 2, "put")];
    const stale = [...writes, inv(40, "c2", 1, "get"), done(45, "c2", 1, "get", "a")];
    const v = runCheckers([new MultiPaxosLinearizableChecker()], stale);
    expect(v[0]!.message).toContain("not linearizable on key k1");
    const overlapping = [...writes.slice(0, 3), inv(22, "c2", 1, "get"), done(25, "c2", 1, "get", "a"), writes[3]!];
    expect(runCheckers([new MultiPaxosLinearizableChecker()], overlapping)).toEqual([]);
    // An unanswered put may have happened: a read of its value is fine.
    expect(runCheckers([new MultiPaxosLinearizableChecker()], [inv(0, "c1", 1, "put", "z"), inv(5, "c2", 1, "get"), done(6, "c2", 1, "get", "z")])).toEqual([]);
  });
});
