/**
 * The replay file, format "replay/1": one recorded case as data — the whole scenario document
 * (fault schedule included, so the file replays even after scenarios/ changes), the seed, the
 * bug-zoo ids and canary the run used, and what the run produced (trace hash, verdict, the
 * violations' checkers and messages), and optionally the decision-stream simplification
 * (`simplify`: draw ranges that take their simplest values, written by `zksim shrink`; absent
 * means none). `zksim run --save`, `zksim explore --save-dir`, `zksim shrink` and a failing
 * property test (`assertSimulation`, src/property/) write it; `zksim replay` and `zksim shrink`
 * read it.
 *
 * Pure: text in, text out, no I/O (the CLI reads and writes the files). Invariants:
 * - `parseScenario(scenarioToDocument(s))` deep-equals `s`, so the embedded document
 *   reproduces the parsed scenario exactly;
 * - `parseReplayFile(serializeReplayCase(c))` deep-equals `c`;
 * - every defect of a file (bad JSON, wrong version tag, missing or unknown field, invalid
 *   scenario, unknown bug or canary) is a one-line UserInputError naming the file and field.
 */
import { UserInputError, checkKnownFields, invariant } from "../sim/errors.js";
import type { NetworkConfig } from "../sim/network.js";
import type { DiskConfig } from "../sim/disk.js";
import { usToMs } from "../sim/time.js";
import type { SimplifyRange } from "../sim/decision-tape.js";
import { bugEntry } from "./bug-zoo.js";
import { parseScenario } from "./parse.js";
import { withDrawnFaults } from "./nemesis/index.js";
import { SCENARIO_REGISTRY, workloadDef, type Registry } from "./registry.js";
import type { Canary, RunOptions, RunResult, Scenario, Verdict } from "./types.js";
import { CANARIES, isCanary } from "./canaries.js";

export const REPLAY_FORMAT = "replay/1";

export interface ExpectedViolation {
  checker: string;
  message: string;
}

export interface ReplayExpectation {
  traceHash: string;
  verdict: Verdict;
  violations: ExpectedViolation[];
}

/** One recorded case: everything that determines a run, and what it produced. */
export interface ReplayCase {
  scenario: Scenario;
  seed: number;
  /** Bug-zoo ids, normalised ("ZK-1154"). */
  bugs: string[];
  canary: Canary | undefined;
  /** Decision-stream ranges whose draws take their simplest values (empty: none). */
  simplify: SimplifyRange[];
  expected: ReplayExpectation;
}

/** A scenario as the JSON document that `parseScenario` reads (times in ms, as in scenarios/). */
export type ScenarioDocument = Record<string, unknown>;

const FILE_KEYS = ["zksim", "scenario", "seed", "bugs", "canary", "simplify", "expected"];
const EXPECTED_KEYS = ["traceHash", "verdict", "violations"];

/** The parsed network and disk settings back in the document's units (the inverse of parse.ts). */
const NET_FIELDS: Record<keyof NetworkConfig, (v: number) => [string, number]> = {
  minDelayUs: (v) => ["minDelayMs", usToMs(v)],
  maxDelayUs: (v) => ["maxDelayMs", usToMs(v)],
  lossRate: (v) => ["lossRate", v],
  duplicateRate: (v) => ["duplicateRate", v],
  reorderRate: (v) => ["reorderRate", v],
  reorderExtraUs: (v) => ["reorderExtraMs", usToMs(v)],
  connectTimeoutUs: (v) => ["connectTimeoutMs", usToMs(v)],
};
const DISK_FIELDS: Record<keyof DiskConfig, (v: number) => [string, number]> = {
  fsyncLatencyUs: (v) => ["fsyncLatencyMs", usToMs(v)],
  capacityBytes: (v) => ["capacityBytes", v],
  tearProbability: (v) => ["tearProbability", v],
};

/** A scenario's network and disk settings as its document writes them (minDelayMs, fsyncLatencyMs, …). */
export function networkDiskToDocument(network: Partial<NetworkConfig>, disk: Partial<DiskConfig>): { network: Record<string, number>; disk: Record<string, number> } {
  return { network: settingsToDocument(network, NET_FIELDS, "network"), disk: settingsToDocument(disk, DISK_FIELDS, "disk") };
}

