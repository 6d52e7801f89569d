/**
 * The sweep report: what one `zksim explore … --save-dir DIR` leaves behind besides its replay
 * files, and how `zksim explore --merge DIR…` combines the reports of the shards of one sweep.
 *
 * A report names the sweep it belongs to (scenario, variant, bug/canary/generate options, the
 * whole seed range `from … from+count−1` and the shard count) and what its shard found. Reports
 * of one sweep merge into the report an unsharded run of the same range would have printed:
 * the failures are the union (sorted by seed; shards are disjoint, docs/sweeps.md), the seeds
 * run the sum. Throughput adds up, since shards run side by side: `seedsPerSec` is the sum of
 * the shards' rates, and `wallSeconds` the slowest shard's.
 *
 * A merge refuses reports of different sweeps (exit 2, naming both files and the field), and a
 * shard reported twice. A merge with shards missing or interrupted is still printed, marked
 * `incomplete`: the sweep has not shown that every seed passes. In the merged report a failure's
 * `replayFile` is a path from where the merge ran (the shard's directory joined to its name).
 *
 * File name: `explore-report.json` for an unsharded sweep, `explore-report-shard-<i>-of-<n>.json`
 * for a shard, so that every shard may write to one shared directory.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { UserInputError } from "../../sim/errors.js";
import { readInputFile } from "../files.js";
import type { Shard } from "./seeds.js";
import { addCoverage, type CoverageSummary } from "./coverage-report.js";

export const SWEEP_REPORT_KIND = "zksim-explore-report";
export const SWEEP_REPORT_VERSION = 1;

export interface SweepFailure {
  seed: number;
  checker: string;
  replay: string;
  /** The replay file written for this seed, relative to the report's directory (absent when the run threw). */
  replayFile?: string;
}

/** What identifies one sweep: every shard of it carries the same values. */
export interface SweepIdentity {
  scenario: string;
  /** The scenario as the user named it (a name or a path): it is what the replay lines run. */
  scenarioArg: string;
  variant: string | null;
  bugs: string[];
  canary: string | null;
  generate: boolean;
  /** The whole range `from … from+count−1`, before sharding. */
  from: number;
  count: number;
  shardCount: number;
}

export interface SweepReport extends SweepIdentity {
  kind: typeof SWEEP_REPORT_KIND;
  version: typeof SWEEP_REPORT_VERSION;
  /** 1-based; 1 for an unsharded sweep (shardCount 1). */
  shardIndex: number;
  seedsPlanned: number;
  seedsRun: number;
  failures: SweepFailure[];
  /** Seeds whose only violations are the scenario's documented flaws (absent in older reports: none). */
  expected: SweepFailure[];
  seedsWithUnknown: number;
  /** Seeds that reached each fault kind and protocol state (absent in older reports). */
  coverage?: CoverageSummary;
  wallSeconds: number;
  seedsPerSec: number;
  interrupted: boolean;
}

export function sweepReportFileName(shard: Shard | undefined): string {
  return shard === undefined ? "explore-report.json" : `explore-report-shard-${shard.index}-of-${shard.count}.json`;
}

const REPORT_FILE = /^explore-report(?:-shard-\d+-of-\d+)?\.json$/;

/** The merged sweep: the union of its shards, and what is missing from it. */
export interface MergedSweep extends SweepIdentity {
  shardsMerged: number;
  seedsRun: number;
  failures: SweepFailure[];
  expected: SweepFailure[];
  seedsWithUnknown: number;
  /** The shards' coverage added up (over the shards that reported one). */
  coverage?: CoverageSummary;
  /** The sum of the shards' rates: shards run side by side. */
  seedsPerSec: number;
  /** The slowest shard's wall time. */
  wallSeconds: number;
  /** Present when shards are missing or were interrupted: the sweep did not run every seed. */
  incomplete?: { missingShards: number[]; interruptedShards: number[] };
}

