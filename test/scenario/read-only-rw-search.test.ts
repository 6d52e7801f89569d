// read-only-rw-search: a read-only client finds a read/write server by its own probes. It
// passes, is deterministic, and its canary (a client that ignores an "rw" probe answer) is caught
// here and not by read-only-mode, whose client gets its read/write session at the heal anyway.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

describe("scenario: read-only-rw-search", () => {
  const scenario = loadScenario("read-only-rw-search");

  it("passes, the same seed twice gives the same trace", async () => {
    for (const seed of [1, 2]) {
      const r = await runScenario(scenario, { seed });
      expect(r.violations, `seed ${seed}`).toEqual([]);
      expect((await runScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
    }
  });

  it("catches rw-probe-ignored, which read-only-mode does not", async () => {
    const r = await runScenario(scenario, { seed: 1, canary: "rw-probe-ignored" });
    expect(r.violations.map((v) => v.checker)).toContain("scenario.expect");
    expect(r.violations.find((v) => v.checker === "scenario.expect")?.message).toMatch(/probes find a read\/write server/);
    const old = await runScenario(loadScenario("read-only-mode"), { seed: 1, canary: "rw-probe-ignored" });
    expect(old.violations).toEqual([]);
  });
});
