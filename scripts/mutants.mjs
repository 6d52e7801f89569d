#!/usr/bin/env node
// Mutation testing (`npm run mutants`): applies each one-line defect of mutants/list.json to a
// scratch copy of the repository, rebuilds the mutated file, and runs the list's probes — `zksim
// run` scenarios and bounded `zksim explore` sweeps, the CLI only (unit tests do not count) —
// until one of them fails. A defect is *killed* when a probe fails in a way the unmutated build
// does not (a violation, a new failing seed or checker of a sweep, an internal error, or a probe
// that outlives its time limit); it *survives* when every probe passes as before.
//
// Invariants:
// - the working tree is never written: the scratch copy lives under the OS temp directory, with
//   node_modules symlinked, and is removed at the end (unless --keep);
// - before any run, every selected defect's snippet must occur exactly once in the current sources
//   (a rotted defect is exit 2, named); `--check` does only this;
// - the baseline (no defect) runs every probe first; a `run` probe that fails there is exit 3
//   (the probe list is wrong), a sweep's baseline failures are subtracted from every mutant's;
// - a mutated file is rebuilt alone (TypeScript's transpileModule, the project's compiler options)
//   when that reproduces tsc's output for the unmutated file, else the whole copy is rebuilt by tsc;
//   a defect whose emitted JavaScript equals the original's is refused (it changes nothing).
//
// Usage: node scripts/mutants.mjs [--json] [--only ID[,ID…]] [--jobs N] [--list FILE] [--keep] [--check]
//        node scripts/mutants.mjs --mechanical … (mutants nobody chose: scripts/mechanical/run.mjs)
// Exit: 0 every defect not marked equivalent was killed; 1 some survived; 2 bad input or a rotted
// defect; 3 the baseline failed or the scratch copy could not be built.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { applyDefect, loadList, probeArgs, probeName, probesFor } from "./mutants-list.mjs";

const ROOT = realpathSync(new URL("..", import.meta.url).pathname);
const COPIED = ["src", "bin", "scenarios", "package.json", "tsconfig.json"];
/** A probe may take this many times its baseline wall time (at least MIN_LIMIT_MS) before it counts as hung. */
const LIMIT_FACTOR = 10;
const MIN_LIMIT_MS = 60_000;

/** An error that ends the script with its own exit code and one message (after cleanup). */
class MutantsError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function fail(code, message) {
  throw new MutantsError(code, message);
}

/** Probe processes still running: killed when the script stops early. */
const live = new Set();

function parseArgs(argv) {
  const opts = { json: false, only: undefined, jobs: 2, list: join(ROOT, "mutants", "list.json"), keep: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(2, `${a} needs a value`));
    if (a === "--json") opts.json = true;
    else if (a === "--keep") opts.keep = true;
    else if (a === "--check") opts.check = true;
    else if (a === "--only") opts.only = value().split(",").filter((s) => s !== "");
    else if (a === "--list") opts.list = resolve(process.cwd(), value());
    else if (a === "--jobs") {
      const v = value();
      opts.jobs = Number(v);
      if (!/^[1-9][0-9]?$/.test(v)) fail(2, `--jobs must be an integer from 1 to 99, got "${v}"`);
    } else fail(2, `unknown argument "${a}" (usage: mutants [--json] [--only ID[,ID…]] [--jobs N] [--list FILE] [--keep] [--check])`);
  }
  return opts;
}

// ---- the scratch copy -------------------------------------------------------------------------

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) fail(3, `${cmd} ${args.join(" ")} failed in ${cwd}:\n${r.stdout}${r.stderr}`);
}

/** A copy of the sources with node_modules symlinked, built by tsc into its own dist/. */
function buildBase(scratch) {
  const base = join(scratch, "base");
  mkdirSync(base);
  for (const name of COPIED) cpSync(join(ROOT, name), join(base, name), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(base, "node_modules"));
  run(process.execPath, [join(base, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], base);
  return base;
}

function cloneBase(base, dir) {
  mkdirSync(dir);
  for (const name of [...COPIED, "dist"]) cpSync(join(base, name), join(dir, name), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
  return dir;
}

function compilerOptions(base) {
  const file = join(base, "tsconfig.json");
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(file, ts.sys.readFile).config, ts.sys, base);
  return parsed.options;
}

/** One file compiled alone, as ES modules (what tsc emits for this "type": "module" package). */
function transpile(text, file, options, removeComments = false) {
  const compilerOptions = { ...options, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: false, inlineSourceMap: false, removeComments };
  return ts.transpileModule(text, { compilerOptions, fileName: file }).outputText;
}

const withoutSourceMapUrl = (js) => js.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, "\n").trimEnd();

