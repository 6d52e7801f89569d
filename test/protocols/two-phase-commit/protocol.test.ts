import { describe, expect, it } from "vitest";
import { annotations, commitWorld, inspectOf } from "../commit-world.js";
import { msToUs } from "../../../src/sim/time.js";

const TX = [{ atMs: 100, client: "c1", key: "x", value: 1 }];

describe("2PC participant", () => {
  it("votes Yes only after its undo/redo record is fsynced (and the vote-before-log twin before)", async () => {
    for (const [script, durableFirst] of [["2pc", true], ["2pc-vote-before-log", false]] as const) {
      const sim = commitWorld({ workload: { kind: "two-phase-commit", script, transactions: TX } });
      await sim.run({ untilUs: msToUs(1000) });
      for (const vote of annotations(sim, "2pc.vote")) {
        const synced = sim.trace.events.some((e) => e.kind === "disk.fsync.done" && e.node === vote.node && e.index < vote.index);
        expect(synced, `${script} ${vote.node}`).toBe(durableFirst);
      }
    }
  });

  it("in doubt, holds its lock and keeps asking while the coordinator is down; inspect() shows it", async () => {
    const sim = commitWorld({
      workload: { kind: "two-phase-commit", transactions: TX },
      faults: [
        { atMs: 0, kind: "disk", node: "coordinator", fault: "slow-fsync", fsyncLatencyMs: 100 },
        { atMs: 250, kind: "crash", node: "coordinator" },
      ],
    });
    await sim.run({ untilUs: msToUs(5000) });
    for (const p of ["p1", "p2", "p3"]) {
      expect(inspectOf(sim, p)).toMatchObject({ role: "participant", heldLocks: { x: "c1-1" }, inDoubt: ["c1-1"] });
    }
    expect(annotations(sim, "2pc.in-doubt").length).toBeGreaterThan(3);
    expect(annotations(sim, "2pc.apply")).toEqual([]);
    expect(inspectOf(sim, "c1")).toMatchObject({ role: "client", waitingFor: "c1-1" });
  });

  it("cooperative termination: in doubt after the crash of 2pc-partial-commit, p2 and p3 learn Commit from p1", async () => {
    const sim = commitWorld({
      workload: { kind: "two-phase-commit", termination: "cooperative", transactions: TX },
      faults: [
        { atMs: 0, kind: "delay", minMs: 50, maxMs: 50, from: ["coordinator"], to: ["p2", "p3"], oneWay: true },
        { atMs: 170, kind: "cut", from: ["coordinator"], to: ["p2", "p3"], oneWay: true },
        { atMs: 180, kind: "crash", node: "coordinator" },
      ],
    });
    await sim.run({ untilUs: msToUs(3000) });
    const applied = annotations(sim, "2pc.apply").map((e) => [e.node, e.fields?.outcome, e.fields?.by]);
    expect(applied).toEqual(expect.arrayContaining([["p1", "commit", "coordinator"], ["p2", "commit", "peer"], ["p3", "commit", "peer"]]));
  });

  it("a participant asked before it voted aborts alone, durably, and then votes No", async () => {
    const sim = commitWorld({
      workload: { kind: "two-phase-commit", participants: 2, termination: "cooperative", transactions: TX },
      faults: [
        { atMs: 0, kind: "delay", minMs: 1500, maxMs: 1500, from: ["coordinator"], to: ["p2"], oneWay: true },
        { atMs: 300, kind: "crash", node: "coordinator" },
        { atMs: 3000, kind: "restart", node: "coordinator" },
      ],
    });
    await sim.run({ untilUs: msToUs(5000) });
    const applied = annotations(sim, "2pc.apply").map((e) => [e.node, e.fields?.outcome, e.fields?.by]);
    expect(applied).toEqual([["p2", "rollback", "termination"], ["p1", "rollback", "peer"]]);
    expect(annotations(sim, "2pc.decision").map((e) => e.fields?.decision)).toEqual(["rollback"]);
  });
});

describe("2PC coordinator", () => {
  it("recovers a logged decision and announces it again; presumes abort for an undecided one", async () => {
    const sim = commitWorld({
      workload: { kind: "two-phase-commit", clients: 2, transactions: [...TX, { atMs: 400, client: "c2", key: "y", value: 2 }] },
      faults: [
        { atMs: 0, kind: "delay", minMs: 200, maxMs: 200, from: ["p1"], to: ["coordinator"], oneWay: true },
        { atMs: 450, kind: "crash", node: "coordinator" },
        { atMs: 1000, kind: "restart", node: "coordinator" },
      ],
    });
    await sim.run({ untilUs: msToUs(3000) });
    const recover = annotations(sim, "2pc.recover").find((e) => e.node === "coordinator");
    expect(recover?.fields).toEqual({ role: "coordinator", decisions: [["c1-1", "commit"]], presumedAbort: ["c2-1"] });
    expect(inspectOf(sim, "coordinator")).toMatchObject({ role: "coordinator", txns: [{ txn: "c1-1", phase: "ended", decision: "commit" }, { txn: "c2-1", phase: "ended", decision: "rollback" }] });
  });
});
