// The mechanics of `npm run mutants -- --mechanical` (scripts/mechanical/), not a mutation run:
// the sample is the same every time, the worker's output is judged as documented, and a mutant
// built into the schemata is on exactly when its id is the active one.
import { describe, expect, it } from "vitest";
import ts from "typescript";
// @ts-expect-error plain JavaScript modules of the scripts, no declarations
import { drawSample, matchSample, mulberry32 } from "../../scripts/mechanical/sample.mjs";
// @ts-expect-error plain JavaScript modules of the scripts, no declarations
import { latestVerdicts, parseWorkerOutput, summarize, verdictOf } from "../../scripts/mechanical/results.mjs";
// @ts-expect-error plain JavaScript modules of the scripts, no declarations
import { instrumentFile, mutantsOfText } from "../../scripts/mechanical/generate.mjs";
// @ts-expect-error plain JavaScript modules of the scripts, no declarations
import { budgetOf, expandProbes, loadConfig, parseMechanicalArgs } from "../../scripts/mechanical/run.mjs";

interface Mutant {
  id: number;
  key?: string;
  operator: string;
  original: string;
  replacement: string;
}

const keys = Array.from({ length: 500 }, (_, i) => ({ key: `src/f${i % 7}.ts\u0000scope\u0000condition\u0000x${i}\u0000true\u00000` }));

describe("the sample", () => {
  it("is the same for the same seed, whatever the order the mutants come in", () => {
    const a = drawSample(keys, 33, 40);
    expect(a).toHaveLength(40);
    expect(drawSample([...keys].reverse(), 33, 40)).toEqual(a);
    expect(new Set(a).size).toBe(40);
    expect(drawSample(keys, 34, 40)).not.toEqual(a);
  });

  it("is drawn by a fixed generator (mulberry32): its first draws are pinned", () => {
    const r = mulberry32(33);
    expect([r(), r(), r()].map((x) => Math.floor(x * 1000))).toEqual([550, 739, 620]);
  });

  it("is found again by key in changed sources, and a mutant whose code is gone is reported, not replaced", () => {
    const sample = drawSample(keys, 33, 5) as string[];
    const changed = keys.filter((k) => k.key !== sample[2]).map((k, id) => ({ ...k, id }));
    const { found, gone } = matchSample(sample, changed);
    expect(found.map((m: { key: string }) => m.key)).toEqual(sample.filter((_, i) => i !== 2));
    expect(gone).toEqual([sample[2]]);
  });
});

describe("the budget", () => {
  it("expands every probe of the config into runs, each area's in probe order", () => {
    const config = loadConfig();
    const { runs, probeRuns } = expandProbes(config.probes);
    expect(new Set(runs.map((r: unknown) => JSON.stringify(r))).size).toBe(runs.length);
    for (const area of ["server", "quorum", "client", "recipes", "paxos", "multi-paxos", "two-phase-commit", "three-phase-commit", "atomic-commit"]) {
      expect(budgetOf(area, config.probes, probeRuns).length, area).toBeGreaterThan(10);
    }
    expect(expandProbes([{ kind: "explore", scenario: "s", seeds: 3, from: 5, areas: ["a"] }, { kind: "run", scenario: "s", seed: 6, areas: ["b"] }])).toEqual({
      runs: [5, 6, 7].map((seed) => ({ scenario: "s", seed })),
      probeRuns: [[0, 1, 2], [1]],
    });
  });
});

