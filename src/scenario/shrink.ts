/**
 * Shrinking: minimises a recorded failing case (its command line is `zksim shrink`,
 * cli/commands/shrink.ts, which reads and writes the replay files).
 *
 * 1. delta debugging (ddmin, complements only) over the fault schedule: split the list into n
 *    contiguous chunks, keep the first removal of a chunk after which the run still fails the
 *    same way, else refine to 2n chunks. "The same way": the target checker (the recorded first
 *    violation's) fails, and no checker that the recorded run did not name;
 * 1b. ddmin likewise over the parts of the workload's parameters that its definition lets go as
 *    wholes (`removableParts`: the connections of a recorded serve session);
 * 2. binary search on `durationMs` for a shorter run that still fails so;
 * 3. drop the faults that the shorter run never reaches;
 * 4. Hypothesis-style shrinking of the decision stream (every draw of every `Rng` stream:
 *    network delays, loss and duplicate draws, host shuffles, workload and swarm choices): try
 *    to make whole streams take their simplest values (minimal delay, no loss, no fault, lowest
 *    int, first item, identity shuffle), then the halves, quarters, … of the streams that could
 *    not be simplified whole, level by level (within a level the largest ranges first); keep
 *    each range after which the run still fails the same way. Draw counts come from the adopted
 *    run: every shrink run carries a counting decision tape (sim/decision-tape.ts). A simplified
 *    draw still advances its PRNG, so the other draws of its stream keep their values and kept
 *    ranges compose. The shrunk file records the kept ranges as `simplify`.
 * The seed is kept: it determines everything else, so a different seed is a different case.
 *
 * Every candidate is a full run; the total is capped (default 200 runs) and the report says how
 * many were used. Whatever the cap, the result is always a case that was seen failing: a
 * candidate is only adopted after its run fails with the target checker. The shrunk file's
 * `expected` is that run's result, so `zksim replay` of it reproduces.
 *
 * `shrinkCase` returns undefined when the recorded case does not fail with its checker any more
 * (nothing to shrink).
 */
import { normalizeSimplify, type SimplifyRange, type StreamDraws } from "../sim/decision-tape.js";
import type { Fault } from "../sim/faults.js";
import type { RunOptions, RunResult, Scenario } from "./types.js";
import { replayCaseFromRun, scenarioAsRun, type ReplayCase } from "./replay-file.js";
import { runReplayCase } from "./replay.js";
import { SCENARIO_REGISTRY, workloadDef, type Registry } from "./registry.js";
import type { WorkloadDef } from "./workload.js";

export const DEFAULT_MAX_RUNS = 200;

/** Counts runs against a cap. */
export class RunBudget {
  used = 0;
  constructor(readonly maxRuns: number) {}
  get left(): number {
    return this.maxRuns - this.used;
  }
}

/**
 * ddmin over `items` (order kept): the smallest subset found for which `stillFails` holds,
 * given that it holds for `items`. Each call to `stillFails` spends one run of `budget`; when
 * the budget is spent, the best subset so far is returned.
 */
export async function ddmin<T>(items: readonly T[], stillFails: (subset: T[]) => Promise<boolean>, budget: RunBudget): Promise<T[]> {
  let current = [...items];
  if (current.length === 0 || budget.left <= 0) return current;
  budget.used++;
  if (await stillFails([])) return []; // often nothing in the schedule is needed
  let n = 2;
  while (current.length >= 2) {
    const chunks = split(current, n);
    let removed = false;
    for (let i = 0; i < chunks.length; i++) {
      if (budget.left <= 0) return current;
      const complement = chunks.filter((_, j) => j !== i).flat();
      budget.used++;
      if (await stillFails(complement)) {
        current = complement;
        n = Math.max(n - 1, 2);
        removed = true;
        break;
      }
    }
    if (removed) continue;
    if (n >= current.length) break; // every single element is needed: 1-minimal
    n = Math.min(current.length, n * 2);
  }
  return current;
}

/** `items` in `n` contiguous chunks of near-equal size (n ≤ items.length). */
function split<T>(items: readonly T[], n: number): T[][] {
  const chunks: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.floor((items.length - start) / (n - i));
    chunks.push(items.slice(start, end));
    start = end;
  }
  return chunks.filter((c) => c.length > 0);
}

