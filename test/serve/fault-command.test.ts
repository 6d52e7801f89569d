/** Fault commands typed while serving become the same fault entries scenario files hold, validated by the same parser. */
import { describe, expect, it } from "vitest";
import { parseFaultCommand, withGatewaysInPartition } from "../../src/serve/fault-command.js";

const NODES = ["s1", "s2", "s3", "c1", "c2", "c3"];

describe("serve: fault commands", () => {
  it("serve: fault commands: the vocabulary of scenario files", () => {
    expect(parseFaultCommand("crash s2", NODES)).toEqual({ action: { kind: "crash", node: "s2" } });
    expect(parseFaultCommand("pause s2 for 4s", NODES)).toEqual({ action: { kind: "pause", node: "s2" }, forMs: 4000 });
    expect(parseFaultCommand("partition s1 | s2 s3", NODES).action).toEqual({ kind: "partition", groups: [["s1"], ["s2", "s3"]] });
    expect(parseFaultCommand("cut s1 -> s3", NODES).action).toEqual({ kind: "cut", from: ["s1"], to: ["s3"], oneWay: true });
    expect(parseFaultCommand("cut s1 <-> s3", NODES).action).toEqual({ kind: "cut", from: ["s1"], to: ["s3"], oneWay: false });
    expect(parseFaultCommand("heal", NODES).action).toEqual({ kind: "heal" });
    expect(parseFaultCommand("cut s1 s2 -> s3,c3 for 1.5s", NODES)).toEqual({ action: { kind: "cut", from: ["s1", "s2"], to: ["s3", "c3"], oneWay: true }, forMs: 1500 });
    expect(parseFaultCommand("clog s1 -> s2 200ms", NODES).action).toEqual({ kind: "clog", from: ["s1"], to: ["s2"], extraDelayMs: 200, oneWay: true });
    expect(parseFaultCommand("loss 0.5 c1 -> s1", NODES).action).toEqual({ kind: "loss", rate: 0.5, from: ["c1"], to: ["s1"], oneWay: true });
    expect(parseFaultCommand("disk s1 slow-fsync 1.5s", NODES).action).toEqual({ kind: "disk", node: "s1", fault: "slow-fsync", fsyncLatencyMs: 1500 });
  });

  it("serve: fault commands: mistakes are user errors from the scenario parser", () => {
    expect(() => parseFaultCommand("crash s9", NODES)).toThrow(/unknown node "s9"/);
    expect(() => parseFaultCommand("partition s1 | s1", NODES)).toThrow(/more than one group/);
    expect(() => parseFaultCommand("cut s1 s3", NODES)).toThrow(/expected "A B -> C"/);
    expect(() => parseFaultCommand("pause s2 for 4 seconds", NODES)).toThrow(/expected "for DURATION" at the end/);
    expect(() => parseFaultCommand("pause s2 for 4sec", NODES)).toThrow(/duration like 200ms/);
    expect(() => parseFaultCommand("pause s2 4s", NODES)).toThrow(/pause: unexpected "4s" \(expected: pause NODE\)/);
    expect(() => parseFaultCommand("loss 2", NODES)).toThrow(/rate/);
    expect(() => parseFaultCommand("", NODES)).toThrow(/empty command/);
  });

  it("serve: fault commands: a partition keeps each server's real clients with it unless they are named", () => {
    const gw = new Map([["s1", "c1"], ["s2", "c2"], ["s3", "c3"]]);
    expect(withGatewaysInPartition({ kind: "partition", groups: [["s1"], ["s2", "s3"]] }, gw)).toEqual({ kind: "partition", groups: [["s1", "c1"], ["s2", "s3", "c2", "c3"]] });
    expect(withGatewaysInPartition({ kind: "partition", groups: [["s1", "c2"], ["s2"]] }, gw)).toEqual({ kind: "partition", groups: [["s1", "c2", "c1"], ["s2"]] });
    expect(withGatewaysInPartition({ kind: "crash", node: "s1" }, gw)).toEqual({ kind: "crash", node: "s1" });
  });
});
