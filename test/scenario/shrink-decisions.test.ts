import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { compareReplay, runReplayCase } from "../../src/scenario/replay.js";
import { shrinkCase } from "../../src/scenario/shrink.js";
import { runScenario } from "../../src/scenario/run.js";
import { replayCaseFromRun } from "../../src/scenario/replay-file.js";
import type { RunOptions } from "../../src/scenario/types.js";

describe("scenario: shrink: decision stream", () => {
  it("a counting tape changes nothing: same trace hash as a run without a tape", async () => {
    for (const name of ["kernel-smoke", "zab-isolated-leader"]) {
      const s = loadScenario(name);
      const bare = await runScenario(s);
      const counted = await runScenario(s, { simplify: [] });
      expect(counted.traceHash).toBe(bare.traceHash);
      expect(bare.decisions).toBeUndefined();
      expect(counted.decisions!.length).toBeGreaterThan(0);
    }
  });

  it("zab-isolated-leader --canary minority-commit: most draws simplified; the shrunk case replays with its hash", async () => {
    const scenario = loadScenario("zab-isolated-leader");
    const options: RunOptions = { seed: 1, canary: "minority-commit" };
    const original = replayCaseFromRun(scenario, options, await runScenario(scenario, options));
    expect(original.expected.verdict).toBe("fail");
    const outcome = (await shrinkCase(original, 40))!;
    expect(outcome.runsUsed).toBeLessThanOrEqual(40);
    const { draws, simplified, runs } = outcome.decisions;
    expect(runs).toBeGreaterThan(0);
    expect(draws).toBeGreaterThan(100);
    expect(simplified / draws).toBeGreaterThan(0.5);
    const shrunk = outcome.shrunk;
    expect(shrunk.simplify.length).toBeGreaterThan(0);
    const replayed = await runReplayCase(shrunk);
    expect(replayed.traceHash).toBe(shrunk.expected.traceHash);
    expect(compareReplay(shrunk, replayed).reproduced).toBe(true);
    expect(replayed.violations.map((v) => v.checker)).toContain(original.expected.violations[0]!.checker);
    // The simplification is what makes this run: without it, the same scenario runs differently.
    expect((await runReplayCase({ ...shrunk, simplify: [] })).traceHash).not.toBe(shrunk.expected.traceHash);
  });
});