describe("a mutant's verdict", () => {
  const runs = [{ scenario: "a", seed: 1 }, { scenario: "b", seed: 2 }];
  const name = (r: { scenario: string; seed: number }) => `${r.scenario} --seed ${r.seed}`;
  const outcome = (stdout: string, extra: object = {}) => ({ lines: parseWorkerOutput(stdout), code: 0, signal: null, stderr: "", timedOut: false, wallMs: 1000, ...extra });

  it("reads the worker's JSON lines and drops a torn last one", () => {
    expect(parseWorkerOutput('{"i":0,"verdict":"pass","checkers":[]}\n{"i":1,"verd')).toEqual([{ i: 0, verdict: "pass", checkers: [] }]);
  });

  it("is killed by a checker its run did not fail with at baseline, not by one it did", () => {
    const out = '{"i":0,"verdict":"fail","checkers":["zab.liveness"]}\n{"i":1,"verdict":"fail","checkers":["client.sessions"],"message":"expired early"}\n';
    expect(verdictOf(outcome(out), runs, { 0: ["zab.liveness"], 1: [] }, name)).toEqual({
      status: "killed",
      killedBy: { run: "b --seed 2", why: "client.sessions: expired early" },
      runsDone: 2,
    });
  });

  it("survives when every run passes as at baseline, times out when the process outlives its limit, and is killed when it dies", () => {
    const passes = '{"i":0,"verdict":"pass","checkers":[]}\n{"i":1,"verdict":"pass","checkers":[]}\n';
    expect(verdictOf(outcome(passes), runs, {}, name).status).toBe("survived");
    const hung = verdictOf(outcome('{"i":0,"verdict":"pass","checkers":[]}\n', { timedOut: true, code: null, signal: "SIGKILL" }), runs, {}, name);
    expect(hung).toMatchObject({ status: "timed-out", killedBy: { run: "b --seed 2" } });
    const died = verdictOf(outcome("", { code: 1, stderr: "TypeError: x is undefined\n" }), runs, {}, name);
    expect(died).toMatchObject({ status: "killed", killedBy: { run: "a --seed 1", why: "process died (exit 1): TypeError: x is undefined" } });
  });

  it("scores found (killed + timed out) over all but the equivalent, no coverage counting against", () => {
    const r = (status: string, key: string) => ({ key, status, area: "server", operator: "condition" });
    const s = summarize([r("killed", "a"), r("timed-out", "b"), r("survived", "c"), r("no-coverage", "d"), r("survived", "e")], {}, { e: "same behaviour" });
    expect(s).toMatchObject({ killed: 1, "timed-out": 1, survived: 1, "no-coverage": 1, equivalent: 1, score: 0.5, coveredScore: 0.6667 });
  });

  it("over several reports and journals, keeps each mutant's latest verdict, up to a position, the gone ones left out", () => {
    const r = (n: number, key: string, status: string) => ({ n, key, status });
    const report = [r(1, "a", "survived"), r(2, "b", "killed"), r(3, "c", "survived"), r(4, "gone", "killed")];
    const rerun = [r(3, "c", "killed"), r(1, "a", "no-coverage")];
    const journal = [r(5, "e", "killed"), r(1, "a", "survived")];
    expect(latestVerdicts([report, rerun, journal], { upto: 4, gone: new Set(["gone"]) })).toEqual([r(1, "a", "survived"), r(2, "b", "killed"), r(3, "c", "killed")]);
    expect(latestVerdicts([journal, rerun]).map((x: { n: number; status: string }) => [x.n, x.status])).toEqual([[1, "no-coverage"], [3, "killed"], [5, "killed"]]);
  });

  it("refuses --upto without --latest", () => {
    expect(() => parseMechanicalArgs(["--mechanical", "--upto", "10"])).toThrow("--upto goes with --latest");
    expect(parseMechanicalArgs(["--latest", "a.json,b.jsonl", "--upto", "143"])).toMatchObject({ upto: 143, latest: [expect.stringMatching(/a\.json$/), expect.stringMatching(/b\.jsonl$/)] });
  });
});

