// `npm run mutants -- --mechanical`: the mechanical mutation score. Mutants nobody chose
// (scripts/mechanical/generate.mjs: the standard operators over src/zk/server, src/zk/client,
// src/recipes and src/protocols), a fixed-seed sample of them (mutants/mechanical-sample.json),
// each run against a fixed budget of `zksim run` scenarios and `zksim explore` seeds of its
// area (mutants/mechanical.json) — never unit tests.
//
// How one run goes:
// 1. the sample's mutants are found in the current sources (a sampled mutant whose code is gone
//    is reported as gone); the scratch copy gets them all built in as mutant schemata, each
//    switched on by its id in __STRYKER_ACTIVE_MUTANT__, and is built once by tsc;
// 2. the baseline: every run of every probe, no mutant on, in one process, recording which
//    sampled mutants each run reaches, which of those it infects — the mutated expression would
//    have taken another value there (or the removed statement ran) — and the checkers a run
//    fails with already; it is cached (in the OS's temporary directory, keyed by everything
//    that decides it), so a resumed run starts at once;
// 3. each mutant, in its own process (`nice`d by the caller), runs the runs of its area's probes
//    that infect it, most likely killer first (orderRuns), until one fails with a checker its
//    baseline did not (killed), the process outlives its limit (timed out: limitFactor × the
//    baseline time of those runs, at least minLimitMs), or every run passes (survived). No run
//    reaches it: no coverage; runs reach it but none infects it: survived without a run
//    (neverInfected). A run that does not infect a mutant behaves exactly as without it (every
//    run is deterministic, and the schemata evaluate every operand once, as the original does,
//    and count a skipped impure expression as infection), so skipping it changes no verdict.
// Results are appended to a journal as they come (--journal), so a stopped run resumes.
//
// Usage: node scripts/mutants.mjs --mechanical [--json] [--limit N] [--only N,…] [--journal FILE]
//          [--report FILE] [--prior REPORT] [--summarize JOURNAL]
//          [--latest FILE[,FILE…] [--upto N]] [--redraw] [--list-sample] [--keep]
//   --limit N: the first N of the sample (a prefix of a seeded shuffle is a uniform sample too);
//   --only: sample positions (1-based); --summarize: the table of a journal, nothing run;
//   --latest: the table of the latest verdict of each mutant over reports and journals (every
//   section), given oldest first, positions up to --upto, those gone from the sources left out.
// Exit: 0 the score (killed + timed out over all but equivalent) is at least the config's target;
// 1 below it; 2 bad input; 3 the scratch copy could not be built or the baseline could not run.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import ts from "typescript";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateMutants, instrumentFile, mutatedFiles } from "./generate.mjs";
import { describeKey, drawSample, matchSample } from "./sample.mjs";
import { latestVerdicts, parseWorkerOutput, summarize, table, verdictOf } from "./results.mjs";

const ROOT = realpathSync(fileURLToPath(new URL("../..", import.meta.url)));
const CONFIG = join(ROOT, "mutants", "mechanical.json");
/** Hand-checked survivors judged equivalent: { key: reason } (not counted in the score). */
const EQUIVALENT = join(ROOT, "mutants", "mechanical-equivalent.json");
const COPIED = ["src", "bin", "scenarios", "package.json", "tsconfig.json"];

export class MechanicalError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "MechanicalError";
    this.code = code;
  }
}
const fail = (code, message) => {
  throw new MechanicalError(code, message);
};

const USAGE = "usage: mutants --mechanical [--json] [--limit N] [--only N[,N…]] [--journal FILE] [--report FILE] [--prior REPORT] [--summarize JOURNAL] [--latest FILE[,FILE…] [--upto N]] [--redraw] [--list-sample] [--keep]";

