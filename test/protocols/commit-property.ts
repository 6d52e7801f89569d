/**
 * fast-check over generated fault schedules for the commit protocols: a few transactions from
 * two clients on two keys, and up to four faults (a node crashed and restarted, or the nodes
 * split in two and healed) inside a short window; then heal and converge.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import "../helpers/fast-check-seed.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { runScenario } from "../../src/scenario/run.js";

const SERVERS = ["coordinator", "p1", "p2", "p3"];

const crash = fc.record({ kind: fc.constant("crash" as const), node: fc.constantFrom(...SERVERS), atMs: fc.integer({ min: 50, max: 2500 }), forMs: fc.integer({ min: 0, max: 2000 }) });
const split = fc.record({ kind: fc.constant("split" as const), side: fc.subarray(SERVERS, { minLength: 1, maxLength: 3 }), atMs: fc.integer({ min: 50, max: 2500 }), forMs: fc.integer({ min: 0, max: 2000 }) });
const txn = fc.record({ atMs: fc.integer({ min: 50, max: 2000 }), client: fc.constantFrom("c1", "c2"), key: fc.constantFrom("x", "y"), value: fc.integer({ min: 1, max: 9 }) });

export type FaultPlan = { kind: "crash"; node: string; atMs: number; forMs: number } | { kind: "split"; side: string[]; atMs: number; forMs: number };

export function commitCase(partitions: boolean) {
  return fc.record({
    faults: fc.array(partitions ? fc.oneof(crash, split) : crash, { maxLength: 4 }),
    transactions: fc.array(txn, { minLength: 1, maxLength: 6 }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
  });
}

function faultSchedule(plans: FaultPlan[]): unknown[] {
  return plans.flatMap((f): unknown[] => {
    if (f.kind === "crash") return [{ atMs: f.atMs, kind: "crash", node: f.node }, { atMs: f.atMs + f.forMs, kind: "start", node: f.node }];
    const rest = SERVERS.filter((s) => !f.side.includes(s));
    return [{ atMs: f.atMs, kind: "cut", from: f.side, to: rest }, { atMs: f.atMs + f.forMs, kind: "heal", from: f.side, to: rest }];
  });
}

/** The checkers that failed on one generated case (commit.blocking left out: 2PC is allowed to block). */
type CommitCase = { faults: FaultPlan[]; transactions: unknown[]; seed: number };

export async function failedCheckers(kind: string, script: string, c: CommitCase): Promise<string[]> {
  const scenario = parseScenario(
    {
      name: `property-${script}`,
      durationMs: 5000,
      convergence: { budgetMs: 4000 },
      workload: { kind, script, clients: 2, transactions: c.transactions },
      faults: faultSchedule(c.faults),
      checkers: ["commit.atomicity", "commit.validity", "commit.durability"],
    },
    "property",
  );
  const r = await runScenario(scenario, { seed: c.seed });
  return [...new Set(r.violations.map((v) => v.checker))];
}

/** The two properties every commit protocol has: it holds under `faults`, and its broken twin fails. */
export function commitProperties(title: string, kind: string, script: string, partitions: boolean, twin: string): void {
  describe(title, () => {
    it(`keeps atomicity, validity and durability under generated ${partitions ? "crashes and partitions" : "crashes"}`, async () => {
      const holds = async (c: CommitCase) => {
        expect(await failedCheckers(kind, script, c)).toEqual([]);
      };
      await fc.assert(fc.asyncProperty(commitCase(partitions), holds), { numRuns: 40 });
    }, 60_000);

    it(`catches the ${twin} twin on the same generated faults`, async () => {
      const holds = async (c: CommitCase) => (await failedCheckers(kind, twin, c)).length === 0;
      const r = await fc.check(fc.asyncProperty(commitCase(partitions), holds), { numRuns: 50, endOnFailure: true });
      expect(r.failed).toBe(true);
      expect(r.counterexample![0].faults.length).toBeGreaterThan(0);
    }, 60_000);
  });
}
