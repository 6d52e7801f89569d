/**
 * The search hunting a target's canary at the target's bounds, depth-first with iterative
 * deepening, stopping at the first violation, judged by the canary's own checker (the correct
 * 2PC blocks too): test/search/canaries.test.ts, and canaries.deep.test.ts for the long hunt.
 */
import { search } from "../../src/search/engine.js";
import { targetFor } from "../../src/search/targets.js";

let clock = 0;

export async function huntCanary(name: string) {
  const t = targetFor(name);
  const canary = t.canary!;
  const r = await search({ ...t, variant: canary.variant }, { bounds: { ...t.bounds, strategy: "dfs", maxStates: undefined, ...canary.bounds }, from: "setup", stopAtFirst: true, checkers: [canary.checker], now: () => clock++ });
  return { r, checker: canary.checker };
}
