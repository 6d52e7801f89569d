/**
 * The bounds of a search: how deep, how many faults of each kind, how far from the kernel's
 * own order, and the budgets that stop it early (states, wall time). Parsed strictly: a
 * negative or absurd bound, or an unknown fault kind, is one UserInputError line.
 *
 * Fault kinds (each a choice the search may take at any step, up to its budget):
 * - `crash`: a node crashes (volatile state, timers and in-flight messages to it lost; what
 *   it had not fsynced is lost). It stays down until a `restart` choice or the final heal;
 * - `restart`: a node the search crashed starts again from its disk, at a step the search picks
 *   (without this budget, crashed nodes come back only in the heal after the explored steps);
 * - `loss`: a datagram in flight is lost;
 * - `duplicate`: a datagram in flight is delivered twice;
 * - `partition`: a node is cut off from every other node (datagrams across the cut are lost,
 *   connection traffic is held); the heal is a free choice at any later step, and comes at the
 *   end anyway;
 * - `timeout`: a timer fires early — while messages are still in flight or a disk write is
 *   pending, as when they are slower than the timeout. Without it a timer fires only when it is
 *   the kernel's own next event or nothing else is pending: the models' timeouts are chosen
 *   longer than any message delay or fsync, and this is that assumption (docs/model-checking.md).
 */
import { UserInputError } from "../sim/errors.js";

export const FAULT_KINDS = ["crash", "restart", "loss", "duplicate", "partition", "timeout"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultBudget = Record<FaultKind, number>;

export const NO_FAULTS: FaultBudget = { crash: 0, restart: 0, loss: 0, duplicate: 0, partition: 0, timeout: 0 };

/** Above these a search is not small any more: refused rather than left to run for days. */
export const LIMITS = { depth: 10_000, faultsPerKind: 20, reorders: 1_000, states: 1e9, timeMs: 7 * 24 * 3600_000, holdMs: 3600_000, convergeMs: 3600_000 } as const;

export type Strategy = "bfs" | "dfs";

export interface SearchBounds {
  /** Steps explored after the start (each: one event, or one fault). */
  depth: number;
  /** Faults of each kind the search may inject on one path. */
  faults: FaultBudget;
  /**
   * Departures from the kernel's own order on one path (choosing an event other than the one
   * the kernel would run next). Undefined: unbounded — every interleaving is explored.
   */
  reorders: number | undefined;
  /** Stop after this many distinct states (undefined: no limit). */
  maxStates: number | undefined;
  /** Stop after this much wall time (undefined: no limit). */
  maxTimeMs: number | undefined;
  /** After the explored steps: run on with the faults still in force this long (virtual ms)… */
  holdMs: number;
  /** …then heal (restart what is down, mend cuts) and run to quiescence or this long. */
  convergeMs: number;
  strategy: Strategy;
}

/** Parses `crash=1,loss=2` (kinds not named keep `base`'s budget). */
export function parseFaults(text: string, base: FaultBudget = NO_FAULTS): FaultBudget {
  const out = { ...base };
  if (text.trim() === "" || text.trim() === "none") return { ...NO_FAULTS };
  for (const part of text.split(",")) {
    const m = /^\s*([a-z-]+)\s*(?:=\s*(\S+))?\s*$/.exec(part);
    if (m === null) throw new UserInputError(`--faults: expected KIND=N[,KIND=N…] (kinds: ${FAULT_KINDS.join(", ")}), got "${part}"`);
    const kind = m[1]!;
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new UserInputError(`--faults: unknown fault kind "${kind}" (kinds: ${FAULT_KINDS.join(", ")})`);
    out[kind as FaultKind] = bounded(m[2] ?? "1", `--faults ${kind}`, LIMITS.faultsPerKind);
  }
  return out;
}

/** A whole number in [0, max] (the text of a flag or a field), or one line saying what is wrong. */
export function bounded(text: string, what: string, max: number): number {
  if (!/^-?\d+$/.test(text.trim())) throw new UserInputError(`${what}: expected a whole number, got "${text}"`);
  const n = Number(text);
  if (n < 0) throw new UserInputError(`${what}: must not be negative, got ${n}`);
  if (!(n <= max)) throw new UserInputError(`${what}: ${n} is beyond any small world (at most ${max})`);
  return n;
}

/** Checks a whole set of bounds (the targets' defaults are checked too, by the tests). */
export function checkBounds(b: SearchBounds): SearchBounds {
  const within = (v: number, what: string, max: number, min = 0) => {
    if (!Number.isSafeInteger(v) || v < min || v > max) throw new UserInputError(`${what}: expected a whole number in [${min}, ${max}], got ${v}`);
  };
  within(b.depth, "--depth", LIMITS.depth, 1);
  for (const k of FAULT_KINDS) within(b.faults[k], `--faults ${k}`, LIMITS.faultsPerKind);
  if (b.faults.restart > b.faults.crash) throw new UserInputError(`--faults: restart=${b.faults.restart} is more than crash=${b.faults.crash} (only a node the search crashed can restart)`);
  if (b.reorders !== undefined) within(b.reorders, "--reorders", LIMITS.reorders);
  if (b.maxStates !== undefined) within(b.maxStates, "--states", LIMITS.states, 1);
  if (b.maxTimeMs !== undefined) within(b.maxTimeMs, "--time", LIMITS.timeMs, 1);
  within(b.holdMs, "--hold-ms", LIMITS.holdMs);
  within(b.convergeMs, "--converge-ms", LIMITS.convergeMs);
  return b;
}

/** `crash=1, loss=2` for a summary (kinds with no budget left out; "none" when all are 0). */
export function faultsText(f: FaultBudget): string {
  const parts = FAULT_KINDS.filter((k) => f[k] > 0).map((k) => `${k}=${f[k]}`);
  return parts.length === 0 ? "none" : parts.join(",");
}