export function parseMechanicalArgs(argv) {
  const opts = { json: false, limit: undefined, only: undefined, journal: undefined, report: undefined, prior: undefined, redraw: false, listSample: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(2, `${a} needs a value`));
    if (a === "--mechanical") continue;
    else if (a === "--json") opts.json = true;
    else if (a === "--keep") opts.keep = true;
    else if (a === "--redraw") opts.redraw = true;
    else if (a === "--list-sample") opts.listSample = true;
    else if (a === "--journal") opts.journal = resolve(process.cwd(), value());
    else if (a === "--report") opts.report = resolve(process.cwd(), value());
    else if (a === "--prior") opts.prior = resolve(process.cwd(), value());
    else if (a === "--summarize") opts.summarize = resolve(process.cwd(), value());
    else if (a === "--latest") opts.latest = value().split(",").filter((s) => s !== "").map((f) => resolve(process.cwd(), f));
    else if (a === "--upto") {
      const v = value();
      if (!/^[1-9][0-9]*$/.test(v)) fail(2, `--upto must be a positive integer, got "${v}"`);
      opts.upto = Number(v);
    }
    else if (a === "--only") opts.only = value().split(",").filter((s) => s !== "").map(Number);
    else if (a === "--limit") {
      const v = value();
      if (!/^[1-9][0-9]*$/.test(v)) fail(2, `--limit must be a positive integer, got "${v}"`);
      opts.limit = Number(v);
    } else fail(2, `unknown argument "${a}" (${USAGE})`);
  }
  if (opts.only?.some((n) => !Number.isInteger(n) || n < 1)) fail(2, "--only takes sample positions (1-based integers)");
  if (opts.upto !== undefined && opts.latest === undefined) fail(2, "--upto goes with --latest");
  return opts;
}

/** The config: the sample's seed and size, the limits, the probes (each with the areas it serves). */
export function loadConfig(path = CONFIG) {
  const raw = JSON.parse(readFileSync(path, "utf8"));
  for (const p of raw.probes) {
    if (!existsSync(join(ROOT, "scenarios", `${p.scenario}.json`))) fail(2, `${path}: no scenario "${p.scenario}"`);
  }
  return raw;
}

/** Every (scenario, seed) run of the probes, deduplicated, in list order; each probe's run indexes. */
export function expandProbes(probes) {
  const runs = [];
  const index = new Map();
  const probeRuns = probes.map((p) => {
    const seeds = p.kind === "run" ? [p.seed ?? 1] : Array.from({ length: p.seeds }, (_, k) => (p.from ?? 1) + k);
    return seeds.map((seed) => {
      const run = { scenario: p.scenario, seed, ...(p.generate ? { generate: true } : {}), ...(p.variant ? { variant: p.variant } : {}) };
      const id = JSON.stringify(run);
      if (!index.has(id)) {
        index.set(id, runs.length);
        runs.push(run);
      }
      return index.get(id);
    });
  });
  return { runs, probeRuns };
}

/** The run indexes of an area's budget, in probe order. */
export function budgetOf(area, probes, probeRuns) {
  const out = [];
  for (const [k, p] of probes.entries()) if (p.areas.includes(area)) for (const i of probeRuns[k]) if (!out.includes(i)) out.push(i);
  return out;
}

/**
 * The runs in the order most likely to kill a mutant soonest: first the one that killed this
 * very mutant in an earlier report (`killer`), then by estimated kill chance per second of
 * baseline time — the chance from the kills recorded so far (`history`: results of earlier
 * reports and journals, and of this run as it goes): kills of mutants of the same file by that
 * run weigh 3, of the same area 1, by another seed of the same scenario in the area 0.5, plus
 * 0.2 for every run. The order decides the cost, never the verdict.
 */
export function orderRuns(runIndexes, mutant, { killer, history = [], msOf = () => 1 }, runs) {
  const weight = new Map();
  for (const h of history) {
    if (h.killedBy === undefined || h.key === mutant.key) continue;
    const w = h.file === mutant.file ? 3 : h.area === mutant.area ? 1 : 0;
    if (w > 0) weight.set(h.killedBy.run, (weight.get(h.killedBy.run) ?? 0) + w);
    if (h.area === mutant.area) {
      const scenario = h.killedBy.run.split(" ")[0];
      weight.set(`scenario:${scenario}`, (weight.get(`scenario:${scenario}`) ?? 0) + 0.5);
    }
  }
  const rate = (i) => (0.2 + (weight.get(runName(runs[i])) ?? 0) + (weight.get(`scenario:${runs[i].scenario}`) ?? 0)) / Math.max(1, msOf(i));
  const ordered = [...runIndexes].sort((a, b) => rate(b) - rate(a) || a - b);
  return firstKiller(ordered, killer, runs);
}

