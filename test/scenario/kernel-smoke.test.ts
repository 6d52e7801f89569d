import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

/**
 * Golden seeds: any change to what a seed produces shows up here, in review. When a change is
 * meant to alter runs (a new trace event, a different draw), update these hashes in the same
 * commit and say why.
 */
const GOLDEN: Record<number, string> = {
  1: "24dae2a95db94065",
  7: "48663a42b5eee61d",
  42: "7c62f0af9ff3356a",
};

describe("scenario: kernel-smoke", () => {
  const scenario = loadScenario("kernel-smoke");

  it("passes with every kernel checker on, and exercises every fault kind it schedules", async () => {
    const r = await runScenario(scenario, { seed: 1 });
    expect(r.violations).toEqual([]);
    expect(r.verdict).toBe("pass");
    for (const kind of ["partition", "heal", "crash", "restart", "pause", "resume", "hold", "duplicate", "disk.lost", "rpc.timeout", "conn.reset", "clog", "clock"]) {
      expect(r.counts[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    expect((r.counts["drop"] ?? 0) > 0).toBe(true);
  });

  it("same seed twice in one process gives the same trace hash", async () => {
    const a = await runScenario(scenario, { seed: 3 });
    const b = await runScenario(scenario, { seed: 3 });
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.events).toBe(b.events);
    const c = await runScenario(scenario, { seed: 4 });
    expect(c.traceHash).not.toBe(a.traceHash);
  });

  it("golden seeds keep their pinned hashes", async () => {
    for (const [seed, hash] of Object.entries(GOLDEN)) {
      const r = await runScenario(scenario, { seed: Number(seed) });
      expect(r.traceHash, `seed ${seed}`).toBe(hash);
    }
  });

  it("canary: with connections that reorder, the FIFO checker fails the run", async () => {
    const r = await runScenario(scenario, { seed: 1, canary: "connection-reorder" });
    expect(r.verdict).toBe("fail");
    expect(r.violations.some((v) => v.checker === "kernel.connection-fifo")).toBe(true);
    expect(r.violations[0]!.eventIndex).toBeGreaterThan(0);
  });

  it("retaining the trace does not change the hash", async () => {
    const a = await runScenario(scenario, { seed: 5 });
    const b = await runScenario(scenario, { seed: 5, retainTrace: true, keepHashes: true });
    expect(b.traceHash).toBe(a.traceHash);
  });
});
