import { describe, expect, it } from "vitest";
import { Simulator } from "../../src/sim/simulator.js";
import { makeScriptContext } from "../../src/scenario/scripts/script.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

function scriptContext() {
  const reported: string[] = [];
  const narrated: string[] = [];
  const s = makeScriptContext(new Simulator({ seed: 1 }), ["s1"], ["c1"], { report: (_checker, message) => reported.push(message), note: (line) => narrated.push(line) });
  return { s, reported, narrated };
}

describe("a script's narrative states what happened only when it did", () => {
  it("the closing line is narrated when every expectation held", () => {
    const { s, reported, narrated } = scriptContext();
    expect(s.expect(true, "holds")).toBe(true);
    expect(s.expectEqual(["p1", "p2"], ["p1", "p2"], "P1 and P2 survived")).toBe(true);
    s.conclude("P1 and P2 were committed");
    expect(reported).toEqual([]);
    expect(narrated).toEqual(["P1 and P2 were committed"]);
  });

  it("after a failed expectation the closing line is left out (plain notes stay)", () => {
    const { s, reported, narrated } = scriptContext();
    expect(s.expectEqual(["p1"], ["p1", "p2"], "P1 and P2 survived")).toBe(false);
    s.note("n2 leads the next epoch");
    s.conclude("P1 and P2 were committed");
    expect(reported).toEqual(['P1 and P2 survived: expected ["p1","p2"], got ["p1"]']);
    expect(narrated).toEqual(["n2 leads the next epoch"]);
  });

  it("zab-leader-crash-before-commit ends its passing run with the conclusion", async () => {
    const r = await runScenario(loadScenario("zab-leader-crash-before-commit"), { seed: 1 });
    expect(r.verdict).toBe("pass");
    expect(r.narrative.at(-1)).toMatch(/^P1 and P2 were committed by the new leader/);
  });
});