/** The runs with the one named `killer` (a runName) moved first, when it is among them. */
export function firstKiller(runIndexes, killer, runs) {
  const k = killer === undefined ? -1 : runIndexes.findIndex((i) => runName(runs[i]) === killer);
  return k <= 0 ? runIndexes : [runIndexes[k], ...runIndexes.slice(0, k), ...runIndexes.slice(k + 1)];
}

/** A digest of the text of every file mutants are drawn from. */
function mutatedSourcesDigest(program) {
  const h = createHash("sha256");
  for (const file of mutatedFiles(ROOT)) h.update(file).update(program.getSourceFile(join(ROOT, file)).text);
  return h.digest("hex");
}

export const runName = (r) => `${r.scenario} --seed ${r.seed}${r.generate ? " --generate" : ""}${r.variant ? ` --variant ${r.variant}` : ""}`;

// ---- the scratch copy -------------------------------------------------------------------------

/**
 * The scratch copy with the chosen mutants built in. When the working tree's dist/ is newer
 * than every source and TypeScript's transpileModule reproduces tsc's output for each file to
 * instrument, dist/ is copied and those files alone are recompiled (seconds); otherwise the
 * copy is built by tsc (minutes on a loaded machine). Either way: one build for every mutant.
 */
function buildScratch(scratch, program, sampled, nodes, log) {
  const dir = join(scratch, "copy");
  mkdirSync(dir);
  for (const name of COPIED) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
  const byFile = new Map();
  for (const m of sampled) {
    if (!byFile.has(m.file)) byFile.set(m.file, []);
    byFile.get(m.file).push({ node: nodes[m.id], mutant: m });
  }
  const instrumented = new Map([...byFile].map(([file, chosen]) => [file, instrumentFile(program.getSourceFile(join(ROOT, file)), chosen)]));
  for (const [file, text] of instrumented) writeFileSync(join(dir, file), text);
  const jsOf = (file) => join("dist", relative("src", file).replace(/\.tsx?$/, ".js"));
  const options = program.getCompilerOptions();
  const transpile = (text, file) => ts.transpileModule(text, { fileName: file, compilerOptions: { ...options, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: false, inlineSourceMap: false, declaration: false } }).outputText.trimEnd();
  const stripMap = (js) => js.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, "\n").trimEnd();
  const fresh = existsSync(join(ROOT, "dist")) && program.getSourceFiles().every((sf) => {
    if (!sf.fileName.startsWith(join(ROOT, "src") + "/") || sf.fileName.endsWith(".d.ts")) return true;
    const js = join(ROOT, jsOf(relative(ROOT, sf.fileName)));
    return existsSync(js) && statSync(js).mtimeMs >= statSync(sf.fileName).mtimeMs;
  });
  const alone = fresh && [...instrumented.keys()].every((file) => transpile(readFileSync(join(ROOT, file), "utf8"), file) === stripMap(readFileSync(join(ROOT, jsOf(file)), "utf8")));
  if (alone) {
    cpSync(join(ROOT, "dist"), join(dir, "dist"), { recursive: true });
    for (const [file, text] of instrumented) writeFileSync(join(dir, jsOf(file)), `${transpile(text, file)}\n`);
    log(`reused dist/ and recompiled the ${instrumented.size} instrumented files alone`);
  } else {
    log(fresh ? "a file to instrument does not compile alone as tsc compiles it: building the copy with tsc" : "dist/ is older than the sources (run npm run build to save this step): building the copy with tsc");
    const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) fail(3, `the instrumented copy does not build:\n${(r.stdout + r.stderr).slice(0, 3000)}`);
  }
  cpSync(join(ROOT, "scripts", "mechanical", "worker.mjs"), join(dir, "worker.mjs"));
  return dir;
}

