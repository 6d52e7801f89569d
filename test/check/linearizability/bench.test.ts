import { describe, expect, it } from "vitest";
import { checkLinearizable, zkModel } from "../../../src/check/linearizability/index.js";
import { benchmarkLinearizability } from "../../../src/cli/bench-history.js";

describe("check: linearizability: benchmark history (10k ops)", () => {
  it("is linearizable, and its check time is printed (not asserted)", () => {
    const history = benchmarkLinearizability();
    expect(history).toHaveLength(10_000);
    expect(history.filter((o) => o.outcome === "unknown").length).toBeGreaterThan(300);
    const t0 = performance.now();
    const r = checkLinearizable(history, zkModel());
    const ms = performance.now() - t0;
    console.log(`linearizability: 10,000-op history checked in ${ms.toFixed(0)} ms (${r.ok ? `ok, ${r.partitions} partitions, ${r.steps} model steps` : "FAILED"})`);
    expect(r.ok).toBe(true);
  });

  it("is deterministic", () => {
    expect(benchmarkLinearizability(500)).toEqual(benchmarkLinearizability(500));
  });
});
