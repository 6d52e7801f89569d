/**
 * Parses a scenario document (already read as JSON by the CLI) into a validated Scenario.
 * Every mistake names the field: `scenario.network.lossRate: …`, `faults[2].node: …`.
 */
import { UserInputError } from "../sim/errors.js";
import { parseFaultSchedule } from "../sim/faults.js";
import type { NetworkConfig } from "../sim/network.js";
import type { DiskConfig } from "../sim/disk.js";
import { msToUs } from "../sim/time.js";
import { SCENARIO_REGISTRY, checkerNames, workloadDef, type Registry } from "./registry.js";
import { parseNemesis } from "./nemesis/index.js";
import type { ExpectedViolationDecl, Scenario } from "./types.js";
import { checkDurations, MAX_DURATION_MS } from "./durations.js";

/**
 * Upper bounds on a run's virtual time, so that a typo (1e15) is bad input, not a run that never
 * ends: `durationMs` up to one virtual day, a convergence budget up to one virtual hour (as
 * `traffic.untilMs`). A busy ensemble simulates some tens of virtual seconds per wall second, so
 * a day is already hours of wall time.
 */
export { MAX_DURATION_MS };
export const MAX_CONVERGENCE_BUDGET_MS = 3_600_000;

const TOP_KEYS = ["name", "description", "tags", "seed", "durationMs", "network", "disk", "workload", "faults", "nemesis", "checkers", "convergence", "expectedViolations"];
const NET_KEYS: Record<string, (v: number) => Partial<NetworkConfig>> = {
  minDelayMs: (v) => ({ minDelayUs: msToUs(v) }),
  maxDelayMs: (v) => ({ maxDelayUs: msToUs(v) }),
  lossRate: (v) => ({ lossRate: v }),
  duplicateRate: (v) => ({ duplicateRate: v }),
  reorderRate: (v) => ({ reorderRate: v }),
  reorderExtraMs: (v) => ({ reorderExtraUs: msToUs(v) }),
  connectTimeoutMs: (v) => ({ connectTimeoutUs: msToUs(v) }),
};
const DISK_KEYS: Record<string, (v: number) => Partial<DiskConfig>> = {
  fsyncLatencyMs: (v) => ({ fsyncLatencyUs: msToUs(v) }),
  capacityBytes: (v) => ({ capacityBytes: v }),
  tearProbability: (v) => ({ tearProbability: v }),
};

