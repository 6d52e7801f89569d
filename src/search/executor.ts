/**
 * Runs a target's world along a path of steps. The kernel cannot snapshot a world (its events
 * hold closures), so a state is reached by re-executing from the seed: build the world, run it
 * until the adapter says it is ready, apply the setup, then apply the path's steps — each
 * deterministic, so the same path always reaches the same state.
 *
 * A step is one stepper action; an event step (`next`) then runs exactly one kernel event, so
 * path positions are kernel event counts and the path is a learn session's branch.
 *
 * The end of a path (`finish`): the run goes on in the kernel's own order with the faults still
 * in force for `holdMs`, then everything is healed — crashed nodes restart, cuts mend — and it
 * runs to quiescence or for `convergeMs`; every checker then judges the whole run, the end
 * checkers (liveness) included.
 */
import { subscribeCheckers, type Checker, type RunEnd, type Violation } from "../check/checker.js";
import { UserInputError } from "../sim/errors.js";
import { applyAction } from "../stepper/interventions.js";
import type { Action, World } from "../stepper/types.js";
import type { Simulator } from "../sim/simulator.js";
import type { CheckTarget } from "./target.js";
import { FactSet } from "./facts.js";
import { actionOf, type Step } from "./choices.js";
import { worldState, type WorldState } from "./world-state.js";

/** The world may take this many kernel events to become ready (an election, client sessions). */
const MAX_READY_EVENTS = 2_000_000;

export type StartPoint = "start" | "setup";

export interface Live {
  world: World;
  facts: FactSet;
  endCheckers: Checker[];
  /** Nodes the search crashed that are still down. */
  down: Set<string>;
  /** The target's requests made so far (they go in order). */
  requested: number;
}

/** What the end of a path reports as it goes (the counterexample records it). */
export interface EndHooks {
  onEvent(): void;
  onAction(action: Action): void;
}

export class Executor {
  /** Worlds built (each a re-execution from the seed) and kernel events they ran: the cost of not snapshotting. */
  worldsBuilt = 0;
  eventsRun = 0;

  constructor(
    readonly target: CheckTarget,
    readonly from: StartPoint,
    /** Fold symmetric states (the target's groups), or not. */
    private readonly symmetry = true,
  ) {}

  /** The setup actions the search starts after. */
  get setup(): readonly Action[] {
    return this.from === "setup" ? this.target.setup : [];
  }

  /** A fresh world at the start state. */
  async fresh(): Promise<Live> {
    const t = this.target;
    const world = t.adapter.build(t.seed, t.variant);
    const facts = new FactSet(world.sim);
    const endCheckers = t.endCheckers();
    subscribeCheckers(world.sim.trace, endCheckers);
    this.worldsBuilt++;
    const sim = world.sim;
    const stop = await sim.run({ until: () => t.adapter.ready(world), maxEvents: MAX_READY_EVENTS });
    if (!t.adapter.ready(world)) throw new UserInputError(`check ${t.name}: the world did not become ready (${stop} after ${sim.eventCount} events)`);
    for (const action of this.setup) applyAction(t.adapter, world, action);
    return { world, facts, endCheckers, down: new Set(), requested: 0 };
  }

  /** A fresh world, then the path. */
  async replay(path: readonly Step[]): Promise<Live> {
    const live = await this.fresh();
    for (const step of path) await this.apply(live, step);
    return live;
  }

  async apply(live: Live, step: Step): Promise<void> {
    const sim = live.world.sim;
    const before = sim.eventCount;
    applyAction(this.target.adapter, live.world, actionOf(step));
    if (step.kind === "event") await sim.run({ maxEvents: 1 });
    this.eventsRun += sim.eventCount - before;
    if (step.kind === "crash") live.down.add(step.node);
    if (step.kind === "restart") live.down.delete(step.node);
    if (step.kind === "request") live.requested = step.index + 1;
  }

  /** The next request this path may make, if any. */
  nextRequest(live: Live): { index: number; action: Action } | undefined {
    const action = this.target.requests?.[live.requested];
    return action === undefined ? undefined : { index: live.requested, action };
  }

  observe(live: Live, withOrder: boolean): WorldState {
    return worldState(live.world, { stateOf: this.target.stateOf ?? defaultStateOf, facts: live.facts, withOrder, ...(this.symmetry ? { symmetry: this.target.symmetry } : {}) });
  }

  /** What the live checkers have found so far on this path. */
  violations(live: Live): Violation[] {
    return live.world.liveCheckers.flatMap((c) => c.finish());
  }

  /** Ends the path (`runEnd`) and has every checker judge the whole run. Consumes the world. */
  async finish(live: Live, holdMs: number, convergeMs: number): Promise<Violation[]> {
    const sim = live.world.sim;
    const before = sim.eventCount;
    await this.runEnd(live, holdMs, convergeMs);
    this.eventsRun += sim.eventCount - before;
    const end: RunEnd = { index: Math.max(0, sim.trace.count - 1), atUs: sim.nowUs };
    return [...live.world.liveCheckers, ...live.endCheckers].flatMap((c) => c.finish(end));
  }

  /**
   * The end of a path: the kernel's own order with the faults in force for `holdMs`; then the
   * requests the path did not make, and `holdMs` more; then the heal (restart what the search
   * crashed, mend cuts) and on to quiescence or `convergeMs`.
   */
  async runEnd(live: Live, holdMs: number, convergeMs: number, hooks?: EndHooks): Promise<void> {
    const sim = live.world.sim;
    const act = (action: Action): void => {
      hooks?.onAction(action);
      applyAction(this.target.adapter, live.world, action);
    };
    await runFor(sim, holdMs, hooks?.onEvent);
    const rest = this.target.requests?.slice(live.requested) ?? [];
    if (rest.length > 0) {
      for (const action of rest) act(action);
      live.requested += rest.length;
      await runFor(sim, holdMs, hooks?.onEvent);
    }
    for (const action of healActions(live)) act(action);
    await runFor(sim, convergeMs, hooks?.onEvent);
  }
}

/**
 * Runs every event due within `ms` of now, in the kernel's order, and stops at the last of them
 * (the clock is not moved past it, so a learn session re-executing the run to that event's
 * position stands at the same time: the heal that follows happens at the same instant).
 * `onEvent` is called after each event (the counterexample records its steps).
 */
export async function runFor(sim: Simulator, ms: number, onEvent?: () => void): Promise<void> {
  if (!(ms > 0)) return;
  const untilUs = sim.nowUs + ms * 1000;
  if (onEvent === undefined) {
    await sim.run({ until: () => sim.nextEventTimeUs() > untilUs });
    return;
  }
  while (sim.nextEventTimeUs() <= untilUs) {
    await sim.run({ maxEvents: 1 });
    onEvent();
  }
}

/** What the end of a path heals: every node the search left down, and every cut. */
export function healActions(live: Live): Action[] {
  const sim = live.world.sim;
  const out: Action[] = [...live.down].filter((n) => sim.node(n).status === "down").map((node) => ({ kind: "fault", fault: { kind: "restart", node } }) as Action);
  const ids = sim.nodeIds;
  if (ids.some((a) => ids.some((b) => a !== b && sim.network.isCut(a, b)))) out.push({ kind: "fault", fault: { kind: "heal" } });
  return out;
}

function defaultStateOf(world: World, node: string): unknown {
  return world.sim.node(node).process;
}
