import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

describe("ensemble: swarm: zab-random-faults", () => {
  const scenario = loadScenario("zab-random-faults");
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1);

  it("seeds 1–20 pass with every checker on", async () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const r = await runScenario(scenario, { seed });
      for (const v of r.violations) failures.push(`seed ${seed}: [${v.checker}] ${v.message}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it("same seed, same trace hash (and different seeds, different runs)", async () => {
    const hashes: string[] = [];
    for (const seed of [1, 2, 3]) {
      const a = await runScenario(scenario, { seed });
      const b = await runScenario(scenario, { seed });
      expect(b.traceHash, `seed ${seed}`).toBe(a.traceHash);
      hashes.push(a.traceHash);
    }
    expect(new Set(hashes).size).toBe(hashes.length);
  }, 60_000);
});