/** The report files named on the command line: each argument is a report file or a directory holding some. */
export function findSweepReports(paths: readonly string[]): string[] {
  const found = new Map<string, string>(); // resolved path → the path as given
  const add = (path: string) => {
    if (!found.has(resolve(path))) found.set(resolve(path), path);
  };
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      throw new UserInputError(`explore --merge: ${path}: no such file or directory`);
    }
    if (!isDir) {
      add(path);
      continue;
    }
    const inDir = readdirSync(path).filter((name) => REPORT_FILE.test(name)).sort();
    if (inDir.length === 0) throw new UserInputError(`explore --merge: ${path} holds no explore report (a sweep writes explore-report*.json with --save-dir)`);
    for (const name of inDir) add(join(path, name));
  }
  return [...found.values()];
}

/** Reads and checks one report file; a malformed one is a UserInputError naming the file and the field. */
export function readSweepReport(path: string): SweepReport {
  const text = readInputFile(path, "explore report");
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UserInputError(`explore report ${path}: not JSON (${(err as Error).message})`);
  }
  return parseSweepReport(doc, path);
}

export function parseSweepReport(doc: unknown, path: string): SweepReport {
  const bad = (field: string, want: string) => new UserInputError(`explore report ${path}: "${field}" must be ${want}`);
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new UserInputError(`explore report ${path}: not a JSON object`);
  const o = doc as Record<string, unknown>;
  if (o.kind !== SWEEP_REPORT_KIND) throw bad("kind", `"${SWEEP_REPORT_KIND}"`);
  if (o.version !== SWEEP_REPORT_VERSION) throw bad("version", String(SWEEP_REPORT_VERSION));
  const str = (k: string): string => {
    if (typeof o[k] !== "string") throw bad(k, "a string");
    return o[k] as string;
  };
  const strOrNull = (k: string): string | null => (o[k] === null ? null : str(k));
  const int = (k: string, min: number): number => {
    const v = o[k];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw bad(k, `an integer ≥ ${min}`);
    return v;
  };
  const num = (k: string): number => {
    const v = o[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw bad(k, "a number ≥ 0");
    return v;
  };
  const bool = (k: string): boolean => {
    if (typeof o[k] !== "boolean") throw bad(k, "true or false");
    return o[k] as boolean;
  };
  if (!Array.isArray(o.bugs) || !o.bugs.every((b) => typeof b === "string")) throw bad("bugs", "a list of strings");
  const seedList = (field: "failures" | "expected", list: unknown): SweepFailure[] => {
    if (!Array.isArray(list)) throw bad(field, "a list");
    return list.map((f, i) => sweepFailure(f, `${field}[${i}]`, bad));
  };
  const failures = seedList("failures", o.failures);
  const expected = o.expected === undefined ? [] : seedList("expected", o.expected);

  const report: SweepReport = {
    kind: SWEEP_REPORT_KIND,
    version: SWEEP_REPORT_VERSION,
    scenario: str("scenario"),
    scenarioArg: str("scenarioArg"),
    variant: strOrNull("variant"),
    bugs: o.bugs as string[],
    canary: strOrNull("canary"),
    generate: bool("generate"),
    from: int("from", 0),
    count: int("count", 1),
    shardCount: int("shardCount", 1),
    shardIndex: int("shardIndex", 1),
    seedsPlanned: int("seedsPlanned", 0),
    seedsRun: int("seedsRun", 0),
    failures,
    expected,
    seedsWithUnknown: int("seedsWithUnknown", 0),
    ...(o.coverage !== undefined ? { coverage: parseCoverage(o.coverage, bad) } : {}),
    wallSeconds: num("wallSeconds"),
    seedsPerSec: num("seedsPerSec"),
    interrupted: bool("interrupted"),
  };
  if (report.shardIndex > report.shardCount) throw bad("shardIndex", `at most shardCount (${report.shardCount})`);
  checkAgainstPlan(report, o, bad);
  return report;
}

/** The fields a report has (a report's writer, saveSweepReport, writes no others). */
const REPORT_FIELDS: ReadonlySet<string> = new Set(["kind", "version", "scenario", "scenarioArg", "variant", "bugs", "canary", "generate", "from", "count", "shardCount", "shardIndex", "seedsPlanned", "seedsRun", "failures", "expected", "seedsWithUnknown", "coverage", "wallSeconds", "seedsPerSec", "interrupted"]);

/**
 * A report that contradicts its own plan is refused: an unknown field (a typo, another tool's
 * file), a plan that is not its shard's share of the range, more seeds run than planned, and a
 * listed seed that is not one of its shard's (a merge would report it, or count it twice).
 */
function checkAgainstPlan(r: SweepReport, o: Record<string, unknown>, bad: (field: string, want: string) => UserInputError): void {
  const unknown = Object.keys(o).find((k) => !REPORT_FIELDS.has(k));
  if (unknown !== undefined) throw bad(unknown, `absent (not a field of an explore report; known: ${[...REPORT_FIELDS].join(", ")})`);
  if (r.from > Number.MAX_SAFE_INTEGER - (r.count - 1)) throw bad("count", `such that the range ends by ${Number.MAX_SAFE_INTEGER}`);
  const share = r.shardIndex > r.count ? 0 : Math.ceil((r.count - (r.shardIndex - 1)) / r.shardCount);
  if (r.seedsPlanned !== share) throw bad("seedsPlanned", `${share}, shard ${r.shardIndex}/${r.shardCount}'s share of ${r.count} seeds`);
  if (r.seedsRun > r.seedsPlanned) throw bad("seedsRun", `at most seedsPlanned (${r.seedsPlanned})`);
  if (r.seedsWithUnknown > r.seedsRun) throw bad("seedsWithUnknown", `at most seedsRun (${r.seedsRun})`);
  for (const field of ["failures", "expected"] as const) {
    r[field].forEach((f, i) => {
      const k = f.seed - r.from;
      if (k < 0 || k >= r.count || k % r.shardCount !== r.shardIndex - 1) throw bad(`${field}[${i}].seed`, `one of shard ${r.shardIndex}/${r.shardCount}'s seeds of ${r.from} … ${r.from + r.count - 1} (got ${f.seed})`);
    });
  }
  if (r.failures.length + r.expected.length > r.seedsRun) throw bad("failures", `at most seedsRun (${r.seedsRun}) seeds, with expected`);
}

function parseCoverage(raw: unknown, bad: (field: string, want: string) => UserInputError): CoverageSummary {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw bad("coverage", "an object {seeds, reached}");
  const c = raw as Record<string, unknown>;
  if (typeof c.seeds !== "number" || !Number.isSafeInteger(c.seeds) || c.seeds < 0) throw bad("coverage.seeds", "an integer ≥ 0");
  if (typeof c.reached !== "object" || c.reached === null || Array.isArray(c.reached)) throw bad("coverage.reached", "an object of seed counts");
  const reached: Record<string, number> = {};
  for (const [f, n] of Object.entries(c.reached)) {
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0 || n > c.seeds) throw bad(`coverage.reached["${f}"]`, `an integer in [0, ${c.seeds}]`);
    reached[f] = n;
  }
  return { seeds: c.seeds, reached };
}