/** Parses a scenario document; its workload and checkers are looked up in `registry`. */
export function parseScenario(raw: unknown, source: string, registry: Registry = SCENARIO_REGISTRY): Scenario {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${source}: a scenario must be a JSON object`);
  const doc = raw as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    if (!TOP_KEYS.includes(key)) throw new UserInputError(`${source}: unknown field "${key}" (allowed: ${TOP_KEYS.join(", ")})`);
  }
  const name = str(doc.name, `${source}: "name"`);
  const description = str(doc.description ?? "", `${source}: "description"`);
  const tags = doc.tags === undefined ? [] : strList(doc.tags, `${source}: "tags"`);
  const defaultSeed = doc.seed === undefined ? 1 : int(doc.seed, `${source}: "seed"`, 0);
  const durationMs = num(doc.durationMs, `${source}: "durationMs"`, 1, MAX_DURATION_MS);
  const w = doc.workload;
  if (typeof w !== "object" || w === null || Array.isArray(w)) throw new UserInputError(`${source}: "workload" must be an object with a "kind"`);
  const { kind, ...params } = w as Record<string, unknown>;
  const def = workloadDef(str(kind, `${source}: "workload.kind"`), registry);
  const nodes = def.nodes(params);
  const lastInputUs = def.lastInputUs?.(params) ?? 0;
  if (lastInputUs > durationMs * 1000) throw new UserInputError(`${source}: "workload": an input recorded at ${lastInputUs} µs is beyond the end of the run ("durationMs" ${durationMs}): a recording ends after its last input`);
  const faults = parseFaultSchedule(doc.faults, nodes, "faults", (def.traceRoles?.roles ?? []).map((r) => r.role));
  const nemesis = parseNemesis(doc.nemesis, nodes, `${source}: "nemesis"`);
  const checkers = doc.checkers === undefined ? def.defaultCheckers(params) : strList(doc.checkers, `${source}: "checkers"`);
  const known = new Set(checkerNames(registry));
  for (const c of checkers) if (!known.has(c)) throw new UserInputError(`${source}: unknown checker "${c}" (known: ${[...known].join(", ")})`);
  const convergence = parseConvergence(doc.convergence, `${source}: "convergence"`);
  const expectedViolations = parseExpectedViolations(doc.expectedViolations, checkers, `${source}: "expectedViolations"`);
  const network = table(doc.network, NET_KEYS, `${source}: "network"`);
  const disk = table(doc.disk, DISK_KEYS, `${source}: "disk"`);
  // After the readers that know each field (their messages are the more precise), for what they leave unbounded.
  checkDurations(doc, source);
  return {
    ...(convergence !== undefined ? { convergence } : {}),
    name,
    description,
    tags,
    defaultSeed,
    durationMs,
    network,
    disk,
    workload: { kind: def.kind, params },
    faults,
    ...(nemesis !== undefined ? { nemesis } : {}),
    checkers,
    ...(expectedViolations !== undefined ? { expectedViolations } : {}),
  };
}

/** `[{ "checker": NAME, "why": SENTENCE, "always"?: true }, …]`: each checker one the scenario runs, named once. */
function parseExpectedViolations(raw: unknown, checkers: readonly string[], at: string): ExpectedViolationDecl[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw new UserInputError(`${at} must be a list of { "checker": NAME, "why": SENTENCE }`);
  const seen = new Set<string>();
  return raw.map((entry, i) => {
    const here = `${at}[${i}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new UserInputError(`${here} must be an object { "checker": NAME, "why": SENTENCE }`);
    for (const k of Object.keys(entry)) if (k !== "checker" && k !== "why" && k !== "always") throw new UserInputError(`${here}: unknown field "${k}" (allowed: checker, why, always)`);
    const e = entry as Record<string, unknown>;
    const checker = str(e.checker, `${here}.checker`);
    if (!checkers.includes(checker)) throw new UserInputError(`${here}.checker: "${checker}" is not one of the scenario's checkers (${checkers.join(", ")})`);
    if (seen.has(checker)) throw new UserInputError(`${here}.checker: "${checker}" is declared twice`);
    seen.add(checker);
    const why = str(e.why, `${here}.why`).trim();
    if (why === "") throw new UserInputError(`${here}.why must say why the violation is expected`);
    if (e.always !== undefined && typeof e.always !== "boolean") throw new UserInputError(`${here}.always: expected true or false, got ${JSON.stringify(e.always)}`);
    return { checker, why, ...(e.always === true ? { always: true } : {}) };
  });
}

/** `false` (opt out) or `{ "budgetMs": N }`; absent means the default. */
function parseConvergence(raw: unknown, at: string): Scenario["convergence"] {
  if (raw === undefined) return undefined;
  if (raw === false) return false;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at} must be false or an object { "budgetMs": N }`);
  for (const k of Object.keys(raw)) if (k !== "budgetMs") throw new UserInputError(`${at}: unknown field "${k}" (allowed: budgetMs)`);
  return { budgetMs: num((raw as Record<string, unknown>).budgetMs, `${at}.budgetMs`, 1, MAX_CONVERGENCE_BUDGET_MS) };
}

function table<T>(raw: unknown, keys: Record<string, (v: number) => Partial<T>>, at: string): Partial<T> {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new UserInputError(`${at} must be an object`);
  let out: Partial<T> = {};
  for (const [k, v] of Object.entries(raw)) {
    const conv = keys[k];
    if (!conv) throw new UserInputError(`${at}: unknown field "${k}" (allowed: ${Object.keys(keys).join(", ")})`);
    out = { ...out, ...conv(num(v, `${at}.${k}`, 0)) };
  }
  return out;
}

function str(v: unknown, at: string): string {
  if (typeof v !== "string") throw new UserInputError(`${at} must be a string`);
  return v;
}
function strList(v: unknown, at: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw new UserInputError(`${at} must be a list of strings`);
  return v as string[];
}
function num(v: unknown, at: string, min: number, max = Infinity): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min) throw new UserInputError(`${at} must be a number ≥ ${min}, got ${JSON.stringify(v)}`);
  if (v > max) throw new UserInputError(`${at} must be at most ${max}, got ${JSON.stringify(v)}`);
  return v;
}
function int(v: unknown, at: string, min: number): number {
  const n = num(v, at, min);
  if (!Number.isSafeInteger(n)) throw new UserInputError(`${at} must be an integer`);
  return n;
}
