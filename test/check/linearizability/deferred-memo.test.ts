/**
 * The search makes its memo's entries only once it first leaves a level (search.ts, `run`): until
 * then it has only gone deeper and no entry can be found again. With `trackDeepest` it makes each
 * at its level, as before; both must give the same answer, the same step count, and run out of
 * the memo's size limit at the same step — on valid histories, on histories made invalid (the
 * search backtracks), and at every limit from none to the smallest.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Operation } from "../../../src/check/history/history.js";
import { zkModel } from "../../../src/check/linearizability/index.js";
import { normalise, problemOf } from "../../../src/check/linearizability/wgl.js";
import { search } from "../../../src/check/linearizability/search.js";
import { generateLinearizableHistory } from "../../../src/cli/bench-history.js";

const model = zkModel();

/** Every partition's search, deferred and eager, at `maxMemoChars`: the results without `deepest`. */
function both(history: readonly Operation[], maxMemoChars: number | undefined) {
  const ops = normalise(history, true, true);
  const out: { deferred: unknown; eager: unknown }[] = [];
  for (const part of model.partition!(ops)) {
    const problem = problemOf(part, model, true, false);
    const limits = maxMemoChars === undefined ? {} : { maxMemoChars };
    const deferred = search(problem, model, 100_000, false, limits);
    const { deepest: _, ...eager } = search(problem, model, 100_000, true, limits);
    out.push({ deferred, eager });
  }
  return out;
}

/** A successful getData made to return data its path never held: the search must backtrack to refute it. */
function broken(history: readonly Operation[], pick: number): Operation[] {
  const reads = history.filter((o) => o.op === "getData" && o.outcome === "ok" && o.result?.data !== undefined);
  if (reads.length === 0) return [...history];
  const victim = reads[pick % reads.length]!;
  const writes = history.filter((w) => w.op === "setData" && w.path === victim.path && w.args.data !== victim.result!.data);
  const data = writes.length === 0 ? victim.result!.data : writes[pick % writes.length]!.args.data;
  return history.map((o) => (o === victim ? { ...o, result: { ...o.result, data } } : o));
}

describe("the search's deferred memo", () => {
  it("gives the eager memo's result, steps and memory exhaustion, at every memo limit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 10, max: 60 }),
        fc.integer({ min: 2, max: 6 }),
        fc.constantFrom(0, 0.15),
        fc.boolean(),
        fc.constantFrom(undefined, 10_000, 400, 120, 40, 1),
        (seed, nOps, clients, indeterminateFraction, breakIt, limit) => {
          const valid = generateLinearizableHistory({ seed, nOps, clients, paths: 1, indeterminateFraction, droppedResultFraction: 0, queueFraction: 0.1, ephemeralFraction: 0.2, multiFraction: 0 });
          const history = breakIt ? broken(valid, seed) : valid;
          for (const { deferred, eager } of both(history, limit)) expect(deferred).toEqual(eager);
        },
      ),
      { numRuns: 200, seed: 44 },
    );
  });

  it("runs out of a small memo at the step the eager memo does, on a history searched without backtracking", () => {
    const history = generateLinearizableHistory({ seed: 7, nOps: 40, clients: 1, paths: 1, indeterminateFraction: 0, droppedResultFraction: 0, queueFraction: 0, ephemeralFraction: 0, multiFraction: 0 });
    const unlimited = both(history, undefined);
    expect(unlimited.some(({ eager }) => (eager as { steps: number }).steps > 10)).toBe(true);
    for (const limit of [200, 100, 50]) {
      const results = both(history, limit);
      expect(results.some(({ eager }) => (eager as { exhaustedBy?: string }).exhaustedBy === "memory")).toBe(true);
      for (const { deferred, eager } of results) expect(deferred).toEqual(eager);
    }
  });
});