// ---- processes --------------------------------------------------------------------------------

const live = new Set();

/** Runs the worker on a job; resolves { lines, code, signal, stderr, timedOut, wallMs }. */
function runWorker(dir, job, { active, limitMs }) {
  const jobFile = join(dir, `job-${process.pid}.json`);
  writeFileSync(jobFile, JSON.stringify({ ...job, dist: join(dir, "dist") }));
  return new Promise((done) => {
    const started = performance.now();
    const env = { ...process.env, FORCE_COLOR: "0" };
    if (active !== undefined) env.__STRYKER_ACTIVE_MUTANT__ = String(active);
    else delete env.__STRYKER_ACTIVE_MUTANT__;
    const child = spawn(process.execPath, ["--max-semi-space-size=64", "--max-old-space-size=3072", join(dir, "worker.mjs"), jobFile], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    live.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => (stdout += b));
    child.stderr.on("data", (b) => (stderr = (stderr + b).slice(-20000)));
    let timedOut = false;
    const timer = limitMs === undefined ? undefined : setTimeout(() => ((timedOut = true), child.kill("SIGKILL")), limitMs);
    child.on("close", (code, signal) => {
      live.delete(child);
      clearTimeout(timer);
      done({ lines: parseWorkerOutput(stdout), code, signal, stderr, timedOut, wallMs: Math.round(performance.now() - started) });
    });
  });
}

// ---- the driver -------------------------------------------------------------------------------

/**
 * The results of a journal still valid now: an entry is reused when the same sample's mutant
 * (its key, and the same instrumented set: the fingerprint) met the same budget (the names of
 * its area's runs), so a change of one area's probes re-runs that area's mutants only.
 */
function readJournal(path, fingerprint) {
  if (path === undefined || !existsSync(path)) return new Map();
  const done = new Map();
  let mine = false;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line);
    if (entry.fingerprint !== undefined) mine = entry.fingerprint === fingerprint;
    else if (mine) done.set(`${entry.key}\u0000${entry.budget}`, entry);
  }
  return done;
}

/** The results of an earlier report (--prior) and of every report and journal in mutants/mechanical-results/: the kill history orderRuns learns from. */
function loadHistory(prior) {
  const dir = join(ROOT, "mutants", "mechanical-results");
  const files = existsSync(dir) ? readdirSync(dir).sort().map((f) => join(dir, f)) : [];
  if (prior !== undefined) files.push(prior);
  const out = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    if (file.endsWith(".jsonl")) {
      for (const line of text.split("\n")) {
        try {
          if (line.trim() !== "") out.push(JSON.parse(line));
        } catch {
          // the torn last line of a journal still being written
        }
      }
    }
    else if (file.endsWith(".json")) out.push(...(JSON.parse(text).mutants ?? []));
  }
  return out.filter((r) => r.key !== undefined);
}

/** What decides a baseline: the sample and its sources, the runs, the instrumenter and worker, and every source and scenario file (checkers decide its failures). */
function baselineDigest(fingerprint, runs, chosen) {
  const h = createHash("sha256").update(fingerprint).update(JSON.stringify(runs)).update(JSON.stringify(chosen.map((m) => m.id)));
  for (const f of ["generate.mjs", "worker.mjs"]) h.update(readFileSync(join(ROOT, "scripts", "mechanical", f)));
  const walk = (dir) => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
      else h.update(rel).update(readFileSync(join(ROOT, rel)));
    }
  };
  walk("src");
  walk("scenarios");
  return h.digest("hex").slice(0, 16);
}

/** The hand-checked equivalent mutants: { key: reason }, from [{ key, reason, … }] in the file. */
function loadEquivalent() {
  if (!existsSync(EQUIVALENT)) return {};
  return Object.fromEntries(JSON.parse(readFileSync(EQUIVALENT, "utf8")).map((e) => [e.key, e.reason]));
}

/**
 * `--summarize JOURNAL`: the summary of what a journal holds (its last section: the results of
 * the latest run, resumed ones included), in sample order — a run stopped early reports the
 * prefix of the sample it finished.
 */