describe("the schemata", () => {
  const source = [
    "export function lessThan(a: number, b: number): boolean {",
    "  return a < b;",
    "}",
    "export function total(xs: number[]): number {",
    "  let sum = 0;",
    "  for (const x of xs) sum += x;",
    "  return sum;",
    "}",
  ].join("\n");

  // One build of the schemata (compiling a program with the default library takes seconds);
  // the tests switch mutants on and off at run time, as each worker's id does.
  const built = (() => {
    const { mutants, nodes, sourceFile } = mutantsOfText("/virtual/m.ts", source);
    const chosen = (mutants as Mutant[]).map((mutant) => ({ node: nodes[mutant.id], mutant }));
    const js = ts.transpileModule(instrumentFile(sourceFile, chosen), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS } }).outputText;
    const mod = {} as { lessThan: (a: number, b: number) => boolean; total: (xs: number[]) => number };
    new Function("exports", js)(mod);
    return { mutants: mutants as Mutant[], mod };
  })();
  const state = { active: -1, covered: new Set<number>(), infected: new Set<number>() };
  (globalThis as { __zksimMutants?: unknown }).__zksimMutants = state;
  async function load(active: number) {
    state.active = active;
    state.covered = new Set<number>();
    state.infected = new Set<number>();
    return built;
  }

  it("generates the standard operators for a comparison, a compound assignment and the returned values", async () => {
    const { mutants } = await load(-1);
    expect(mutants.map((m) => `${m.operator}: ${m.original} → ${m.replacement}`)).toEqual([
      "return-value: a < b → !(a < b)",
      "boundary: a < b → a <= b",
      "negate-relational: a < b → a >= b",
      "remove-statement: sum += x; → ",
      "arithmetic: sum += x → sum -= x",
      "return-value: sum → 0",
    ]);
  });

  it("runs the original code with no mutant on, and exactly the one mutant whose id is on", async () => {
    const off = await load(-1);
    expect([off.mod.lessThan(2, 2), off.mod.lessThan(1, 2), off.mod.total([1, 2, 3])]).toEqual([false, true, 6]);
    const id = (op: string) => off.mutants.find((m) => m.operator === op)!.id;
    expect((await load(id("boundary"))).mod.lessThan(2, 2)).toBe(true);
    expect((await load(id("negate-relational"))).mod.lessThan(1, 2)).toBe(false);
    expect((await load(id("remove-statement"))).mod.total([1, 2, 3])).toBe(0);
    expect((await load(id("arithmetic"))).mod.total([1, 2, 3])).toBe(-6);
    const returned = off.mutants.filter((m) => m.operator === "return-value").map((m) => m.id);
    expect((await load(returned[0]!)).mod.lessThan(1, 2)).toBe(false);
    expect((await load(returned[1]!)).mod.total([1, 2, 3])).toBe(0);
    // The other function is untouched by each of them.
    expect((await load(id("boundary"))).mod.total([1, 2, 3])).toBe(6);
  });

  it("records which mutants the code reached", async () => {
    const { mod } = await load(-1);
    mod.lessThan(1, 2);
    const covered = (globalThis as unknown as { __zksimMutants: { covered: Set<number> } }).__zksimMutants.covered;
    expect([...covered].sort()).toEqual([0, 1, 2]);
  });

  it("records which reached mutants a run infects: those whose expression would take another value there", async () => {
    const { mod, mutants } = await load(-1);
    const id = (op: string, original = "a < b") => mutants.find((m) => m.operator === op && m.original === original)!.id;
    mod.lessThan(1, 2); // a < b: true; a <= b: true (same); a >= b: false; !(a < b): false
    expect([...state.infected].sort()).toEqual([id("return-value"), id("negate-relational")].sort());
    state.infected = new Set<number>();
    mod.lessThan(2, 2); // a < b: false; a <= b: true
    expect(state.infected.has(id("boundary"))).toBe(true);
    state.infected = new Set<number>();
    mod.total([]); // the loop body never runs; `return sum` returns 0, as the mutant `0` does
    expect([...state.covered]).toContain(id("return-value", "sum"));
    expect(state.infected.has(id("return-value", "sum"))).toBe(false);
    mod.total([0]); // sum += 0 runs: a removed statement and a swapped compound assignment count as infected when they run
    expect(state.infected.has(id("remove-statement", "sum += x;"))).toBe(true);
    expect(state.infected.has(id("arithmetic", "sum += x"))).toBe(true);
  });
});

