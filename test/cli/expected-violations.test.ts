/**
 * A documented flaw is not a regression: a scenario's `expectedViolations` make a run whose only
 * violations are of the declared checkers "expected" — `run` says so and exits 0, `explore` lists
 * those seeds apart and exits 0 unless some other seed fails — while a broken build (a variant
 * twin, a canary, a bug) is judged without them.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastJson, zksim } from "../helpers/cli.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { missingFlaws, runVerdict } from "../../src/scenario/verdict.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseSweepReport, mergeSweepReports } from "../../src/cli/explore/sweep-report.js";
import { isUserInputError } from "../../src/sim/errors.js";
import type { Violation } from "../../src/check/checker.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-expected-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const violation = (checker: string): Violation => ({ checker, message: "m", eventIndex: 0, atMs: 0 });
const declared = { expectedViolations: [{ checker: "commit.blocking", why: "2PC blocks" }] };

function refusal(doc: Record<string, unknown>): string {
  try {
    parseScenario(doc, "t.json");
  } catch (err) {
    expect(isUserInputError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error("accepted");
}

describe("scenario: expectedViolations", () => {
  it("the verdict: none is pass, only declared is expected, anything else is fail; a broken build has no declarations", async () => {
    expect(runVerdict(declared, {}, [])).toBe("pass");
    expect(runVerdict(declared, {}, [violation("commit.blocking"), violation("commit.blocking")])).toBe("expected");
    expect(runVerdict(declared, {}, [violation("commit.blocking"), violation("commit.atomicity")])).toBe("fail");
    expect(runVerdict({}, {}, [violation("commit.blocking")])).toBe("fail");
    expect(runVerdict(declared, { canary: "connection-reorder" }, [violation("commit.blocking")])).toBe("fail");
    expect(runVerdict(declared, { bugs: ["ZK-1154"] }, [violation("commit.blocking")])).toBe("fail");
  });

  it("a declaration names one of the scenario's checkers, once, with a reason; a mistake is one line naming the field", async () => {
    const base = { ...loadScenarioDoc(), expectedViolations: undefined as unknown };
    expect(refusal({ ...base, expectedViolations: { checker: "commit.blocking" } })).toMatch(/"expectedViolations" must be a list/);
    expect(refusal({ ...base, expectedViolations: [{ checker: "zab.leadership", why: "x" }] })).toMatch(/expectedViolations"\[0\]\.checker: "zab\.leadership" is not one of the scenario's checkers/);
    expect(refusal({ ...base, expectedViolations: [{ checker: "commit.blocking", why: " " }] })).toMatch(/\[0\]\.why must say why/);
    expect(refusal({ ...base, expectedViolations: [{ checker: "commit.blocking", why: "a" }, { checker: "commit.blocking", why: "b" }] })).toMatch(/\[1\]\.checker: "commit\.blocking" is declared twice/);
    expect(refusal({ ...base, expectedViolations: [{ checker: "commit.blocking", why: "a", seeds: [1] }] })).toMatch(/unknown field "seeds" \(allowed: checker, why, always\)/);
    expect(refusal({ ...base, expectedViolations: [{ checker: "commit.blocking", why: "a", always: "yes" }] })).toMatch(/\[0\]\.always: expected true or false, got "yes"/);
  });

  it("a flaw declared always must show: a run where its checker reports nothing fails with scenario.expected-flaw (a broken build is judged without declarations)", async () => {
    const always = { expectedViolations: [{ checker: "commit.blocking", why: "2PC blocks", always: true }] };
    expect(missingFlaws(always, {}, [violation("commit.blocking")], undefined)).toEqual([]);
    expect(missingFlaws(declared, {}, [], undefined)).toEqual([]);
    expect(missingFlaws(always, { canary: "connection-reorder" }, [], undefined)).toEqual([]);
    const [missing] = missingFlaws(always, {}, [violation("commit.atomicity")], { index: 7, atUs: 9000 });
    expect(missing).toEqual({ checker: "scenario.expected-flaw", message: "commit.blocking reported nothing, yet this scenario shows it on every run: 2PC blocks", eventIndex: 7, atMs: 9 });
    // 2pc-in-doubt-blocks shows 2PC's blocking; the same faults with cooperative termination do not block, and fail
    const blocks = loadScenario("2pc-in-doubt-blocks");
    expect((await runScenario(blocks)).verdict).toBe("expected");
    const cooperative = await runScenario({ ...blocks, workload: { ...blocks.workload, params: { ...blocks.workload.params, termination: "cooperative" } } });
    expect(cooperative.verdict).toBe("fail");
    expect(cooperative.violations.map((v) => v.checker)).toEqual(["scenario.expected-flaw"]);
  });

  it("2pc and 3pc swarms declare their documented flaws; a --variant twin loses them", async () => {
    expect(loadScenario("2pc-random-faults").expectedViolations?.map((d) => d.checker)).toEqual(["commit.blocking"]);
    expect(loadScenario("3pc-random-faults").expectedViolations?.map((d) => d.checker)).toEqual(["commit.atomicity", "commit.blocking"]);
    expect(loadScenario("3pc-random-faults", "commit-uncertain").expectedViolations).toBeUndefined();
  });
});

describe("cli: expected violations", () => {
  it("run: the verdict says EXPECTED with the declaration's reason, exit 0; --save keeps the case and replay reproduces it", async () => {
    const file = join(dir, "blocking.json");
    const r = await zksim("run", "2pc-random-faults", "--seed", "13", "--save", file);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/verdict: EXPECTED \(1 violation, each of a flaw the scenario documents/);
    expect(r.stdout).toMatch(/expected: \[commit\.blocking\] 2PC blocks by design/);
    expect(JSON.parse(readFileSync(file, "utf8")).expected.verdict).toBe("expected");
    const replayed = await zksim("replay", file);
    expect(replayed.stdout).toMatch(/reproduced: .* \(shows only the scenario's documented flaws, as recorded: 1× commit\.blocking/);
    expect(replayed.status).toBe(0);
  });

  it("explore: expected seeds are listed apart, exit 0; the same seeds under a broken twin fail, exit 1", async () => {
    const r = await zksim("explore", "2pc-random-faults", "--from", "10", "--seeds", "10", "--workers", "1", "--json");
    expect(r.status).toBe(0);
    const report = lastJson<{ failures: unknown[]; expected: { seed: number; checker: string }[] }>(r);
    expect(report.failures).toEqual([]);
    expect(report.expected.map((e) => [e.seed, e.checker])).toEqual([
      [13, "commit.blocking"],
      [17, "commit.blocking"],
    ]);
    const text = await zksim("explore", "2pc-random-faults", "--from", "10", "--seeds", "10", "--workers", "1");
    expect(text.stdout).toMatch(/EXPECTED \[commit\.blocking\] 2 seeds: 13, 17\n    why: 2PC blocks by design/);
    expect(text.stdout).toMatch(/no regression; 2 seeds with expected violations only/);
    const twin = await zksim("explore", "2pc-random-faults", "--from", "3", "--seeds", "1", "--variant", "abort-in-doubt", "--workers", "1", "--json");
    expect(twin.status).toBe(1);
    expect(lastJson<{ failures: { seed: number }[] }>(twin).failures.map((f) => f.seed)).toEqual([3]);
  });

  it("a sweep report keeps the expected seeds and a merge unites them (a report without the list has none)", async () => {
    const report = (shardIndex: number, expected: unknown[]) => ({
      kind: "zksim-explore-report", version: 1, scenario: "s", scenarioArg: "s", variant: null, bugs: [], canary: null, generate: false,
      from: 1, count: 4, shardCount: 2, shardIndex, seedsPlanned: 2, seedsRun: 2, failures: [], seedsWithUnknown: 0, wallSeconds: 1, seedsPerSec: 2, interrupted: false,
      ...(expected.length > 0 ? { expected } : {}),
    });
    const a = parseSweepReport(report(1, [{ seed: 3, checker: "commit.blocking", replay: "zksim run s --seed 3" }]), "a.json");
    const b = parseSweepReport(report(2, []), "b.json");
    expect(b.expected).toEqual([]);
    expect(mergeSweepReports([{ path: "x/a.json", report: a }, { path: "x/b.json", report: b }]).expected.map((e) => e.seed)).toEqual([3]);
    expect(() => parseSweepReport(report(1, [{ seed: "3" }]), "a.json")).toThrow(/"expected\[0\]\.seed" must be an integer/);
  });
});

function loadScenarioDoc(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL("../../scenarios/2pc-random-faults.json", import.meta.url), "utf8")) as Record<string, unknown>;
}