export interface ShrinkOutcome {
  shrunk: ReplayCase;
  runsUsed: number;
  budgetSpent: boolean;
  /**
   * The shrunk run's decision stream: all its draws, how many took their simplest values, and
   * the runs the decision-stream pass used.
   */
  decisions: { draws: number; simplified: number; runs: number };
  /** Candidate runs that threw instead of finishing (never adopted), and the first one's message. */
  threw: { runs: number; first?: string };
}

/** A candidate: a scenario and the decision-stream ranges to simplify. */
interface Candidate {
  scenario: Scenario;
  simplify: SimplifyRange[];
}

/**
 * Shrinks a case whose run fails with `targetChecker`; returns undefined when the original
 * case does not (any more). Runs that throw count as "does not fail so" — a schedule cut down
 * to nonsense must not be adopted — and are reported in `threw`. `afterRun` is called after
 * every candidate run (the user-code worker restarts its wall-clock limit there).
 */
export async function shrinkCase(recorded: ReplayCase, maxRuns: number, registry: Registry = SCENARIO_REGISTRY, extraCheckers?: RunOptions["extraCheckers"], afterRun?: () => void): Promise<ShrinkOutcome | undefined> {
  // A case whose scenario names a nemesis shrinks with the faults it drew listed: removable.
  const c: ReplayCase = { ...recorded, scenario: scenarioAsRun(recorded.scenario, recorded.seed, registry) };
  const target = c.expected.violations[0]?.checker;
  if (target === undefined) return undefined;
  // A candidate must fail the same way: with the target checker, and with no checker the
  // recorded run did not name (cutting a run short must not trade the bug for, say, a liveness
  // failure or an unfinished script).
  const named = new Set(c.expected.violations.map((v) => v.checker));
  const budget = new RunBudget(maxRuns);
  const threw: ShrinkOutcome["threw"] = { runs: 0 };
  let best: (Candidate & { result: RunResult }) | undefined;
  const attemptCandidate = async (candidate: Candidate): Promise<boolean> => {
    let result: RunResult;
    try {
      result = await runReplayCase(c, { ...candidate, registry, extraCheckers });
    } catch (err) {
      // A run that throws (an invariant of the simulated code, a script's bug) failed in a
      // different way than the one being shrunk: not adopted, but counted and named.
      if (!(err instanceof Error)) throw err;
      threw.first ??= err.message;
      threw.runs++;
      return false;
    } finally {
      afterRun?.();
    }
    const same = result.verdict !== "pass" && result.violations.some((v) => v.checker === target) && result.violations.every((v) => named.has(v.checker));
    if (same) best = { ...candidate, result };
    return same;
  };
  // Every successful attempt is adopted (ddmin, the duration search and the decision pass all
  // keep a candidate as soon as it fails so), so `best` is always the current shrunk case.
  const adopted = () => best!;
  const attempt = (scenario: Scenario) => attemptCandidate({ scenario, simplify: adopted().simplify });
  budget.used++;
  if (!(await attemptCandidate({ scenario: c.scenario, simplify: normalizeSimplify(c.simplify) }))) return undefined;
  const withFaults = (s: Scenario, faults: Fault[]): Scenario => ({ ...s, faults });
  await ddmin(c.scenario.faults, (subset) => attempt(withFaults(c.scenario, subset)), budget);
  await removeParts(workloadDef(c.scenario.workload.kind, registry), adopted().scenario, attempt, budget);
  await shortenDuration(adopted().scenario, attempt, budget, Math.ceil((workloadDef(c.scenario.workload.kind, registry).lastInputUs?.(adopted().scenario.workload.params) ?? 0) / 1000));
  const s = adopted().scenario;
  const reached = s.faults.filter((f) => f.atMs <= s.durationMs);
  if (reached.length < s.faults.length && budget.left > 0) {
    budget.used++;
    await attempt(withFaults(s, reached));
  }
  const runsBefore = budget.used;
  await simplifyDecisions(adopted, (simplify) => attemptCandidate({ scenario: adopted().scenario, simplify }), budget);
  const { scenario, simplify, result } = adopted();
  const draws = result.decisions ?? [];
  return {
    shrunk: replayCaseFromRun(scenario, { ...c, simplify, registry }, result),
    runsUsed: budget.used,
    budgetSpent: budget.left <= 0,
    decisions: { draws: sum(draws.map((d) => d.draws)), simplified: sum(draws.map((d) => d.simplified)), runs: budget.used - runsBefore },
    threw,
  };
}

