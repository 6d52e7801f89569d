/**
 * `zksim shrink` for a `zksim check` counterexample: fewer steps, same violation.
 *
 * The file's path is read back as steps named by their canonical keys (world-state.ts) rather
 * than by message and timer ids — ids shift when an earlier step is left out, keys do not — and
 * delta debugging (ddmin) removes chunks of steps, replaying each candidate by key: a candidate
 * whose step finds no pending event with its key is not a run, and fails. A candidate is kept when
 * its path (and its end, when the violation showed there) violates the same checker. The result
 * is written as a counterexample again (counterexample.ts).
 *
 * A breadth-first counterexample is already shortest in steps; one found depth-first, or by a
 * search with large fault budgets, usually is not.
 */
import { UserInputError } from "../sim/errors.js";
import type { CheckOrigin, SessionFile } from "../stepper/session.js";
import type { Action } from "../stepper/types.js";
import type { Step } from "./choices.js";
import { actionOf, choicesAt, stepName } from "./choices.js";
import { NO_FAULTS, FAULT_KINDS } from "./bounds.js";
import { Executor, type Live } from "./executor.js";
import { counterexampleSession } from "./counterexample.js";
import { targetFor } from "./targets.js";
import type { CheckTarget } from "./target.js";

export interface ShrinkOutcome {
  file: SessionFile;
  checker: string;
  stepsBefore: number;
  stepsAfter: number;
  runs: number;
  budgetSpent: boolean;
}

/** Undefined when the file's path no longer violates its checker. */
export async function shrinkCounterexample(file: SessionFile, maxRuns: number): Promise<ShrinkOutcome | undefined> {
  const origin = file.check;
  if (origin === undefined) throw new UserInputError("shrink: this learn session is not a zksim check counterexample (it has no \"check\" field): only those can be shrunk");
  const target: CheckTarget = { ...targetFor(origin.target), seed: file.seed, variant: file.variant };
  const exec = new Executor(target, origin.from);
  const steps = await readSteps(exec, file, origin);
  let runs = 0;
  const fails = async (candidate: readonly Step[]): Promise<Step[] | undefined> => {
    runs++;
    return violates(exec, candidate, origin);
  };
  if ((await fails(steps)) === undefined) return undefined;
  let current = steps;
  let n = 2;
  while (current.length >= 2 && runs < maxRuns) {
    const size = Math.ceil(current.length / n);
    let reduced = false;
    for (let i = 0; i < current.length && runs < maxRuns; i += size) {
      const candidate = [...current.slice(0, i), ...current.slice(i + size)];
      if ((await fails(candidate)) !== undefined) {
        current = candidate;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(n * 2, current.length);
    }
  }
  const concrete = (await violates(exec, current, origin))!;
  const shrunk = await counterexampleSession(target, origin.from, { path: concrete, checker: origin.checker, end: origin.end ?? undefined });
  return { file: shrunk, checker: origin.checker, stepsBefore: steps.length, stepsAfter: concrete.length, runs, budgetSpent: runs >= maxRuns };
}

/** The path's interventions, read back as steps with canonical keys. */
async function readSteps(exec: Executor, file: SessionFile, origin: CheckOrigin): Promise<Step[]> {
  const branch = file.branches[file.current];
  if (branch === undefined) throw new UserInputError(`shrink: the session has no branch ${file.current}`);
  const first = branch.interventions.length - exec.setup.length >= origin.steps ? exec.setup.length : -1;
  const actions = branch.interventions.slice(first, first + origin.steps).map((iv) => iv.action);
  if (first < 0 || actions.length !== origin.steps) throw new UserInputError(`shrink: the session's branch does not hold the ${origin.steps} steps its "check" field names`);
  const live = await exec.fresh();
  const steps: Step[] = [];
  for (const action of actions) {
    const step = stepOf(exec, live, action);
    await exec.apply(live, step);
    steps.push(step);
  }
  return steps;
}

/** The step an action of the path is, at the live world's state (UserInputError if it is none). */
function stepOf(exec: Executor, live: Live, action: Action): Step {
  const wanted = JSON.stringify(action);
  const match = everyChoice(exec, live).find((s) => JSON.stringify(actionOf(s)) === wanted);
  if (match === undefined) throw new UserInputError(`shrink: the session's step ${wanted} is not a choice of the search at that point (was the file edited?)`);
  return match;
}

/** Replays a candidate by key; the concrete steps when it still violates the checker, else undefined. */
async function violates(exec: Executor, candidate: readonly Step[], origin: CheckOrigin): Promise<Step[] | undefined> {
  const live = await exec.fresh();
  const concrete: Step[] = [];
  for (const step of candidate) {
    const here = everyChoice(exec, live).find((s) => stepName(s) === stepName(step));
    if (here === undefined) return undefined;
    await exec.apply(live, here);
    concrete.push(here);
  }
  const found = origin.end === null ? exec.violations(live) : await exec.finish(live, origin.end.holdMs, origin.end.convergeMs);
  return found.some((v) => v.checker === origin.checker) ? concrete : undefined;
}

/** Every step the search could take at this state, with no budget spent (shrinking only removes faults). */
function everyChoice(exec: Executor, live: Live): Step[] {
  const sim = live.world.sim;
  const left = { ...NO_FAULTS };
  for (const k of FAULT_KINDS) left[k] = Number.MAX_SAFE_INTEGER;
  const ids = sim.nodeIds;
  return choicesAt({
    events: exec.observe(live, false).events,
    nowUs: sim.nowUs,
    left,
    faultable: ids,
    status: (n) => sim.node(n).status,
    down: live.down,
    anyCut: ids.some((a) => ids.some((b) => a !== b && sim.network.isCut(a, b))),
    request: exec.nextRequest(live),
  });
}
