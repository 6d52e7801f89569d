/**
 * The search catches each cheap canary at its target's bounds (docs/model-checking.md): 3PC's
 * participant that commits when uncertain (found through a partition) and the ZAB world's bug-zoo
 * ZK-2845 (the ZAB target's canary). Depth-first with iterative deepening, stopping at the first
 * violation; judged by the canary's own checker. The 2PC coordinator that announces its decision
 * before it is durable takes a 30 s hunt: canaries.deep.test.ts (`npm run test:deep`). The Paxos
 * and Multi-Paxos canaries take tens of CPU seconds: `zksim bench check-model` finds them (its
 * states_to_find figures).
 */
import { describe, expect, it } from "vitest";
import { TARGETS } from "../../src/search/targets.js";
import { huntCanary } from "./hunt-canary.js";

/** The canaries hunted in `npm test` (2PC's in canaries.deep.test.ts). */
const QUICK_CANARIES = ["3pc", "zab"];

describe("search: canaries", () => {
  it("search: canaries: every target names a canary, a variant its world has", () => {
    for (const t of TARGETS) {
      expect(t.canary, t.name).toBeDefined();
      expect(t.adapter.variants, t.name).toContain(t.canary!.variant);
    }
  });

  for (const name of QUICK_CANARIES) {
    it(`search: canaries: ${name}'s canary is found by its checker`, async () => {
      const { r, checker } = await huntCanary(name);
      expect(r.outcome).toBe("found");
      expect(r.found.map((f) => f.checker)).toEqual([checker]);
    }, 600_000);
  }
});