/**
 * The decision-stream pass (step 4 of the header), in rounds: each round starts from the draws
 * of the adopted run that no kept range covers (the whole streams, in the first round) and
 * bisects what cannot be simplified; another round follows while the last one kept something,
 * because a kept range changes the run (a stream may draw more than it did when counted).
 * `adopted()` is the current case and its run; `stillFails` runs the adopted scenario with the
 * given ranges simplified and adopts them when it fails the same way.
 */
async function simplifyDecisions(adopted: () => Candidate & { result: RunResult }, stillFails: (simplify: SimplifyRange[]) => Promise<boolean>, budget: RunBudget): Promise<void> {
  for (;;) {
    const before = adopted().simplify;
    await simplifyRound(before, uncovered(before, adopted().result.decisions ?? []), stillFails, budget);
    if (adopted().simplify === before || budget.left <= 0) return;
  }
}

/** One round: tries `level`'s ranges, then the halves of those that failed, and so on. */
async function simplifyRound(kept: SimplifyRange[], level: SimplifyRange[], stillFails: (simplify: SimplifyRange[]) => Promise<boolean>, budget: RunBudget): Promise<void> {
  while (level.length > 0) {
    const next: SimplifyRange[] = [];
    // Largest first: when the budget runs out mid-level, the biggest ranges have been tried.
    level.sort((a, b) => b.to - b.from - (a.to - a.from) || (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : a.from - b.from));
    for (const range of level) {
      if (budget.left <= 0) return;
      const candidate = normalizeSimplify([...kept, range]);
      budget.used++;
      if (await stillFails(candidate)) {
        kept = candidate;
      } else if (range.to - range.from > 1) {
        const mid = range.from + Math.floor((range.to - range.from) / 2);
        next.push({ ...range, to: mid }, { ...range, from: mid });
      }
    }
    level = next;
  }
}

/** The maximal ranges of each stream's draws that the (normalised) ranges `kept` leave out. */
function uncovered(kept: readonly SimplifyRange[], streams: readonly StreamDraws[]): SimplifyRange[] {
  return streams.flatMap(({ stream, draws }) => {
    const gaps: SimplifyRange[] = [];
    let from = 0;
    for (const k of kept) {
      if (k.stream !== stream) continue;
      if (k.from > from) gaps.push({ stream, from, to: Math.min(k.from, draws) });
      from = Math.max(from, k.to);
    }
    if (from < draws) gaps.push({ stream, from, to: draws });
    return gaps.filter((g) => g.to > g.from);
  });
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** ddmin over the parts of the workload's parameters that can go as wholes (`WorkloadDef.removableParts`). */
async function removeParts(def: WorkloadDef, s: Scenario, attempt: (s: Scenario) => Promise<boolean>, budget: RunBudget): Promise<void> {
  const parts = def.removableParts;
  if (parts === undefined) return;
  const { params } = s.workload;
  await ddmin(parts.list(params), (kept) => attempt({ ...s, workload: { ...s.workload, params: parts.keep(params, kept) } }), budget);
}

/** Binary search for the shortest whole-ms duration of at least `minMs` that still fails (within the budget). */
async function shortenDuration(s: Scenario, attempt: (s: Scenario) => Promise<boolean>, budget: RunBudget, minMs: number): Promise<void> {
  let failing = s; // known to fail
  let lo = Math.max(0, minMs - 1); // durations ≤ lo are assumed (or known) not to fail, or would end before the last input
  let hi = Math.ceil(s.durationMs);
  while (hi - lo > 1 && budget.left > 0) {
    const mid = Math.floor((lo + hi) / 2);
    const candidate: Scenario = { ...failing, durationMs: mid };
    budget.used++;
    if (await attempt(candidate)) {
      hi = mid;
      failing = candidate;
    } else {
      lo = mid;
    }
  }
}
