import { describe, expect, it } from "vitest";
import { parseScenario } from "../../src/scenario/parse.js";
import { scenarioToDocument } from "../../src/scenario/replay-file.js";
import { runScenarioWithSim } from "../../src/scenario/run.js";
import { DEFAULT_CONVERGENCE_BUDGET_MS } from "../../src/scenario/types.js";
import { UserInputError } from "../../src/sim/errors.js";

/** A kernel-traffic scenario whose fault schedule leaves things broken at the end. */
function brokenAtTheEnd(extra: Record<string, unknown> = {}) {
  return parseScenario(
    {
      name: "left-broken",
      durationMs: 10_000,
      workload: { kind: "kernel-traffic", nodes: 3 },
      faults: [
        { atMs: 2_000, kind: "cut", from: ["n1"], to: ["n2"] },
        { atMs: 3_000, kind: "crash", node: "n3" },
        { atMs: 4_000, kind: "pause", node: "n2" },
        { atMs: 5_000, kind: "clog", from: ["n1"], to: ["n3"], extraDelayMs: 50 },
        { atMs: 6_000, kind: "disk", node: "n1", fault: "slow-fsync", fsyncLatencyMs: 300 },
      ],
      ...extra,
    },
    "test",
  );
}

describe("scenario: the convergence phase (fault phase → heal → convergence)", () => {
  it("ends every fault at durationMs and runs until the budget has passed since the last one", async () => {
    const { sim, result } = await runScenarioWithSim(brokenAtTheEnd(), { seed: 1, retainTrace: true });
    const atEnd = sim.trace.events.filter((e) => e.atUs === 10_000_000).map((e) => e.kind);
    expect(atEnd).toEqual(expect.arrayContaining(["heal", "unclog", "resume", "restart", "disk.fault"]));
    expect(sim.node("n2").status).toBe("up");
    expect(sim.node("n3").status).toBe("up");
    expect(sim.network.isCut("n1", "n2")).toBe(false);
    expect(result.virtualMs).toBe(10_000 + DEFAULT_CONVERGENCE_BUDGET_MS);
  });

  it("a scenario can opt out, or choose its budget", async () => {
    const { sim, result } = await runScenarioWithSim(brokenAtTheEnd({ convergence: false }), { seed: 1 });
    expect(result.virtualMs).toBe(10_000);
    expect(sim.node("n3").status).toBe("down");
    const short = await runScenarioWithSim(brokenAtTheEnd({ convergence: { budgetMs: 5_000 } }), { seed: 1 });
    expect(short.result.virtualMs).toBe(15_000);
  });

  it("a run without faults is not extended; a healed run only as far as the budget needs", async () => {
    const quiet = await runScenarioWithSim(parseScenario({ name: "q", durationMs: 10_000, workload: { kind: "kernel-traffic", nodes: 2 } }, "q"), { seed: 1 });
    expect(quiet.result.virtualMs).toBe(10_000);
    const healedEarly = parseScenario(
      { name: "h", durationMs: 60_000, workload: { kind: "kernel-traffic", nodes: 2 }, faults: [{ atMs: 1_000, kind: "crash", node: "n1" }, { atMs: 2_000, kind: "restart", node: "n1" }] },
      "h",
    );
    expect((await runScenarioWithSim(healedEarly, { seed: 1 })).result.virtualMs).toBe(60_000);
  });

  it("the document form round-trips; a bad value is a one-line error naming the field", () => {
    for (const convergence of [false, { budgetMs: 7_000 }]) {
      const s = brokenAtTheEnd({ convergence });
      expect(s.convergence).toEqual(convergence);
      expect(parseScenario(JSON.parse(JSON.stringify(scenarioToDocument(s))), "doc")).toEqual(s);
    }
    expect(() => brokenAtTheEnd({ convergence: true })).toThrow(UserInputError);
    expect(() => brokenAtTheEnd({ convergence: { budgetMs: 0 } })).toThrow(/convergence.*budgetMs/);
    expect(() => brokenAtTheEnd({ convergence: { budget: 5 } })).toThrow(/unknown field "budget"/);
  });
});
