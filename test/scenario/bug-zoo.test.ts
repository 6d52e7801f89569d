import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { BUG_ZOO, normalizeBugId } from "../../src/scenario/bug-zoo.js";
import { BUG_IDS, bugIdSet, isBugId, type BugId } from "../../src/zk/server/bug-id.js";

describe("bug zoo", () => {
  it("ids normalise: 1154, ZK-1154 and ZOOKEEPER-1154 are one bug", () => {
    expect(["1154", "ZK-1154", "zookeeper-1154"].map(normalizeBugId)).toEqual(["ZK-1154", "ZK-1154", "ZK-1154"]);
  });

  it("the catalogue has one entry per server BugId, and an id outside the zoo is refused", () => {
    expect(BUG_ZOO.map((b) => b.id)).toEqual([...BUG_IDS]);
    // @ts-expect-error ZK-1277 is not in the zoo: naming it where a BugId is wanted does not compile.
    const outside: BugId = "ZK-1277";
    expect(isBugId(outside)).toBe(false);
    expect(() => bugIdSet(["ZK-1154", outside])).toThrow(/unknown bug "ZK-1277"/);
  });

  for (const bug of BUG_ZOO) {
    it(`${bug.id}: ${bug.scenario} passes without the bug and fails ${bug.invariant} with it`, async () => {
      const scenario = loadScenario(bug.scenario);
      const clean = await runScenario(scenario, { seed: scenario.defaultSeed });
      expect(clean.violations, "without the bug").toEqual([]);
      const buggy = await runScenario(scenario, { seed: scenario.defaultSeed, bugs: [bug.id] });
      expect(buggy.verdict).toBe("fail");
      expect(buggy.violations.map((v) => v.checker)).toContain(bug.invariant);
    });
  }
});