function summarizeJournal(opts, config) {
  if (!existsSync(opts.summarize)) fail(2, `--summarize: no journal ${opts.summarize}`);
  const byKey = new Map();
  for (const line of readFileSync(opts.summarize, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line);
    if (entry.fingerprint !== undefined) byKey.clear();
    else byKey.set(entry.key, entry);
  }
  const results = [...byKey.values()].sort((a, b) => a.n - b.n);
  const sample = JSON.parse(readFileSync(join(ROOT, config.sample), "utf8"));
  const summary = summarize(results, { population: sample.population, sampleSize: sample.keys.length, seed: sample.seed, gone: [] }, loadEquivalent());
  if (opts.report !== undefined) writeFileSync(opts.report, `${JSON.stringify(summary, null, 1)}\n`);
  if (opts.json) console.log(JSON.stringify(summary));
  else console.log(`${results.length} of the sample's ${sample.keys.length} mutants (positions ${compactRanges(results.map((r) => r.n))})\n${table(summary)}`);
  return summary.score >= (config.target ?? 0.8) ? 0 : 1;
}

/** The results a report (its mutants) or a journal (every entry, in the order written) holds. */
function resultsOf(file) {
  if (!existsSync(file)) fail(2, `--latest: no file ${file}`);
  const text = readFileSync(file, "utf8");
  if (!file.endsWith(".jsonl")) return JSON.parse(text).mutants ?? [];
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line)).filter((e) => e.fingerprint === undefined);
}

/** `--latest F1,F2,… [--upto N]`: the summary of the latest verdict of each mutant, nothing run. */
function latestSummary(opts, config, sample, gone) {
  const results = latestVerdicts(opts.latest.map(resultsOf), { upto: opts.upto, gone: new Set(gone) });
  const goneHere = gone.filter((k) => opts.upto === undefined || sample.keys.indexOf(k) < opts.upto);
  const summary = summarize(results, { population: sample.population, sampleSize: sample.keys.length, seed: sample.seed, gone: goneHere }, loadEquivalent());
  if (opts.report !== undefined) writeFileSync(opts.report, `${JSON.stringify(summary, null, 1)}\n`);
  if (opts.json) console.log(JSON.stringify(summary));
  else console.log(`${results.length} mutants (positions ${compactRanges(results.map((r) => r.n))}; ${goneHere.length} gone)\n${table(summary)}`);
  return summary.score >= (config.target ?? 0.8) ? 0 : 1;
}

/** [1, 2, 3, 5] → "1–3, 5". */
function compactRanges(ns) {
  const out = [];
  for (let i = 0; i < ns.length; i++) {
    let j = i;
    while (j + 1 < ns.length && ns[j + 1] === ns[j] + 1) j++;
    out.push(i === j ? `${ns[i]}` : `${ns[i]}–${ns[j]}`);
    i = j;
  }
  return out.join(", ");
}

