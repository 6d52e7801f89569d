/**
 * `WorldOptions`: the world a user's script runs in — the ensemble (voters, observers, ZooKeeper's
 * tickTime / initLimit / syncLimit), the client nodes, network and disk settings, a fault
 * schedule, the seed and the run's length — and their translation into a scenario document of
 * the "user" workload, parsed by the same `parseScenario` as every scenario file. So a user's
 * world is a scenario like any other: same fault vocabulary, same convergence phase, same
 * checkers, same replay file.
 *
 * Validation is eager: every field is checked before anything runs, and the error names it
 * (`runUserScript: options.servers must be …`), as a UserInputError.
 */
import { UserInputError } from "../sim/errors.js";
import type { Fault } from "../sim/faults.js";
import { parseScenario, MAX_DURATION_MS } from "../scenario/parse.js";
import type { Scenario } from "../scenario/types.js";
import { USER_DOCUMENTS, USER_WORKLOAD } from "./user-workload.js";
import type { UserScript } from "./user-script.js";

/** Network settings (scenario files' `network`): per-message delay, loss, duplication, reordering. */
export interface NetworkOptions {
  minDelayMs?: number;
  maxDelayMs?: number;
  lossRate?: number;
  duplicateRate?: number;
  reorderRate?: number;
  reorderExtraMs?: number;
  connectTimeoutMs?: number;
}

/** Disk settings (scenario files' `disk`): fsync latency, capacity, torn writes at a crash. */
export interface DiskOptions {
  fsyncLatencyMs?: number;
  capacityBytes?: number;
  tearProbability?: number;
}

/** The world of one run. Every field is optional. */
export interface WorldOptions {
  /** Voters (default 3; 1 is a standalone server). */
  servers?: number;
  /** Observers beside the voters (default 0). */
  observers?: number;
  /** Client nodes c1…cN (default 2). */
  clients?: number;
  /** ZooKeeper's tickTime (default 2000). */
  tickTimeMs?: number;
  /** ZooKeeper's initLimit, in ticks (default 10). */
  initLimitTicks?: number;
  /** ZooKeeper's syncLimit, in ticks (default 5). */
  syncLimitTicks?: number;
  network?: NetworkOptions;
  disk?: DiskOptions;
  /** Faults at fixed times (docs/faults.md), e.g. `[{ atMs: 5000, kind: "crash", node: "$leader", forMs: 3000 }]`. */
  faults?: readonly Fault[];
  /** The simulation seed (default 1): one seed, one run. */
  seed?: number;
  /** The run's virtual length (default 60 000); the script must finish by then. */
  durationMs?: number;
  /** Virtual ms after the last fault within which the ensemble must serve again (default 40 000). */
  convergenceBudgetMs?: number;
  /** Built-in checkers to run (default: every one that applies: kernel, ZAB or standalone, client). */
  checkers?: readonly string[];
}

const WORLD_KEYS = ["servers", "observers", "clients", "tickTimeMs", "initLimitTicks", "syncLimitTicks", "network", "disk", "faults", "seed", "durationMs", "convergenceBudgetMs", "checkers"];

/** The world's options as a scenario, validated; `module` is the script's module as the replay file records it. */
export function worldScenario(script: UserScript, options: WorldOptions, at: string, module: string): Scenario {
  const doc = worldDocument(script, options, at, module);
  try {
    return parseScenario(doc, `${at}: options`, USER_DOCUMENTS);
  } catch (err) {
    if (err instanceof UserInputError && !err.message.startsWith(at)) throw new UserInputError(`${at}: options.${err.message}`);
    throw err;
  }
}

/** The scenario document of a world (checked field by field first, so errors name the options' fields). */
export function worldDocument(script: UserScript, options: WorldOptions, at: string, module: string): Record<string, unknown> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new UserInputError(`${at}: options must be an object`);
  for (const k of Object.keys(options)) if (!WORLD_KEYS.includes(k)) throw new UserInputError(`${at}: unknown option "${k}" (known: ${WORLD_KEYS.join(", ")})`);
  const o = options;
  const int = (key: keyof WorldOptions, dflt: number, min: number, max: number): number => {
    const v = o[key];
    if (v === undefined) return dflt;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) throw new UserInputError(`${at}: options.${key} must be a whole number in [${min}, ${max}], got ${JSON.stringify(v)}`);
    return v;
  };
  const servers = int("servers", 3, 1, 9);
  const observers = int("observers", 0, 0, 9);
  if (servers === 1 && observers > 0) throw new UserInputError(`${at}: options.observers needs an ensemble (servers ≥ 2)`);
  const budgetMs = int("convergenceBudgetMs", 40_000, 1, 3_600_000);
  if (o.faults !== undefined && !Array.isArray(o.faults)) throw new UserInputError(`${at}: options.faults must be a list of fault entries (docs/faults.md)`);
  if (o.checkers !== undefined && (!Array.isArray(o.checkers) || !o.checkers.every((c) => typeof c === "string"))) throw new UserInputError(`${at}: options.checkers must be a list of built-in checker names`);
  for (const key of ["network", "disk"] as const) {
    const v = o[key];
    if (v !== undefined && (typeof v !== "object" || v === null || Array.isArray(v))) throw new UserInputError(`${at}: options.${key} must be an object`);
  }
  return {
    name: script.export,
    description: `the user's script ${script.export} on ${servers === 1 ? "a standalone server" : `${servers} voters${observers > 0 ? ` + ${observers} observer(s)` : ""}`}`,
    tags: ["user"],
    seed: int("seed", 1, 0, 0x7fffffff),
    durationMs: int("durationMs", 60_000, 1, MAX_DURATION_MS),
    network: { ...o.network },
    disk: { ...o.disk },
    workload: {
      kind: USER_WORKLOAD,
      module,
      export: script.export,
      servers,
      observers,
      clients: int("clients", 2, 1, 50),
      tickTimeMs: int("tickTimeMs", 2000, 1, 600_000),
      initLimitTicks: int("initLimitTicks", 10, 1, 1000),
      syncLimitTicks: int("syncLimitTicks", 5, 1, 1000),
    },
    faults: (o.faults ?? []).map((f) => ({ ...f })),
    ...(o.checkers !== undefined ? { checkers: [...o.checkers] } : {}),
    convergence: { budgetMs },
  };
}
