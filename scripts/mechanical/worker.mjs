// One process of a mechanical mutation run, started by scripts/mechanical/run.mjs inside the
// instrumented scratch copy: it runs a list of (scenario, seed) runs exactly as `zksim run
// <scenario> --seed N [--generate] [--variant V]` and `zksim explore` run each seed (the CLI's own
// runOneSeed and loadScenario), with the mutant of __STRYKER_ACTIVE_MUTANT__ switched on (none
// when it is unset), and prints one JSON line per run: { i, verdict, checkers, message?, ms,
// covered?, infected? } — covered: the mutants whose code the run reached; infected: those of
// them whose expression would have taken another value there (or whose statement ran).
//
// Usage: node worker.mjs JOB.json — JOB: { dist, runs: [{ scenario, seed, generate?, variant? }],
// coverage?: number[] (record which of these mutant ids each run reaches), stopAtFailure?: bool,
// expectedFailures?: { [i]: string[] } (checkers a run fails with at baseline: not a kill) }.
// With coverage, the first line is { static: ids, staticInfected: ids } — what loading the
// modules reached, before any run (such code runs in every process whatever the run).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const state = (globalThis.__zksimMutants ??= { active: Number(process.env.__STRYKER_ACTIVE_MUTANT__ ?? "-1"), covered: new Set(), infected: new Set() });
state.infected ??= new Set();
const watched = job.coverage !== undefined ? new Set(job.coverage) : undefined;
const take = (set) => {
  const ids = [...state[set]].filter((id) => watched.has(id)).sort((a, b) => a - b);
  state[set] = new Set();
  return ids;
};

const load = (rel) => import(pathToFileURL(join(job.dist, rel)).href);
const { runOneSeed } = await load("cli/explore/explore.js");
const { loadScenario } = await load("cli/scenario-files.js");
if (watched !== undefined) console.log(JSON.stringify({ static: take("covered"), staticInfected: take("infected") }));

const scenarios = new Map();
for (const [i, r] of job.runs.entries()) {
  const started = performance.now();
  const id = `${r.scenario}\u0000${r.variant ?? ""}`;
  let outcome;
  try {
    if (!scenarios.has(id)) scenarios.set(id, loadScenario(r.scenario, r.variant));
    outcome = await runOneSeed(scenarios.get(id), r.seed, { generate: r.generate === true });
  } catch (err) {
    outcome = { verdict: "fail", checker: "exception", message: err instanceof Error ? err.message : String(err) };
  }
  const checkers = outcome.verdict === "pass" ? [] : [...new Set((outcome.violations ?? [{ checker: outcome.checker }]).map((v) => v.checker))].sort();
  const line = { i, verdict: outcome.verdict, checkers, ms: Math.round(performance.now() - started) };
  if (outcome.verdict === "fail") line.message = String(outcome.message ?? "").slice(0, 300);
  if (watched !== undefined) {
    line.covered = take("covered");
    line.infected = take("infected");
  }
  console.log(JSON.stringify(line));
  const expected = new Set(job.expectedFailures?.[i] ?? []);
  if (job.stopAtFailure && checkers.some((c) => !expected.has(c))) break;
}
