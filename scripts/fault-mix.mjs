#!/usr/bin/env node
/**
 * Measures how often each fault mix finds the three classic bugs of examples/src/classic.ts:
 * for every mix, bug and fast-check seed, `userScriptProperty` with up to RUNS runs (no
 * shrinking), and the run at which it failed. Found means failed by the bug's own checker
 * (BUG_CHECKERS): a run that fails another way (a script that throws) is reported in the JSON line
 * as `otherFailure` and not counted. Prints one JSON line per (mix, bug, seed) and a Markdown
 * table (found within RUNS runs, median runs to find) — the table in docs/api.md.
 *
 *   node scripts/fault-mix.mjs [--seeds 20] [--runs 100] [--mixes default,partition,...] [--bugs staleConfig,...]
 *
 * With `--per-kind isolate,partition,...`, it measures instead how often ONE disruption of each
 * kind exposes each bug: `--cases N` cases drawn by fast-check's sampler (seed 4242, no early
 * small-case bias; the cases that drew no disruption are skipped), one JSON line per (kind, bug)
 * with the fraction found — the per-case figures of docs/api.md's "Choosing a fault mix".
 *
 * Needs `npm run build` and examples/node_modules/zksim (a link to this package:
 * `mkdir -p examples/node_modules && ln -s ../.. examples/node_modules/zksim`). Long: run it nice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { tsImport } from "tsx/esm/api";
import { SimulationFailure, userScriptProperty } from "../dist/api/index.js";
import { FAULT_MIXES } from "../dist/api/fault-mixes.js";
import { moduleArgOf } from "../dist/api/files.js";
import { userRunOptions } from "../dist/api/run-user-script.js";
import { userScenarioArbitrary } from "../dist/api/user-property.js";
import { runScenario } from "../dist/scenario/run.js";

const { values } = parseArgs({ options: { seeds: { type: "string", default: "20" }, runs: { type: "string", default: "100" }, mixes: { type: "string" }, bugs: { type: "string" }, "per-kind": { type: "string" }, cases: { type: "string", default: "150" } } });
const seeds = Number(values.seeds);
const runs = Number(values.runs);
const mixes = values.mixes?.split(",") ?? Object.keys(FAULT_MIXES);
const classic = await tsImport(resolve(import.meta.dirname, "../examples/src/classic.ts"), import.meta.url);
/** The checker that catches each bug: a failure of any other is not a find. */
const BUG_CHECKERS = { staleConfig: "client.read-after-confirmed-write", trustingLeader: "classic.one-leader-acts", retryingQueue: "user.expect" };
const bugs = values.bugs?.split(",") ?? Object.keys(BUG_CHECKERS);
const out = mkdtempSync(join(tmpdir(), "zksim-fault-mix-"));
if (values["per-kind"] !== undefined) {
  for (const kind of values["per-kind"].split(",")) {
    for (const bug of bugs) {
      const script = classic[bug];
      const { registry, extraCheckers = [] } = userRunOptions(script, 0);
      const arb = userScenarioArbitrary(script, { numRuns: 1, seed: 1, outDir: out, faults: { kinds: [kind], maxDisruptions: 1 } }, moduleArgOf(script.module));
      let cases = 0;
      let found = 0;
      for (const scenario of fc.sample(arb, { seed: 4242, numRuns: Number(values.cases) })) {
        if (scenario.faults.length === 0) continue;
        const result = await runScenario(scenario, { seed: scenario.defaultSeed, ...(registry !== undefined ? { registry } : {}), extraCheckers });
        cases++;
        if (result.violations.some((v) => v.checker === BUG_CHECKERS[bug])) found++;
      }
      console.log(JSON.stringify({ kind, bug, cases, found, perCase: Number((found / cases).toFixed(3)) }));
    }
  }
  rmSync(out, { recursive: true, force: true });
  process.exit(0);
}
const rows = [];
// Seeds outermost: a run stopped early still has every (mix, bug) measured over the first seeds.
const found = new Map(mixes.flatMap((mix) => bugs.map((bug) => [`${mix}/${bug}`, []])));
for (let seed = 1; seed <= seeds; seed++) {
  for (const mix of mixes) {
    for (const bug of bugs) {
      const failure = await userScriptProperty(classic[bug], { numRuns: runs, seed, outDir: out, faults: FAULT_MIXES[mix], maxShrinkRuns: 0, coverage: "off" }).then(
        () => undefined,
        (err) => {
          if (!(err instanceof SimulationFailure)) throw err;
          return { run: Number(/failed after (\d+) run/.exec(err.message)[1]), checkers: [...new Set(err.result.violations.map((v) => v.checker))] };
        },
      );
      const at = failure?.checkers.includes(BUG_CHECKERS[bug]) ? failure.run : undefined;
      const other = failure !== undefined && at === undefined ? { otherFailure: failure } : {};
      console.log(JSON.stringify({ mix, bug, seed, foundAtRun: at ?? null, ...other }));
      if (at !== undefined) found.get(`${mix}/${bug}`).push(at);
    }
  }
}
for (const mix of mixes) {
  for (const bug of bugs) {
    const at = found.get(`${mix}/${bug}`).sort((a, b) => a - b);
    rows.push({ mix, bug, found: at.length, median: at.length > 0 ? at[Math.floor(at.length / 2)] : undefined });
  }
}
rmSync(out, { recursive: true, force: true });
console.log(`\n| mix | ${bugs.join(" | ")} |\n|---|${bugs.map(() => "---").join("|")}|`);
for (const mix of mixes) {
  const cells = bugs.map((bug) => {
    const r = rows.find((x) => x.mix === mix && x.bug === bug);
    return `${Math.round((100 * r.found) / seeds)}% (${r.found}/${seeds})${r.median !== undefined ? `, median run ${r.median}` : ""}`;
  });
  console.log(`| ${mix} | ${cells.join(" | ")} |`);
}