/** Applies a defect in a job's copy and rebuilds; returns a function that restores the copy. */
function mutate(dir, base, defect, build) {
  const src = join(dir, defect.file);
  const jsRel = join("dist", relative("src", defect.file).replace(/\.tsx?$/, ".js"));
  const original = readFileSync(src, "utf8");
  const mutated = applyDefect(original, defect);
  const restore = () => {
    writeFileSync(src, original);
    cpSync(join(base, jsRel), join(dir, jsRel));
  };
  writeFileSync(src, mutated);
  // Alone, the file compiles as tsc compiled it unless it depends on other files' types at emit
  // (a const enum inlined across files): then the whole copy is rebuilt.
  const alone = transpile(original, src, build.options).trimEnd() === withoutSourceMapUrl(readFileSync(join(base, jsRel), "utf8"));
  if (!alone) {
    const r = spawnSync(process.execPath, [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) {
      restore();
      return { error: `the mutated copy does not compile: ${(r.stdout + r.stderr).trim().split("\n")[0]}` };
    }
  } else {
    writeFileSync(join(dir, jsRel), transpile(mutated, src, build.options));
  }
  return { restore };
}

// ---- probes -----------------------------------------------------------------------------------

/** Runs one probe in a copy; resolves { code, last (parsed JSON line or undefined), stderr, wallMs, timedOut }. */
function runProbe(dir, probe, limitMs) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--max-semi-space-size=64", join(dir, "bin", "zksim.js"), ...probeArgs(probe)], {
      cwd: dir,
      env: { ...process.env, FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => (stdout += b));
    child.stderr.on("data", (b) => (stderr += b));
    live.add(child);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, limitMs);
    child.on("close", (code) => {
      live.delete(child);
      clearTimeout(timer);
      const lines = stdout.trim().split("\n");
      let last;
      try {
        last = JSON.parse(lines[lines.length - 1] ?? "");
      } catch {
        last = undefined; // no JSON summary: the probe crashed or hung, judged by its exit code below
      }
      resolve({ code, last, stderr, wallMs: performance.now() - started, timedOut });
    });
  });
}

/** The failing (seed, checker) pairs of a probe's outcome, as "seed:checker" strings. */
function failures(probe, outcome) {
  if (probe.kind === "run") return (outcome.last?.violations ?? []).map((v) => `${probe.seed ?? 1}:${v.checker}`);
  return (outcome.last?.failures ?? []).map((f) => `${f.seed}:${f.checker}`);
}

/** Why the outcome kills the defect (undefined: it passed as the baseline did). */
function verdict(probe, outcome, baseline) {
  if (outcome.timedOut) return `hung (killed after ${Math.round(outcome.wallMs / 1000)} s)`;
  if (outcome.last === undefined || (outcome.code !== 0 && outcome.code !== 1)) {
    const line = outcome.stderr.trim().split("\n").find((l) => l.trim() !== "") ?? "";
    return `exit ${outcome.code}: ${line.slice(0, 160)}`;
  }
  const fresh = failures(probe, outcome).filter((f) => !baseline.failures.has(f));
  if (fresh.length === 0) return undefined;
  const shown = [...new Set(fresh.map((f) => (probe.kind === "run" ? f.split(":").slice(1).join(":") : f)))];
  return `${shown.slice(0, 3).join(", ")}${shown.length > 3 ? ` (+${shown.length - 3} more)` : ""}`;
}

// ---- the driver -------------------------------------------------------------------------------

