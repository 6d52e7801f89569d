/**
 * The search catches each cheap canary at its target's bounds (docs/model-checking.md): the
 * 2PC coordinator that announces its decision before it is durable, 3PC's participant that
 * commits when uncertain (found through a partition), and the ZAB world's bug-zoo ZK-2845 (the
 * ZAB target's canary). Depth-first with iterative deepening, stopping at the first violation;
 * judged by the canary's own checker (the correct 2PC blocks too). The Paxos and Multi-Paxos canaries take tens of
 * CPU seconds: `zksim bench check-model` finds them (its states_to_find figures).
 */
import { describe, expect, it } from "vitest";
import { search } from "../../src/search/engine.js";
import { TARGETS, targetFor } from "../../src/search/targets.js";

let clock = 0;

async function huntCanary(name: string) {
  const t = targetFor(name);
  const canary = t.canary!;
  const r = await search({ ...t, variant: canary.variant }, { bounds: { ...t.bounds, strategy: "dfs", maxStates: undefined, ...canary.bounds }, from: "setup", stopAtFirst: true, checkers: [canary.checker], now: () => clock++ });
  return { r, checker: canary.checker };
}

describe("search: canaries", () => {
  it("search: canaries: every target names a canary, a variant its world has", () => {
    for (const t of TARGETS) {
      expect(t.canary, t.name).toBeDefined();
      expect(t.adapter.variants, t.name).toContain(t.canary!.variant);
    }
  });

  for (const name of ["2pc", "3pc", "zab"]) {
    it(`search: canaries: ${name}'s canary is found by its checker`, async () => {
      const { r, checker } = await huntCanary(name);
      expect(r.outcome).toBe("found");
      expect(r.found.map((f) => f.checker)).toEqual([checker]);
    }, 600_000);
  }
});