export async function mechanicalMain(argv) {
  const opts = parseMechanicalArgs(argv);
  const config = loadConfig();
  const log = (line) => console.error(`mutants: ${line}`);
  if (opts.summarize !== undefined) return summarizeJournal(opts, config);
  const t0 = performance.now();
  log("generating the mutants of the current sources");
  const { mutants, nodes, program } = generateMutants(ROOT);
  const samplePath = join(ROOT, config.sample);
  if (opts.redraw || !existsSync(samplePath)) {
    const keys = drawSample(mutants, config.seed, config.size);
    writeFileSync(samplePath, `${JSON.stringify({ seed: config.seed, size: config.size, population: mutants.length, keys }, null, 1)}\n`);
    log(`drew ${keys.length} of ${mutants.length} mutants with seed ${config.seed} into ${relative(process.cwd(), samplePath)}`);
  }
  const sample = JSON.parse(readFileSync(samplePath, "utf8"));
  const { found, gone } = matchSample(sample.keys, mutants);
  const position = new Map(sample.keys.map((k, i) => [k, i + 1]));
  let chosen = found;
  if (opts.only !== undefined) chosen = chosen.filter((m) => opts.only.includes(position.get(m.key)));
  if (opts.limit !== undefined) chosen = chosen.slice(0, opts.limit);
  if (opts.listSample) {
    for (const m of found) console.log(`${String(position.get(m.key)).padStart(3)} ${m.file}:${m.line}:${m.column} ${describeKey(m.key)}`);
    for (const k of gone) console.log(`gone ${describeKey(k)}`);
    return 0;
  }
  if (opts.latest !== undefined) return latestSummary(opts, config, sample, gone);
  log(`${mutants.length} mutants in the population; ${found.length} of the sample's ${sample.keys.length} found${gone.length > 0 ? `, ${gone.length} gone (their code changed)` : ""}; running ${chosen.length}`);

  const { runs, probeRuns } = expandProbes(config.probes);
  // --prior: the run that killed a mutant in an earlier report goes first (a verdict does not
  // depend on the order of the runs; the cost of a mutant killed again does).
  const priorKiller = new Map(opts.prior === undefined ? [] : JSON.parse(readFileSync(opts.prior, "utf8")).mutants.filter((r) => r.killedBy !== undefined).map((r) => [r.key, r.killedBy.run]));
  // The instrumented set and the sources it was drawn from; a journal section is reused only under it.
  const fingerprint = createHash("sha256").update(JSON.stringify({ keys: chosen.map((m) => m.key), sources: mutatedSourcesDigest(program) })).digest("hex").slice(0, 16);
  const journal = readJournal(opts.journal, fingerprint);
  if (opts.journal !== undefined) {
    mkdirSync(dirname(opts.journal), { recursive: true });
    appendFileSync(opts.journal, `${JSON.stringify({ fingerprint })}\n`);
  }

  const scratch = mkdtempSync(join(tmpdir(), "zksim-mechanical-"));
  const cleanup = () => {
    for (const child of live) child.kill("SIGKILL");
    if (opts.keep) log(`scratch copy kept at ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  };
  process.on("SIGINT", () => (cleanup(), process.exit(130)));
  process.on("SIGTERM", () => (cleanup(), process.exit(143)));
  try {
    log(`building the instrumented copy in ${scratch}`);
    const dir = buildScratch(scratch, program, chosen, nodes, log);
    // Only the runs of the chosen mutants' budgets (all of them for the whole sample).
    const needed = [...new Set(chosen.flatMap((m) => budgetOf(m.area, config.probes, probeRuns)))].sort((a, b) => a - b);
    const cacheFile = join(tmpdir(), `zksim-mechanical-baseline-${baselineDigest(fingerprint, needed.map((i) => runs[i]), chosen)}.json`);
    let base;
    if (existsSync(cacheFile)) {
      base = JSON.parse(readFileSync(cacheFile, "utf8"));
      log(`baseline: reused ${cacheFile} (the same sources, sample, runs and instrumentation)`);
    } else {
      log(`baseline: ${needed.length} runs, no mutant on, recording coverage and infection`);
      base = await runWorker(dir, { runs: needed.map((i) => runs[i]), coverage: chosen.map((m) => m.id) }, {});
    }
    const staticLine = base.lines.find((l) => l.static !== undefined);
    const staticIds = new Set(staticLine?.static ?? []);
    const staticInfected = new Set(staticLine?.staticInfected ?? []);
    const baseline = new Map(base.lines.filter((l) => l.i !== undefined).map((l) => [needed[l.i], { ...l, i: needed[l.i] }]));
    if (baseline.size !== needed.length) fail(3, `the baseline stopped after ${baseline.size} of ${needed.length} runs (exit ${base.code}):\n${base.stderr.slice(-3000)}`);
    if (!existsSync(cacheFile)) writeFileSync(cacheFile, JSON.stringify({ lines: base.lines, wallMs: base.wallMs }));
    const baselineFailures = [...baseline.values()].filter((l) => l.verdict === "fail");
    for (const l of baselineFailures) log(`baseline: ${runName(runs[l.i])} fails already (${l.checkers.join(", ")}): only other checkers count there`);
    log(`baseline done in ${(base.wallMs / 1000).toFixed(0)} s`);

    const results = [];
    const history = [...loadHistory(opts.prior), ...journal.values()];
    const started = performance.now();
    let ran = 0;
    for (const m of chosen) {
      const budget = budgetOf(m.area, config.probes, probeRuns);
      const budgetName = createHash("sha256").update(budget.map((i) => runName(runs[i])).join("\n")).digest("hex").slice(0, 16);
      const prior = journal.get(`${m.key}\u0000${budgetName}`);
      if (prior !== undefined) {
        results.push(prior);
        if (opts.journal !== undefined) appendFileSync(opts.journal, `${JSON.stringify(prior)}\n`);
        continue;
      }
      const reached = budget.filter((i) => staticIds.has(m.id) || baseline.get(i).covered.includes(m.id));
      // a baseline from before infection was recorded has no `infected`: every reaching run counts
      const infects = (i) => staticInfected.has(m.id) || (baseline.get(i).infected ?? baseline.get(i).covered).includes(m.id);
      const killer = priorKiller.get(m.key) ?? history.findLast((h) => h.key === m.key && h.killedBy !== undefined)?.killedBy.run;
      const reaching = orderRuns(reached.filter(infects), m, { killer, history, msOf: (i) => baseline.get(i).ms }, runs);
      const head = { n: position.get(m.key), key: m.key, budget: budgetName, file: m.file, line: m.line, area: m.area, operator: m.operator, scope: m.scope, original: m.original, replacement: m.replacement, budgetRuns: budget.length, reachingRuns: reached.length, infectingRuns: reaching.length };
      let result;
      if (reached.length === 0) result = { ...head, status: "no-coverage", wallMs: 0 };
      else if (reaching.length === 0) result = { ...head, status: "survived", neverInfected: true, runsDone: 0, wallMs: 0 };
      else {
        ran++;
        const baseMs = reaching.reduce((s, i) => s + baseline.get(i).ms, 0);
        const limitMs = Math.max(config.minLimitMs, config.limitFactor * baseMs);
        const expectedFailures = Object.fromEntries(reaching.map((i, k) => [k, baseline.get(i).checkers]));
        const outcome = await runWorker(dir, { runs: reaching.map((i) => runs[i]), stopAtFailure: true, expectedFailures }, { active: m.id, limitMs });
        result = { ...head, ...verdictOf(outcome, reaching.map((i) => runs[i]), expectedFailures, runName), wallMs: outcome.wallMs };
      }
      results.push(result);
      history.push(result);
      if (opts.journal !== undefined) appendFileSync(opts.journal, `${JSON.stringify(result)}\n`);
      const runsNote = result.neverInfected ? `never infected in ${result.reachingRuns} reaching runs` : `${result.runsDone ?? 0} of ${result.infectingRuns} infecting runs`;
      log(`${String(result.n).padStart(3)} ${result.status.toUpperCase().padEnd(11)} ${describeKey(m.key)}${result.killedBy ? ` — ${result.killedBy.run}: ${result.killedBy.why}` : ""} (${(result.wallMs / 1000).toFixed(1)} s, ${runsNote})`);
    }
    const mutantsMs = Math.round(performance.now() - started);
    const fresh = results.length - results.filter((r) => journal.has(`${r.key}\u0000${r.budget}`)).length;
    log(`${fresh} mutants judged in ${(mutantsMs / 1000).toFixed(0)} s after the baseline (${ran} of them needed runs): ${fresh === 0 ? "–" : ((fresh * 3_600_000) / Math.max(1, mutantsMs)).toFixed(1)} mutants/hour`);
    const summary = summarize(results, { gone, population: mutants.length, sampleSize: sample.keys.length, seed: sample.seed, baselineMs: base.wallMs, mutantsMs, judged: fresh, wallMs: Math.round(performance.now() - t0) }, loadEquivalent());
    if (opts.report !== undefined) writeFileSync(opts.report, `${JSON.stringify(summary, null, 1)}\n`);
    if (opts.json) console.log(JSON.stringify(summary));
    else console.log(table(summary));
    return summary.score >= (config.target ?? 0.8) ? 0 : 1;
  } finally {
    cleanup();
  }
}
