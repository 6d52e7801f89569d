/**
 * A counterexample as a learn session file (`zksim-learn-session`): the target's seed and
 * variant, the steps to readiness as the learn session records them, the setup, then one
 * intervention per step of the path (`next m12`, `fault crash co`, `drop m7`…) with a mark
 * after each, and — when the violation showed at the end of the path — the end too (the
 * executor's `runEnd`: the faults held, the requests not made yet, the heal, the run to
 * quiescence), a mark after each traced event and an intervention for each action. So `zksim learn --open FILE` opens it at the violation, steps back through
 * it with the narration, and `zksim replay FILE` re-executes it to the recorded trace hash.
 *
 * Invariant: the file re-executes to the state where the checker fired (the test opens one in
 * learn and compares the hash).
 */
import { Session, type SessionFile } from "../stepper/session.js";
import type { Intervention } from "../stepper/types.js";
import { actionOf, type Step } from "./choices.js";
import { Executor, type StartPoint } from "./executor.js";
import type { CheckTarget } from "./target.js";

export interface CounterexampleSpec {
  path: readonly Step[];
  /** The checker it violates. */
  checker: string;
  /** The violation showed at the end of the path: hold `holdMs`, heal, converge `convergeMs`. */
  end: { holdMs: number; convergeMs: number } | undefined;
}

export async function counterexampleSession(target: CheckTarget, from: StartPoint, spec: CounterexampleSpec): Promise<SessionFile> {
  const exec = new Executor(target, from);
  const setup = exec.setup;
  const prefix = (await Session.begin(target.adapter, { seed: target.seed, variant: target.variant, setup })).save();
  const branch = prefix.branches[0]!;
  const interventions: Intervention[] = [...branch.interventions];
  const marks = [...branch.marks];
  const live = await exec.fresh();
  const sim = live.world.sim;
  for (const step of spec.path) {
    interventions.push({ atEvent: sim.eventCount, action: actionOf(step) });
    await exec.apply(live, step);
    marks.push(sim.eventCount);
  }
  if (spec.end !== undefined) {
    let traced = sim.trace.count;
    const mark = (): void => {
      if (marks[marks.length - 1] === sim.eventCount || sim.trace.count === traced) return;
      traced = sim.trace.count;
      marks.push(sim.eventCount);
    };
    await exec.runEnd(live, spec.end.holdMs, spec.end.convergeMs, {
      onEvent: mark,
      onAction: (action) => {
        if (marks[marks.length - 1] !== sim.eventCount) marks.push(sim.eventCount);
        interventions.push({ atEvent: sim.eventCount, action });
      },
    });
    if (marks[marks.length - 1] !== sim.eventCount) marks.push(sim.eventCount);
  }
  return {
    ...prefix,
    branches: [{ interventions, marks, parent: undefined, forkStep: 0 }],
    current: 0,
    step: marks.length - 1,
    traceHash: sim.trace.hash(),
    check: { target: target.name, from, steps: spec.path.length, checker: spec.checker, end: spec.end ?? null },
  };
}
