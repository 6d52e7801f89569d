/**
 * The coverage report of `userScriptProperty`: after a run it says what the generated cases
 * reached — fault kinds drawn, operations per kind with their outcomes, session events, leader
 * changes, the user's labels — and names a declared label no case reached; in text by default,
 * as one JSON line with `coverage: "json"`, attached to the failure when the property fails.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { SimulationFailure, userScriptProperty } from "../../src/api/index.js";
import { CoverageAccumulator, formatCoverage } from "../../src/property/coverage-report.js";
import { labelled, typedStale } from "./fixtures/typed-scripts.mjs";

const dir = mkdtempSync(join(tmpdir(), "zksim-coverage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("userScriptProperty's coverage report", () => {
  test("sums the generated cases: faults, operations and outcomes, sessions, leaders, labels; names the label never reached", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const { coverage } = await userScriptProperty(labelled, { numRuns: 4, seed: 3, outDir: dir, faults: { kinds: ["partition", "crash"], maxDisruptions: 3 } });
    const text = log.mock.calls.map((c) => String(c[0])).join("\n");
    log.mockRestore();
    expect(coverage.runs).toBe(4);
    expect(Object.keys(coverage.faults).every((k) => k === "partition" || k === "crash")).toBe(true);
    expect(Object.values(coverage.faults).reduce((n, f) => n + f.total, 0)).toBeGreaterThan(0);
    expect(coverage.ops.create!.runs).toBe(4);
    expect(coverage.ops.setData!.ok + coverage.ops.setData!.fail + coverage.ops.setData!.unknown + coverage.ops.setData!.pending).toBe(40);
    expect(coverage.labels.wrote).toBe(4);
    expect(coverage.neverReached).toContain("saw-expiry");
    expect(coverage.neverReached).not.toContain("wrote");
    expect(text).toContain("userScriptProperty(labelled) coverage: 4 generated cases");
    expect(text).toMatch(/operations: .*setData \d+ ok \/ \d+ fail \/ \d+ unknown/);
    expect(text).toMatch(/NEVER REACHED: .*saw-expiry/);
  });

  test("coverage: json prints one JSON line; a failing property attaches the report to its failure", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const failure = await userScriptProperty(typedStale, { numRuns: 3, seed: 1, outDir: dir, faults: { kinds: ["pause"], maxDisruptions: 1 }, maxShrinkRuns: 2, coverage: "json" }).catch((err: unknown) => err);
    const lines = log.mock.calls.map((c) => String(c[0]));
    log.mockRestore();
    expect(failure).toBeInstanceOf(SimulationFailure);
    const coverage = (failure as SimulationFailure).coverage!;
    expect(coverage.runs).toBe(1); // the first case fails; shrinking runs are not counted
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({ coverage });
  });

  test("the text form says what was never seen", () => {
    const acc = new CoverageAccumulator(["took-lock"]);
    acc.add({ faults: ["pause", "pause"], ops: { create: { ok: 1, fail: 0, unknown: 1, pending: 0 } }, disconnects: 2, expiries: 1, moved: 0, leaderChanges: 1, labels: [] });
    acc.add({ faults: [], ops: {}, disconnects: 0, expiries: 0, moved: 0, leaderChanges: 0, labels: [] });
    expect(formatCoverage(acc.result())).toBe(
      [
        "coverage: 2 generated cases",
        "  faults drawn:   pause 2 (50%)",
        "  operations:     create 1 ok / 0 fail / 1 unknown",
        "  sessions:       2 disconnects (in 50% of cases), 1 expiries (in 50% of cases), 0 moved (in 0% of cases)",
        "  leader changes: 1 (in 50% of cases)",
        "  labels:         none",
        "  NEVER REACHED:  took-lock (no generated case got there: the property says nothing about them)",
      ].join("\n"),
    );
  });
});