describe("infection, the short-circuit operators and impure expressions", () => {
  const source = [
    "export const log: string[] = [];",
    "export function touch(v: unknown): unknown { log.push(String(v)); return v; }",
    "export function and(a: unknown, b: unknown): unknown { return a && b; }",
    "export function andCall(a: unknown, b: unknown): unknown { return a && touch(b); }",
    "export function pick(a: unknown, b: unknown): unknown { return a ?? b; }",
    "export function gate(a: number): number { if (touch(a) === 1) return 1; return 2; }",
  ].join("\n");
  const { mutants, nodes, sourceFile } = mutantsOfText("/virtual/s.ts", source);
  const chosen = (mutants as Mutant[]).map((mutant) => ({ node: nodes[mutant.id], mutant }));
  const js = ts.transpileModule(instrumentFile(sourceFile, chosen), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS } }).outputText;
  type Mod = { log: string[]; and: (a: unknown, b: unknown) => unknown; andCall: (a: unknown, b: unknown) => unknown; pick: (a: unknown, b: unknown) => unknown; gate: (a: number) => number };
  const state = { active: -1, covered: new Set<number>(), infected: new Set<number>() };
  const fresh = (active = -1): Mod => {
    (globalThis as { __zksimMutants?: unknown }).__zksimMutants = state;
    Object.assign(state, { active, covered: new Set<number>(), infected: new Set<number>() });
    const mod = {} as Mod;
    new Function("exports", js)(mod);
    return mod;
  };
  const id = (op: string, original: string) => (mutants as Mutant[]).find((m) => m.operator === op && m.original === original)!.id;

  it("keeps the original's values and effects, each operand evaluated once", () => {
    const m = fresh();
    expect([m.and(1, 2), m.and(0, 2), m.pick(null, 3), m.pick(0, 3), m.gate(1), m.gate(5)]).toEqual([2, 0, 3, 0, 1, 2]);
    expect(m.log).toEqual(["1", "5"]);
    expect(fresh(id("logical", "a && b")).and(1, 2)).toBe(1);
    expect(fresh(id("logical", "a ?? b")).pick(null, 3)).toBe(null);
  });

  it("counts `&&` → `||` infected where the values differ, or where the mutant would evaluate what the original skipped", () => {
    let m = fresh();
    m.and(1, 1); // 1 && 1 = 1 = 1 || 1
    expect(state.infected.has(id("logical", "a && b"))).toBe(false);
    m = fresh();
    m.and(1, 2);
    expect(state.infected.has(id("logical", "a && b"))).toBe(true);
    m = fresh();
    m.and(0, 2); // the mutant evaluates b, which the original skipped
    expect(state.infected.has(id("logical", "a && b"))).toBe(true);
    m = fresh();
    m.andCall(1, 1); // same value, but the mutant would skip the call's effect
    expect(state.infected.has(id("logical", "a && touch(b)"))).toBe(true);
    m = fresh();
    m.pick(0, 3); // 0 ?? 3 = 0 = 0 && 3
    expect(state.infected.has(id("logical", "a ?? b"))).toBe(false);
  });

  it("counts a condition made constant infected when its value differs, and always when it skips a call", () => {
    const m = fresh();
    m.gate(1);
    expect(state.infected.has(id("condition", "touch(a) === 1"))).toBe(true); // both true and false: the call is skipped
    expect((mutants as Mutant[]).filter((x) => x.original === "touch(a) === 1" && state.infected.has(x.id)).map((x) => x.operator).sort()).toEqual(["condition", "condition", "negate-equality"]);
  });
});