async function pool(items, jobs, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async (_, j) => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i], j);
      }
    }),
  );
  return results;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { defects, probes, problems } = loadList(opts.list, ROOT);
  if (problems.length > 0) fail(2, `${problems.length} problem(s) in ${relative(process.cwd(), opts.list) || opts.list}:\n  ${problems.join("\n  ")}`);
  const unknown = (opts.only ?? []).filter((id) => !defects.some((d) => d.id === id));
  if (unknown.length > 0) fail(2, `--only: no defect ${unknown.join(", ")} in the list`);
  const selected = opts.only ? defects.filter((d) => opts.only.includes(d.id)) : defects;
  const options = compilerOptions(ROOT);
  const noOps = selected.filter((d) => {
    const file = join(ROOT, d.file);
    const text = readFileSync(file, "utf8");
    return transpile(text, file, options, true) === transpile(applyDefect(text, d), file, options, true);
  });
  if (noOps.length > 0) fail(2, `${noOps.map((d) => `defect ${d.id} (${d.file})`).join(", ")}: the mutation changes no emitted JavaScript (a comment or a type only)`);
  if (opts.check) {
    console.log(`mutants: ${selected.length} defect(s) and ${probes.length} probe(s) match the current sources`);
    return 0;
  }

  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), "zksim-mutants-"));
  const cleanup = () => {
    for (const child of live) child.kill("SIGKILL");
    if (opts.keep) console.error(`mutants: scratch copy kept at ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  };
  process.on("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  try {
    console.error(`mutants: building the scratch copy in ${scratch}`);
    const base = buildBase(scratch);
    const build = { options };
    const dirs = Array.from({ length: opts.jobs }, (_, j) => cloneBase(base, join(scratch, `job-${j}`)));

    console.error(`mutants: baseline: ${probes.length} probe(s) without a defect`);
    const baselines = await pool(probes, opts.jobs, async (probe, j) => {
      const outcome = await runProbe(dirs[j], probe, 30 * 60_000);
      const ok = outcome.last !== undefined && (outcome.code === 0 || (probe.kind === "explore" && outcome.code === 1));
      if (!ok) fail(3, `baseline ${probeName(probe)} failed without any defect (exit ${outcome.code}): fix the probe list or the code\n${outcome.stderr.slice(0, 2000)}`);
      const found = new Set(failures(probe, outcome));
      if (found.size > 0) console.error(`mutants: baseline ${probeName(probe)} already fails at ${[...found].join(", ")} (ignored for mutants)`);
      return { failures: found, limitMs: Math.max(MIN_LIMIT_MS, LIMIT_FACTOR * outcome.wallMs) };
    });
    const baselineOf = new Map(probes.map((p, i) => [p, baselines[i]]));

    const results = await pool(selected, opts.jobs, async (defect, j) => {
      const t0 = performance.now();
      const applied = mutate(dirs[j], base, defect, build);
      if (applied.error !== undefined) fail(2, `defect ${defect.id} (${defect.file}): ${applied.error}`);
      let killedBy;
      let probesRun = 0;
      try {
        for (const probe of probesFor(defect, probes)) {
          probesRun++;
          const baseline = baselineOf.get(probe);
          const why = verdict(probe, await runProbe(dirs[j], probe, baseline.limitMs), baseline);
          if (why !== undefined) {
            killedBy = { probe: probeName(probe), why };
            break;
          }
        }
      } finally {
        applied.restore();
      }
      const result = {
        id: defect.id,
        area: defect.area,
        file: defect.file,
        description: defect.description,
        status: killedBy ? "killed" : "survived",
        ...(killedBy ? { killedBy } : {}),
        ...(defect.equivalent !== undefined ? { equivalent: defect.equivalent } : {}),
        probesRun,
        wallMs: Math.round(performance.now() - t0),
      };
      console.error(`mutants: ${line(result)}`);
      return result;
    });

    const counted = results.filter((r) => r.equivalent === undefined);
    const killed = counted.filter((r) => r.status === "killed").length;
    const summary = {
      defects: results,
      killed,
      survived: counted.length - killed,
      equivalent: results.length - counted.length,
      score: counted.length === 0 ? 1 : Number((killed / counted.length).toFixed(4)),
      probes: probes.map(probeName),
      wallMs: Math.round(performance.now() - started),
    };
    if (opts.json) console.log(JSON.stringify(summary));
    else {
      for (const r of results) console.log(line(r));
      console.log(
        `score: ${killed} of ${counted.length} killed (${(summary.score * 100).toFixed(1)}%)` +
          `${summary.equivalent > 0 ? `; ${summary.equivalent} marked equivalent, not counted` : ""}; ${(summary.wallMs / 1000).toFixed(0)} s`,
      );
    }
    return summary.survived === 0 ? 0 : 1;
  } finally {
    cleanup();
  }
}

function line(r) {
  const head = `${r.status === "killed" ? "KILLED  " : "SURVIVED"} ${r.id} [${r.area}]`;
  const equivalent = r.equivalent !== undefined ? ` (marked equivalent: ${r.equivalent})` : "";
  if (r.status === "killed") return `${head} by ${r.killedBy.probe}: ${r.killedBy.why}${equivalent} — ${(r.wallMs / 1000).toFixed(1)} s`;
  return `${head}: ${r.description}${equivalent} — ${r.probesRun} probes, ${(r.wallMs / 1000).toFixed(1)} s`;
}

// `--mechanical`: the mechanical score (scripts/mechanical/run.mjs) instead of the hand-written list.
const entry = process.argv.includes("--mechanical") ? () => import("./mechanical/run.mjs").then((m) => m.mechanicalMain(process.argv.slice(2))) : main;

entry().then(
  (code) => process.exit(code),
  (err) => {
    const known = err instanceof MutantsError || err?.name === "MechanicalError";
    console.error(known ? `mutants: ${err.message}` : `mutants: internal error: ${err && err.stack ? err.stack : err}`);
    process.exit(known ? err.code : 3);
  },
);
