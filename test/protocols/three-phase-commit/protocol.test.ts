import { describe, expect, it } from "vitest";
import { annotations, commitWorld, inspectOf } from "../commit-world.js";
import { msToUs } from "../../../src/sim/time.js";

const TX = [{ atMs: 100, client: "c1", key: "x", value: 1 }];
const slowCoordinator = { atMs: 0, kind: "disk", node: "coordinator", fault: "slow-fsync", fsyncLatencyMs: 100 };
const applied = (sim: ReturnType<typeof commitWorld>) => annotations(sim, "3pc.apply").map((e) => [e.node, e.fields?.outcome, e.fields?.by]);

describe("3PC participant timeout rules", () => {
  it("precommitted participants commit when the coordinator crashes before doCommit", async () => {
    const sim = commitWorld({ workload: { kind: "three-phase-commit", transactions: TX }, faults: [slowCoordinator, { atMs: 350, kind: "crash", node: "coordinator" }] });
    await sim.run({ untilUs: msToUs(3000) });
    expect(annotations(sim, "3pc.precommit").map((e) => e.node).sort()).toEqual(["p1", "p2", "p3"]);
    expect(applied(sim).map(([, o]) => o)).toEqual(["commit", "commit", "commit"]);
    for (const p of ["p1", "p2", "p3"]) expect(inspectOf(sim, p)).toMatchObject({ role: "participant", store: { x: 1 }, heldLocks: {} });
  });

  it("uncertain participants abort when the coordinator crashes before preCommit; the book-timeouts twin does so without asking", async () => {
    for (const [script, by] of [["3pc", "timeout"], ["3pc-book-timeouts", "timeout"]] as const) {
      const sim = commitWorld({ workload: { kind: "three-phase-commit", script, transactions: TX }, faults: [slowCoordinator, { atMs: 250, kind: "crash", node: "coordinator" }] });
      await sim.run({ untilUs: msToUs(3000) });
      expect(applied(sim), script).toEqual([
        [expect.any(String), "abort", by],
        [expect.any(String), "abort", by],
        [expect.any(String), "abort", by],
      ]);
      const asked = sim.trace.events.some((e) => e.kind === "send" && e.detail === "stateRequest");
      expect(asked, script).toBe(script === "3pc");
    }
  });

  it("an uncertain participant that hears a peer got preCommit commits (termination), where the book's bare rule aborts", async () => {
    // preCommit reaches p1 only: the coordinator crashes with the others in flight.
    const faults = [{ atMs: 0, kind: "delay", minMs: 30, maxMs: 30, from: ["coordinator"], to: ["p2", "p3"], oneWay: true }, { atMs: 0, kind: "disk", node: "coordinator", fault: "slow-fsync", fsyncLatencyMs: 50 }];
    // begin durable ~151 ms, votes back ~184 ms, preCommit durable and sent ~234 ms: p1 has it ~235 ms, p2 and p3 would ~264 ms.
    const crashAtMs = 245;
    const outcomes = async (script: string) => {
      const sim = commitWorld({ workload: { kind: "three-phase-commit", script, transactions: TX }, faults: [...faults, { atMs: crashAtMs, kind: "crash", node: "coordinator" }] });
      await sim.run({ untilUs: msToUs(4000) });
      expect(annotations(sim, "3pc.precommit").map((e) => e.node), script).toEqual(["p1"]);
      return applied(sim).map(([node, o]) => `${String(node)}:${String(o)}`).sort();
    };
    expect(await outcomes("3pc")).toEqual(["p1:commit", "p2:commit", "p3:commit"]);
    expect(await outcomes("3pc-book-timeouts")).toEqual(["p1:commit", "p2:abort", "p3:abort"]);
  });
});

describe("3PC coordinator recovery", () => {
  it("after preCommit it asks the participants and reports the outcome they reached", async () => {
    const sim = commitWorld({
      workload: { kind: "three-phase-commit", transactions: TX },
      faults: [slowCoordinator, { atMs: 350, kind: "crash", node: "coordinator" }, { atMs: 2500, kind: "disk", node: "coordinator", fault: "ok" }, { atMs: 3000, kind: "restart", node: "coordinator" }],
    });
    await sim.run({ untilUs: msToUs(5000) });
    const recover = annotations(sim, "3pc.recover").find((e) => e.node === "coordinator");
    expect(recover?.fields).toEqual({ role: "coordinator", decisions: [], learning: ["c1-1"], presumedAbort: [] });
    expect(annotations(sim, "3pc.end").map((e) => e.fields?.outcome)).toEqual(["commit"]);
    expect(annotations(sim, "3pc.result").map((e) => e.fields?.outcome)).toEqual(["commit"]);
  });
});