export function scenarioToDocument(s: Scenario): ScenarioDocument {
  return {
    name: s.name,
    description: s.description,
    tags: [...s.tags],
    seed: s.defaultSeed,
    durationMs: s.durationMs,
    ...networkDiskToDocument(s.network, s.disk),
    workload: { kind: s.workload.kind, ...s.workload.params },
    faults: s.faults.map((f) => ({ ...f, ...(f.when !== undefined ? { when: f.when.map((w) => ({ ...w })) } : {}) })),
    ...(s.nemesis !== undefined ? { nemesis: { kind: s.nemesis.kind, ...s.nemesis.params } } : {}),
    checkers: [...s.checkers],
    ...(s.convergence !== undefined ? { convergence: s.convergence === false ? false : { ...s.convergence } } : {}),
    ...(s.expectedViolations !== undefined ? { expectedViolations: s.expectedViolations.map((d) => ({ ...d })) } : {}),
  };
}

function settingsToDocument<K extends string>(settings: Partial<Record<K, number>>, fields: Record<K, (v: number) => [string, number]>, at: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(settings) as [K, number | undefined][]) {
    const conv = fields[key];
    invariant(conv !== undefined, `scenario ${at}.${key} has no document form`);
    if (value === undefined) continue;
    const [docKey, docValue] = conv(value);
    out[docKey] = docValue;
  }
  return out;
}

/**
 * The case a finished run recorded (`options` as passed to runScenario), with the faults its
 * nemesis drew listed (so the file shows them and `zksim shrink` can remove them).
 */
export function replayCaseFromRun(scenario: Scenario, options: Pick<RunOptions, "bugs" | "canary" | "simplify" | "registry">, result: RunResult): ReplayCase {
  const canary = options.canary;
  if (canary !== undefined && !isCanary(canary)) throw new UserInputError(`canary "${canary}" is test-only (no --canary): its runs are not saved as replay files`);
  return {
    scenario: scenarioAsRun(scenario, result.seed, options.registry),
    seed: result.seed,
    bugs: [...(options.bugs ?? [])],
    canary,
    simplify: (options.simplify ?? []).map((r) => ({ ...r })),
    expected: {
      traceHash: result.traceHash,
      verdict: result.verdict,
      violations: result.violations.map(({ checker, message }) => ({ checker, message })),
    },
  };
}

/** The scenario as seed `seed` runs it: its nemesis's faults drawn and listed (identity without one). */
export function scenarioAsRun(scenario: Scenario, seed: number, registry?: Registry): Scenario {
  if (scenario.nemesis === undefined) return scenario;
  return withDrawnFaults(scenario, seed, workloadDef(scenario.workload.kind, registry));
}

/** The options that re-run a case exactly as it was recorded. */
export function replayRunOptions(c: ReplayCase): RunOptions {
  return {
    seed: c.seed,
    ...(c.bugs.length > 0 ? { bugs: c.bugs } : {}),
    ...(c.canary !== undefined ? { canary: c.canary } : {}),
    ...(c.simplify.length > 0 ? { simplify: c.simplify } : {}),
  };
}

export function serializeReplayCase(c: ReplayCase): string {
  const doc = {
    zksim: REPLAY_FORMAT,
    scenario: scenarioToDocument(c.scenario),
    seed: c.seed,
    bugs: c.bugs,
    canary: c.canary ?? null,
    ...(c.simplify.length > 0 ? { simplify: c.simplify } : {}),
    expected: c.expected,
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

/**
 * Parses and validates a replay file's text; `source` names the file in every error, `registry`
 * holds the workloads and checkers its scenario may name.
 */
export function parseReplayFile(text: string, source: string, registry: Registry = SCENARIO_REGISTRY): ReplayCase {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UserInputError(`${source}: not valid JSON (${(err as Error).message})`);
  }
  const doc = object(raw, `${source}`, "a replay file must be a JSON object");
  if (doc.zksim !== REPLAY_FORMAT) {
    throw new UserInputError(`${source}: not a zksim replay file: "zksim" must be "${REPLAY_FORMAT}", got ${JSON.stringify(doc.zksim)}`);
  }
  checkKnownFields(doc, FILE_KEYS, source);
  const scenario = embeddedScenario(required(doc, "scenario", source), source, registry);
  const seed = required(doc, "seed", source);
  if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) throw new UserInputError(`${source}: "seed" must be a whole number ≥ 0, got ${JSON.stringify(seed)}`);
  const bugsRaw = required(doc, "bugs", source);
  if (!Array.isArray(bugsRaw) || !bugsRaw.every((b) => typeof b === "string")) throw new UserInputError(`${source}: "bugs" must be a list of bug ids (e.g. ["ZK-1154"])`);
  const bugs = (bugsRaw as string[]).map((b) => knownBug(b, source));
  const canaryRaw = required(doc, "canary", source);
  if (canaryRaw !== null && !isCanary(canaryRaw)) {
    throw new UserInputError(`${source}: "canary" must be null or one of ${CANARIES.join(", ")}, got ${JSON.stringify(canaryRaw)}`);
  }
  const canary = canaryRaw === null ? undefined : canaryRaw;
  const simplify = "simplify" in doc ? parseSimplify(doc.simplify, `${source}: "simplify"`) : [];
  const expected = parseExpected(required(doc, "expected", source), `${source}: "expected"`);
  return { scenario, seed, bugs, canary, simplify, expected };
}