/** One listed seed of a report (`at` names it in messages: `failures[3]`). */
function sweepFailure(f: unknown, at: string, bad: (field: string, want: string) => UserInputError): SweepFailure {
  if (typeof f !== "object" || f === null) throw bad(at, "an object");
  const r = f as Record<string, unknown>;
  if (typeof r.seed !== "number" || !Number.isSafeInteger(r.seed)) throw bad(`${at}.seed`, "an integer");
  if (typeof r.checker !== "string") throw bad(`${at}.checker`, "a string");
  if (typeof r.replay !== "string") throw bad(`${at}.replay`, "a string");
  if (r.replayFile !== undefined && typeof r.replayFile !== "string") throw bad(`${at}.replayFile`, "a string");
  return { seed: r.seed, checker: r.checker, replay: r.replay, ...(r.replayFile !== undefined ? { replayFile: r.replayFile as string } : {}) };
}

const IDENTITY_FIELDS = ["scenario", "scenarioArg", "variant", "bugs", "canary", "generate", "from", "count", "shardCount"] as const satisfies readonly (keyof SweepIdentity)[];

/**
 * Merges the reports of one sweep's shards (each given with its file path, for messages).
 * Reports of different sweeps, or one shard twice, are a UserInputError.
 */
export function mergeSweepReports(reports: readonly { path: string; report: SweepReport }[]): MergedSweep {
  const first = reports[0];
  if (first === undefined) throw new UserInputError("explore --merge: no explore report given");
  const byShard = new Map<number, string>();
  for (const { path, report } of reports) {
    for (const field of IDENTITY_FIELDS) {
      if (JSON.stringify(report[field]) !== JSON.stringify(first.report[field])) {
        throw new UserInputError(
          `explore --merge: ${path} and ${first.path} are from different sweeps ("${field}": ${JSON.stringify(report[field])} vs ${JSON.stringify(first.report[field])})`,
        );
      }
    }
    const twice = byShard.get(report.shardIndex);
    if (twice !== undefined) throw new UserInputError(`explore --merge: shard ${report.shardIndex}/${report.shardCount} is reported twice (${twice} and ${path})`);
    byShard.set(report.shardIndex, path);
  }
  const id = first.report;
  const all = reports.map((r) => r.report);
  const missingShards: number[] = [];
  for (let i = 1; i <= id.shardCount; i++) if (!byShard.has(i)) missingShards.push(i);
  const interruptedShards = all.filter((r) => r.interrupted).map((r) => r.shardIndex).sort((a, b) => a - b);
  return {
    ...sweepIdentity(id),
    shardsMerged: all.length,
    seedsRun: all.reduce((n, r) => n + r.seedsRun, 0),
    failures: mergedList(reports, (r) => r.failures),
    expected: mergedList(reports, (r) => r.expected),
    seedsWithUnknown: all.reduce((n, r) => n + r.seedsWithUnknown, 0),
    ...mergedCoverage(all),
    seedsPerSec: Math.round(all.reduce((n, r) => n + r.seedsPerSec, 0) * 10) / 10,
    wallSeconds: Math.max(...all.map((r) => r.wallSeconds)),
    ...(missingShards.length > 0 || interruptedShards.length > 0 ? { incomplete: { missingShards, interruptedShards } } : {}),
  };
}

/** What names a sweep (the fields its shards must agree on). */
function sweepIdentity({ scenario, scenarioArg, variant, bugs, canary, generate, from, count, shardCount }: SweepIdentity): SweepIdentity {
  return { scenario, scenarioArg, variant, bugs, canary, generate, from, count, shardCount };
}

/** One list of every shard's seeds, sorted by seed, each replay file a path from where the merge ran. */
function mergedList(reports: readonly { path: string; report: SweepReport }[], list: (r: SweepReport) => SweepFailure[]): SweepFailure[] {
  return reports
    .flatMap(({ path, report }) => list(report).map((f) => (f.replayFile === undefined ? f : { ...f, replayFile: join(dirname(path), f.replayFile) })))
    .sort((a, b) => a.seed - b.seed);
}

/** The shards' coverage added up, when any shard reported one. */
function mergedCoverage(reports: readonly SweepReport[]): { coverage?: CoverageSummary } {
  const given = reports.flatMap((r) => (r.coverage !== undefined ? [r.coverage] : []));
  return given.length === 0 ? {} : { coverage: given.reduce(addCoverage) };
}
