import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseFaultSchedule } from "../../src/sim/faults.js";
import type { Scenario } from "../../src/scenario/types.js";

/** Cases found by the recipe property tests, pinned with their seed and fault schedule. */
function withFaults(name: string, faults: unknown[]): Scenario {
  const base = loadScenario(name);
  const nodes = ["s1", "s2", "s3", "c1", "c2", "c3", "c4", "c5", "c6"];
  return { ...base, faults: parseFaultSchedule(faults, nodes) };
}

const S = ["s1", "s2", "s3"];

describe("regressions found by property testing", () => {
  it("client.sessions: two handles on one node, and a learner's unreported touches lost at its crash (recipe-lock, seed 1035467364)", async () => {
    const scenario = withFaults("recipe-lock", [
      { atMs: 14629, kind: "crash", node: "s3" },
      { atMs: 17691, kind: "cut", from: ["c1"], to: S },
      { atMs: 19971, kind: "cut", from: ["c4"], to: S },
      { atMs: 21270, kind: "restart", node: "s3" },
      { atMs: 21315, kind: "heal", from: ["c1"], to: S },
      { atMs: 25072, kind: "heal", from: ["c4"], to: S },
    ]);
    expect((await runScenario(scenario, { seed: 1035467364 })).violations).toEqual([]);
  });

  it("zab.prefix-consistency: a learner's sync-path log writes are announced (recipe-rw-lock, seed 1709869393)", async () => {
    const scenario = withFaults("recipe-rw-lock", [
      { atMs: 2011, kind: "crash", node: "s3" },
      { atMs: 3467, kind: "crash", node: "s2" },
      { atMs: 5543, kind: "restart", node: "s3" },
      { atMs: 6366, kind: "restart", node: "s2" },
      { atMs: 20551, kind: "crash", node: "s2" },
      { atMs: 21302, kind: "restart", node: "s2" },
    ]);
    expect((await runScenario(scenario, { seed: 1709869393 })).violations).toEqual([]);
  });
});
