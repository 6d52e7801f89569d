import { describe, expect, it } from "vitest";
import { parseScenario } from "../../src/scenario/parse.js";
import { runScenario } from "../../src/scenario/run.js";

/** The bench's client load (cli/bench.ts) in small: 3 voters, 4 clients, traffic until 4 s. */
function benchLoad(traffic: Record<string, unknown>) {
  return parseScenario(
    {
      name: "bench-load",
      durationMs: 4_500,
      convergence: false,
      disk: { fsyncLatencyMs: 1 },
      workload: { kind: "zk", script: "bench-traffic", servers: 3, clients: 4, traffic: { keys: 20, untilMs: 4_000, ...traffic } },
    },
    "test",
  );
}

describe("scenario: bench-traffic (the benchmarks' client load)", () => {
  it("a closed loop (opGapMsMax 0) passes every default checker and completes more ops than a 5 ms gap", async () => {
    const closed = await runScenario(benchLoad({ opGapMsMax: 0 }));
    expect(closed.violations).toEqual([]);
    const paced = await runScenario(benchLoad({ opGapMsMax: 5 }));
    expect(paced.violations).toEqual([]);
    const ops = (r: typeof closed) => r.counts["client.complete"] ?? 0;
    expect(ops(closed)).toBeGreaterThan(ops(paced));
  });

  it("a closed loop with nothing to send (every weight 0) waits 1 ms a turn instead of spinning at one instant", async () => {
    const none = { create: 0, setData: 0, getData: 0, delete: 0, multi: 0, ephemeral: 0, getChildren: 0 };
    const r = await runScenario(benchLoad({ opGapMsMax: 0, mix: none }));
    expect(r.violations).toEqual([]);
    expect(r.virtualMs).toBe(4_500);
  });
});
