import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Operation } from "../../../src/check/history/history.js";
import { checkLinearizable, zkModel } from "../../../src/check/linearizability/index.js";
import { generateLinearizableHistory, type HistoryGenOptions } from "../../../src/cli/bench-history.js";

const model = zkModel();
const unpartitioned = { ...zkModel(), partition: undefined };

const genOptions: fc.Arbitrary<HistoryGenOptions> = fc.record({
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  nOps: fc.integer({ min: 5, max: 60 }),
  clients: fc.integer({ min: 1, max: 5 }),
  paths: fc.integer({ min: 1, max: 4 }),
  indeterminateFraction: fc.constantFrom(0, 0.05, 0.15, 0.3),
  droppedResultFraction: fc.constantFrom(0, 0.1),
  queueFraction: fc.constantFrom(0, 0.1, 0.3),
  ephemeralFraction: fc.constantFrom(0, 0.2),
  multiFraction: fc.constantFrom(0, 0.1),
});

/** The history with one successful getData's data replaced by a value no one ever wrote. */
function withNeverWrittenRead(history: readonly Operation[], pick: number): Operation[] | undefined {
  const reads = history.filter((o) => o.op === "getData" && o.outcome === "ok" && o.result?.data !== undefined);
  if (reads.length === 0) return undefined;
  const victim = reads[pick % reads.length]!;
  return history.map((o) => (o === victim ? { ...o, result: { ...o.result, data: "never-written" } } : o));
}

const simpleWrite = (o: Operation) => (o.op === "setData" || o.op === "create") && o.outcome === "ok" && !(o.args.mode ?? "").includes("SEQUENTIAL");

/**
 * The history with one successful getData's data replaced by a value overwritten before the
 * read began: w wrote it, w2 (invoked after w completed) wrote that path again and completed
 * before the read was invoked. Data is unique per write, so no order explains the read, and
 * only the search can show it (every value in the history was written by someone).
 */
function withStaleRead(history: readonly Operation[], pick: number): { history: Operation[]; victim: Operation } | undefined {
  const cases: [Operation, Operation][] = [];
  for (const r of history) {
    if (r.op !== "getData" || r.outcome !== "ok") continue;
    const ws = history.filter((w) => simpleWrite(w) && w.path === r.path && w.completeUs! < r.invokeUs);
    for (const w of ws) if (ws.some((w2) => w2.invokeUs > w.completeUs! && w2.completeUs! < r.invokeUs)) cases.push([r, w]);
  }
  if (cases.length === 0) return undefined;
  const [victim, w] = cases[pick % cases.length]!;
  return { history: history.map((o) => (o === victim ? { ...o, result: { data: w.args.data ?? "" } } : o)), victim };
}

/** The history with one successful getData's data replaced by some other data written at its path. */
function withOtherWrittenRead(history: readonly Operation[], pick: number): Operation[] | undefined {
  const reads = history.filter((o) => o.op === "getData" && o.outcome === "ok" && o.result?.data !== undefined);
  if (reads.length === 0) return undefined;
  const victim = reads[pick % reads.length]!;
  const others = history.filter((w) => simpleWrite(w) && w.path === victim.path && w.args.data !== victim.result!.data);
  if (others.length === 0) return undefined;
  const w = others[Math.floor(pick / reads.length) % others.length]!;
  return history.map((o) => (o === victim ? { ...o, result: { data: w.args.data ?? "" } } : o));
}

describe("check: linearizability: properties", () => {
  it("accepts every history produced by a linearizable execution", () => {
    fc.assert(
      fc.property(genOptions, (opts) => {
        const history = generateLinearizableHistory(opts);
        const r = checkLinearizable(history, model);
        if (!r.ok) throw new Error(r.explanation);
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same verdict with and without partitioning", () => {
    fc.assert(
      fc.property(genOptions, fc.nat(), fc.boolean(), (opts, pick, mutate) => {
        const base = generateLinearizableHistory({ ...opts, nOps: Math.min(opts.nOps, 30) });
        const history = mutate ? (withOtherWrittenRead(base, pick) ?? base) : base;
        const a = checkLinearizable(history, model, { minimize: false });
        const b = checkLinearizable(history, unpartitioned, { minimize: false, maxSteps: 2_000_000 });
        if (b.ok === false && b.inconclusive) return; // the unpartitioned search may not finish; that is the point of partitions
        expect(a.ok).toBe(b.ok);
      }),
      { numRuns: 150 },
    );
  });

  it("canary: rejects the same histories with one read result mutated to a never-written value", () => {
    let mutated = 0;
    fc.assert(
      fc.property(genOptions, fc.nat(), (opts, pick) => {
        const history = withNeverWrittenRead(generateLinearizableHistory(opts), pick);
        if (history === undefined) return;
        mutated++;
        const r = checkLinearizable(history, model);
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.inconclusive).toBe(false);
          expect(r.explanation).toMatch(/never-written/);
          expect(r.minimalWindow.some((o) => o.result?.data === "never-written")).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
    expect(mutated).toBeGreaterThan(50);
  });

  it("canary: rejects the same histories with one read result mutated to an overwritten value (found by the search)", () => {
    let mutated = 0;
    fc.assert(
      fc.property(genOptions, fc.nat(), (opts, pick) => {
        const m = withStaleRead(generateLinearizableHistory({ ...opts, nOps: Math.min(opts.nOps, 40) }), pick);
        if (m === undefined) return;
        mutated++;
        const r = checkLinearizable(m.history, model);
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.inconclusive).toBe(false);
          expect(r.steps).toBeGreaterThan(0);
          expect(r.minimalWindow.some((o) => o.id === m.victim.id)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
    expect(mutated).toBeGreaterThan(50);
  });

  it("generates the same history from the same seed", () => {
    const a = generateLinearizableHistory({ seed: 7, nOps: 200, clients: 4, paths: 3 });
    const b = generateLinearizableHistory({ seed: 7, nOps: 200, clients: 4, paths: 3 });
    expect(a).toEqual(b);
    expect(generateLinearizableHistory({ seed: 8, nOps: 200, clients: 4, paths: 3 })).not.toEqual(a);
  });
});
