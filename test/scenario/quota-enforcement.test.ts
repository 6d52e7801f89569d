// quota-enforcement: enforced quotas through the client library. It passes, is deterministic,
// and its canary (the quota root left out of its own count) is caught by scenario.expect; the
// other standalone scenarios never turn enforcement on, so no other run reaches checkQuota.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

describe("scenario: quota-enforcement", () => {
  const scenario = loadScenario("quota-enforcement");

  it("passes, the same seed twice gives the same trace", async () => {
    for (const seed of [1, 2]) {
      const r = await runScenario(scenario, { seed });
      expect(r.violations, `seed ${seed}`).toEqual([]);
      expect((await runScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
    }
  });

  it("catches quota-root-uncounted", async () => {
    const r = await runScenario(scenario, { seed: 1, canary: "quota-root-uncounted" });
    expect(r.violations.find((v) => v.checker === "scenario.expect")?.message).toMatch(/hard count limit of 3 .*expected QUOTAEXCEEDED/);
  });

  it("rejects an enforceQuota that is not a boolean, naming it", () => {
    const bad = { ...scenario, workload: { ...scenario.workload, params: { ...scenario.workload.params, enforceQuota: "yes" } } };
    return expect(runScenario(bad, { seed: 1 })).rejects.toThrow(/workload.enforceQuota: expected true or false/);
  });
});