/** parseScenario names fault-schedule errors "faults[i]…" without the file: add it. */
function embeddedScenario(raw: unknown, source: string, registry: Registry): Scenario {
  const at = `${source}: scenario`;
  try {
    return parseScenario(raw, at, registry);
  } catch (err) {
    if (err instanceof UserInputError && !err.message.startsWith(at)) throw new UserInputError(`${at}.${err.message}`);
    throw err;
  }
}

function knownBug(raw: string, source: string): string {
  try {
    return bugEntry(raw).id;
  } catch (err) {
    if (err instanceof UserInputError) throw new UserInputError(`${source}: "bugs": ${err.message}`);
    throw err;
  }
}

function parseSimplify(raw: unknown, at: string): SimplifyRange[] {
  if (!Array.isArray(raw)) throw new UserInputError(`${at} must be a list of {stream, from, to} draw ranges`);
  return raw.map((r, i) => {
    const o = object(r, `${at}[${i}]`, "must be an object {stream, from, to}");
    checkKnownFields(o, ["stream", "from", "to"], `${at}[${i}]`);
    const stream = required(o, "stream", `${at}[${i}]`);
    if (typeof stream !== "string" || stream === "") throw new UserInputError(`${at}[${i}].stream must be a non-empty string (a random stream's seed path)`);
    const from = required(o, "from", `${at}[${i}]`);
    if (typeof from !== "number" || !Number.isSafeInteger(from) || from < 0) throw new UserInputError(`${at}[${i}].from must be a whole number ≥ 0, got ${JSON.stringify(from)}`);
    const to = required(o, "to", `${at}[${i}]`);
    if (typeof to !== "number" || !Number.isSafeInteger(to) || to <= from) throw new UserInputError(`${at}[${i}].to must be a whole number greater than from (${from}), got ${JSON.stringify(to)}`);
    return { stream, from, to };
  });
}

function parseExpected(raw: unknown, at: string): ReplayExpectation {
  const doc = object(raw, at, "must be an object {traceHash, verdict, violations}");
  checkKnownFields(doc, EXPECTED_KEYS, at);
  const traceHash = required(doc, "traceHash", at);
  if (typeof traceHash !== "string" || traceHash === "") throw new UserInputError(`${at}.traceHash must be a non-empty string`);
  const verdict = required(doc, "verdict", at);
  if (verdict !== "pass" && verdict !== "expected" && verdict !== "fail") throw new UserInputError(`${at}.verdict must be "pass", "expected" or "fail", got ${JSON.stringify(verdict)}`);
  const list = required(doc, "violations", at);
  if (!Array.isArray(list)) throw new UserInputError(`${at}.violations must be a list of {checker, message}`);
  const violations = list.map((v, i) => {
    const o = object(v, `${at}.violations[${i}]`, "must be an object {checker, message}");
    checkKnownFields(o, ["checker", "message"], `${at}.violations[${i}]`);
    if (typeof o.checker !== "string" || typeof o.message !== "string") throw new UserInputError(`${at}.violations[${i}]: "checker" and "message" must be strings`);
    return { checker: o.checker, message: o.message };
  });
  if ((verdict !== "pass") !== (violations.length > 0)) throw new UserInputError(`${at}: verdict "${verdict}" contradicts ${violations.length} violation(s)`);
  return { traceHash, verdict, violations };
}

function object(v: unknown, at: string, what: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new UserInputError(`${at}: ${what}`);
  return v as Record<string, unknown>;
}

function required(doc: Record<string, unknown>, key: string, at: string): unknown {
  if (!(key in doc)) throw new UserInputError(`${at}: missing field "${key}"`);
  return doc[key];
}

