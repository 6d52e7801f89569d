// read-only-global-sessions and read-only-local-expiry: the sessions a read-only server gives and
// keeps, with local sessions off and on. Both pass and are deterministic; the canary
// read-only-sessions-never-expire (local sessions that never expire) is caught by the second.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

describe("scenarios: read-only sessions", () => {
  it.each(["read-only-global-sessions", "read-only-local-expiry"])("%s passes, the same seed twice gives the same trace", async (name) => {
    const scenario = loadScenario(name);
    const r = await runScenario(scenario, { seed: 1 });
    expect(r.violations).toEqual([]);
    expect((await runScenario(scenario, { seed: 1 })).traceHash).toBe(r.traceHash);
  });

  it("catches read-only-sessions-never-expire", async () => {
    const r = await runScenario(loadScenario("read-only-local-expiry"), { seed: 1, canary: "read-only-sessions-never-expire" });
    expect(r.violations.find((v) => v.checker === "scenario.expect")?.message).toMatch(/expired the local session of a silent client/);
  });
});
