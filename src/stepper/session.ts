/**
 * A learning session: one seed, one protocol adapter, and branches of learner interventions.
 *
 * The run is recorded from its first event: the steps that make the world ready (electing a
 * leader, connecting clients) are steps too, and the session (a lesson) starts at the ready
 * one, `startStep`. Steps are shown relative to it — step 0 is the start, steps before it are
 * negative — and `back` can go before it, into the election; acting there opens a branch
 * without the lesson's setup actions (they are interventions at the start position).
 *
 * The session holds one live world at the current position. Stepping forward runs kernel
 * events until the trace records something (one step = one kernel event that did something
 * visible). Stepping back re-executes the branch from the seed to the previous step's
 * position — the kernel cannot snapshot closures, and re-execution is deterministic. Acting
 * anywhere but at the branch's newest step opens a new branch that shares the past up to
 * there; the old branch and its future are kept (DSLabs-style), and the learner can switch.
 *
 * Invariants:
 * - a branch's `marks` are the positions of its steps, increasing; `marks[0]` is position 0
 *   (or the start, in a session file from before the run was recorded from the beginning);
 *   `marks[startStep]` is the start on every branch that did not fork before it;
 * - a branch's interventions are sorted by `atEvent`; the live world has applied exactly the
 *   first `applied` of them, those with `atEvent` ≤ its position;
 * - every frame is a function of (seed, variant, branch interventions, position).
 */
import { UserInputError } from "../sim/errors.js";
import type { TraceEvent, TraceListener } from "../sim/trace.js";
import { applyAction } from "./interventions.js";
import { pendingEntries } from "./pending.js";
import type { Action, Frame, GoalWatch, Intervention, ProtocolAdapter, RecentEvent, Verdict, World } from "./types.js";

/** Trace kinds about one message (their `id` is the message's). */
const MESSAGE_KINDS = new Set(["send", "deliver", "drop", "hold", "duplicate"]);

/** A step that runs this many kernel events without a trace event stops anyway. */
const MAX_SILENT_EVENTS = 100_000;
/** The world may take this many events to become ready (elect a leader, connect clients). */
const MAX_READY_EVENTS = 2_000_000;
/** Trace events kept for the strip and the narration (and their scrollback). */
const RECENT_LIMIT = 1_000;
/** Sent messages whose type is remembered (a drop or delivery names only the message id). */
const SENT_TYPES_LIMIT = 20_000;

export interface Branch {
  interventions: Intervention[];
  marks: number[];
  /** The branch it was forked from, and at which step. */
  parent: number | undefined;
  forkStep: number;
}

export interface SessionOptions {
  seed: number;
  variant?: string;
  /** Actions applied once the world is ready (a lesson's starting faults or requests). */
  setup?: readonly Action[];
  /** A lesson's goal, watched on every (re-)execution. */
  goal?: () => GoalWatch;
}

/** The saved form of a session (plain JSON; re-executes to the same frames). */
export interface SessionFile {
  format: "zksim-learn-session";
  version: 1;
  protocol: string;
  seed: number;
  variant: string;
  lesson?: string;
  start: number;
  /** The index in `marks` of the start (absent in older files: 0). */
  startStep?: number;
  branches: Branch[];
  current: number;
  step: number;
  /** The trace hash at the saved branch and step: re-opening (or `zksim replay`) must reach it again. */
  traceHash?: string;
  /**
   * A `zksim check` counterexample: the target it was found in, where the search started, how
   * many of the branch's interventions after the setup are the path's steps, and how the path
   * ended (hold, heal, converge), if the violation showed there. `zksim shrink` reads it; learn
   * ignores it (and does not keep it when it saves the session again).
   */
  check?: CheckOrigin;
}

export interface CheckOrigin {
  target: string;
  from: "start" | "setup";
  steps: number;
  checker: string;
  end: { holdMs: number; convergeMs: number } | null;
}

interface Live<W> {
  /** The branch it was executed on, and the position it stands at. */
  branch: number;
  world: W;
  recent: TraceEvent[];
  /** Each recently sent message's type, by id. */
  sentTypes: Map<number, string>;
  /** The recent events as the UI shows them, worked out once per event. */
  described: WeakMap<TraceEvent, RecentEvent>;
  applied: number;
  goal: GoalWatch | undefined;
  /** The trace index of the event that reached the goal. */
  goalReachedAt: number | undefined;
}

export class Session<W extends World = World> {
  private live!: Live<W>;
  /** A second world re-executed ahead of time to the previous step (`prepareBack`), so that going back is a swap. */
  private spare: Live<W> | undefined;
  private readonly branchList: Branch[] = [];
  private current = 0;
  private cursor = 0;
  /** The index in `marks` where the session (the lesson) starts: the world became ready there. */
  private startIndex = 0;
  private stepFromTrace = 0;
  /** Wall-clock-free counters for the bench and tests: re-executions and their events. */
  reexecutions = 0;
  lesson: string | undefined;
  /** Reads every trace event of every world the session builds (`zksim replay FILE --trace`). */
  private onTrace: TraceListener | undefined;

  private constructor(
    readonly adapter: ProtocolAdapter<W>,
    readonly seed: number,
    readonly variant: string,
    private start: number,
    private readonly goalWatch: (() => GoalWatch) | undefined,
  ) {}

  /** Builds the world, runs it until the adapter says it is ready, applies the setup actions. */
  static async begin<W extends World>(adapter: ProtocolAdapter<W>, options: SessionOptions): Promise<Session<W>> {
    const variant = checkVariant(adapter, options.variant);
    const s = new Session(adapter, options.seed, variant, 0, options.goal);
    s.live = s.fresh();
    const sim = s.live.world.sim;
    // Step by step to readiness, each step a mark, so that `back` can go before the start.
    const marks = [0];
    const ready = () => adapter.ready(s.live.world);
    while (!ready()) {
      const before = sim.trace.count;
      const stop = await sim.run({ until: () => sim.trace.count > before || ready(), maxEvents: MAX_READY_EVENTS - sim.eventCount });
      if (stop !== "predicate") throw new UserInputError(`${adapter.protocol} with seed ${options.seed} did not become ready (${stop} after ${sim.eventCount} events)`);
      marks.push(sim.eventCount);
    }
    s.start = sim.eventCount;
    s.startIndex = s.cursor = marks.length - 1;
    s.branchList.push({ interventions: [], marks, parent: undefined, forkStep: 0 });
    for (const action of options.setup ?? []) s.act(action);
    s.stepFromTrace = sim.trace.count;
    return s;
  }

  /** Re-opens a saved session at its saved branch and step; `onTrace` reads every event of every world it builds. */
  static async open<W extends World>(adapter: ProtocolAdapter<W>, file: SessionFile, goal?: () => GoalWatch, onTrace?: TraceListener): Promise<Session<W>> {
    if (file.protocol !== adapter.protocol) throw new UserInputError(`session file is for ${file.protocol}, not ${adapter.protocol}`);
    const s = new Session(adapter, file.seed, checkVariant(adapter, file.variant), file.start, goal);
    s.onTrace = onTrace;
    s.lesson = file.lesson;
    s.branchList.push(...file.branches.map(copyBranch));
    if (!(file.current >= 0 && file.current < s.branchList.length)) throw new UserInputError(`session file: no branch ${file.current}`);
    s.current = file.current;
    const marks = s.branch.marks;
    if (!(file.step >= 0 && file.step < marks.length)) throw new UserInputError(`session file: branch ${file.current} has no step ${file.step}`);
    s.cursor = file.step;
    s.startIndex = file.startStep ?? 0;
    await s.reexecute(marks[s.cursor]!);
    s.stepFromTrace = s.live.world.sim.trace.count;
    return s;
  }

  save(): SessionFile {
    return {
      format: "zksim-learn-session",
      version: 1,
      protocol: this.adapter.protocol,
      seed: this.seed,
      variant: this.variant,
      ...(this.lesson !== undefined ? { lesson: this.lesson } : {}),
      start: this.start,
      startStep: this.startIndex,
      branches: this.branchList.map(copyBranch),
      current: this.current,
      step: this.cursor,
      traceHash: this.live.world.sim.trace.hash(),
    };
  }

  get world(): W {
    return this.live.world;
  }

  get branch(): Branch {
    return this.branchList[this.current]!;
  }

  get branches(): readonly Branch[] {
    return this.branchList;
  }

  /** The current step, relative to the start (negative before it). */
  get step(): number {
    return this.cursor - this.startIndex;
  }

  /** The index in a branch's marks where the session starts. */
  get startStep(): number {
    return this.startIndex;
  }

  /** The position (kernel event count) where the session starts: the world was ready there. */
  get startPosition(): number {
    return this.start;
  }

  /** At the branch's newest step: an action here extends the branch instead of opening one. */
  get atNewest(): boolean {
    return this.cursor === this.branch.marks.length - 1;
  }

  /** One step forward: the branch's recorded next step, or a new one at its end. False when nothing is left to run. */
  async forward(): Promise<boolean> {
    const marks = this.branch.marks;
    const sim = this.live.world.sim;
    this.stepFromTrace = sim.trace.count;
    if (this.cursor < marks.length - 1) {
      await this.runTo(marks[++this.cursor]!);
      return true;
    }
    const before = sim.trace.count;
    const startEvent = sim.eventCount;
    await sim.run({ until: () => sim.trace.count > before || sim.eventCount - startEvent >= MAX_SILENT_EVENTS });
    if (sim.eventCount === startEvent) return false;
    marks.push(sim.eventCount);
    this.cursor++;
    return true;
  }

  /**
   * Steps forward until `ms` of virtual time have passed (or nothing is left), one step at a
   * time; `stop`, asked after each step, ends it early (a step the UI wants the learner to see).
   */
  async runFor(ms: number, stop?: () => boolean): Promise<number> {
    const untilUs = this.live.world.sim.nowUs + ms * 1000;
    const from = this.live.world.sim.trace.count;
    let steps = 0;
    while (this.nextEventUs() <= untilUs && (await this.forward())) {
      steps++;
      if (stop?.() === true) break;
    }
    if (steps > 0) this.stepFromTrace = from;
    return steps;
  }

  /** The lesson's goal was reached in the live world (cheap: no frame is built). */
  get goalReached(): boolean {
    return this.live.goalReachedAt !== undefined;
  }

  /** The trace events of the last step (or action, or run), oldest first. */
  lastStepEvents(): readonly TraceEvent[] {
    const recent = this.live.recent;
    let i = recent.length;
    while (i > 0 && recent[i - 1]!.index >= this.stepFromTrace) i--;
    return recent.slice(i);
  }

  /** Time of the next kernel event (Infinity when nothing is pending). */
  nextEventUs(): number {
    return this.live.world.sim.nextEventTimeUs();
  }

  /** One step back (re-execution from the seed, or the spare `prepareBack` made). False at the start. */
  async back(): Promise<boolean> {
    if (this.cursor === 0) return false;
    this.cursor--;
    const target = this.branch.marks[this.cursor]!;
    const spare = this.spare;
    this.spare = undefined;
    if (spare !== undefined && spare.branch === this.current && spare.world.sim.eventCount === target) this.live = spare;
    else await this.reexecute(target);
    this.stepFromTrace = Math.max(0, this.live.world.sim.trace.count - 1);
    return true;
  }

  /**
   * Re-executes, ahead of time, a second world to the previous step, so that the next `back`
   * is instant (the UI calls this while the learner reads the screen). Does nothing when the
   * spare is ready or at the start.
   */
  async prepareBack(): Promise<void> {
    if (this.cursor === 0) return;
    const target = this.branch.marks[this.cursor - 1]!;
    if (this.spare !== undefined && this.spare.branch === this.current && this.spare.world.sim.eventCount === target) return;
    const spare = this.fresh();
    await this.runTo(target, spare);
    this.spare = spare;
  }

  /** Goes to step `step` (relative to the start) of the current branch (re-executing if it lies behind). */
  async goto(step: number): Promise<void> {
    const marks = this.branch.marks;
    const n = step + this.startIndex;
    if (!(n >= 0 && n < marks.length)) throw new UserInputError(`step ${step} is not on this branch (${-this.startIndex}…${marks.length - 1 - this.startIndex})`);
    if (n < this.cursor) await this.reexecute(marks[n]!);
    else await this.runTo(marks[n]!);
    this.cursor = n;
  }

  /**
   * Applies an action now. At the branch's newest step it joins the branch; in the past it
   * opens a new branch (the old future is kept). Throws UserInputError (changing nothing) when
   * the action is refused.
   */
  act(action: Action): void {
    const atEvent = this.live.world.sim.eventCount;
    const traceBefore = this.live.world.sim.trace.count;
    applyAction(this.adapter, this.live.world, action);
    const b = this.branch;
    if (this.cursor < b.marks.length - 1) {
      this.branchList.push({
        interventions: b.interventions.slice(0, this.live.applied),
        marks: b.marks.slice(0, this.cursor + 1),
        parent: this.current,
        forkStep: this.cursor,
      });
      this.current = this.branchList.length - 1;
      this.live.branch = this.current;
    }
    this.branch.interventions.push({ atEvent, action });
    this.live.applied++;
    this.stepFromTrace = traceBefore;
  }

  /** Switches to another branch, at its newest step. */
  async switchBranch(index: number): Promise<void> {
    if (!(index >= 0 && index < this.branchList.length)) throw new UserInputError(`no branch ${index} (branches: 0…${this.branchList.length - 1})`);
    this.current = index;
    this.cursor = this.branch.marks.length - 1;
    await this.reexecute(this.branch.marks[this.cursor]!);
    this.stepFromTrace = this.live.world.sim.trace.count;
  }

  frame(): Frame {
    return this.frameOf(this.live);
  }

  /**
   * What-if: the current position re-executed in a second world, `action` applied, and virtual
   * time run `aheadMs` ahead — the live world is untouched. Returns the frames before and after.
   */
  async preview(action: Action, aheadMs: number): Promise<{ before: Frame; after: Frame }> {
    const before = this.frame();
    const fork = this.fresh();
    await this.runTo(this.branch.marks[this.cursor]!, fork);
    const sim = fork.world.sim;
    const from = sim.trace.count;
    applyAction(this.adapter, fork.world, action);
    await sim.run({ untilUs: sim.nowUs + aheadMs * 1000 });
    return { before, after: { ...this.frameOf(fork), stepFrom: from } };
  }

  /**
   * What happens next if nobody acts: the current position re-executed in a second world and
   * run `aheadMs` of virtual time ahead, the live world untouched. The frame after (its
   * `stepFrom` where the look-ahead began) and every trace event of the look-ahead.
   */
  async lookAhead(aheadMs: number): Promise<{ after: Frame; events: TraceEvent[] }> {
    const fork = this.fresh();
    await this.runTo(this.branch.marks[this.cursor]!, fork);
    const sim = fork.world.sim;
    const from = sim.trace.count;
    const events: TraceEvent[] = [];
    sim.trace.subscribe((e) => events.push(e));
    await sim.run({ untilUs: sim.nowUs + aheadMs * 1000 });
    return { after: { ...this.frameOf(fork), stepFrom: from }, events };
  }

  private frameOf(live: Live<W>): Frame {
    const w = live.world;
    const sim = w.sim;
    const panel = this.adapter.panel?.(w);
    const goal = live.goal?.status();
    return {
      protocol: this.adapter.protocol,
      seed: this.seed,
      variant: this.variant,
      step: this.cursor - this.startIndex,
      steps: this.branch.marks.length - 1 - this.startIndex,
      branch: this.current,
      branches: this.branchList.length,
      position: sim.eventCount,
      lastEvent: sim.trace.count - 1,
      nowUs: sim.nowUs,
      nodes: this.adapter.nodeViews(w),
      pending: pendingEntries(this.adapter, w).map((e) => e.view),
      recent: live.recent.slice(-RECENT_LIMIT).map((event) => this.recentEvent(event, live)),
      stepFrom: this.stepFromTrace,
      verdicts: verdicts(w),
      ...(panel !== undefined ? { panel } : {}),
      goal: goal === undefined ? undefined : { ...goal, ...(live.goalReachedAt !== undefined ? { reachedAt: live.goalReachedAt } : {}) },
    };
  }

  /** An event as the UI shows it: its narration, its message's book name and traffic, decisive or not (worked out once). */
  private recentEvent(event: TraceEvent, live: Live<W>): RecentEvent {
    const known = live.described.get(event);
    if (known !== undefined) return known;
    const a = this.adapter;
    const w = live.world;
    const message = MESSAGE_KINDS.has(event.kind) && event.id !== undefined;
    const type = event.kind === "drop" ? live.sentTypes.get(event.id ?? -1) : event.detail; // a drop's detail says why
    const book = message && type !== undefined ? (a.bookOfSent?.(event.id!, type, w) ?? a.bookOfType(type)) : undefined;
    const traffic = message && type !== undefined ? (a.trafficOf?.(type) ?? (a.bookOfType(type) !== undefined ? "protocol" : "client")) : undefined;
    const described = { event, narration: a.narrate(event, w), book, traffic, decisive: a.isDecisive?.(event) ?? false };
    live.described.set(event, described);
    return described;
  }

  /** A fresh world with the recent-events ring (and the sent messages' types) attached, at position 0. */
  private fresh(): Live<W> {
    const world = this.adapter.build(this.seed, this.variant);
    if (this.onTrace !== undefined) world.sim.trace.subscribe(this.onTrace);
    const recent: TraceEvent[] = [];
    const sentTypes = new Map<number, string>();
    world.sim.trace.subscribe((e) => {
      recent.push(e);
      if (recent.length > RECENT_LIMIT * 2) recent.splice(0, recent.length - RECENT_LIMIT);
      if (e.kind !== "send" || e.id === undefined || e.detail === undefined) return;
      sentTypes.set(e.id, e.detail);
      if (sentTypes.size > SENT_TYPES_LIMIT) sentTypes.delete(sentTypes.keys().next().value!);
    });
    const live: Live<W> = { branch: this.current, world, recent, sentTypes, described: new WeakMap(), applied: 0, goal: this.goalWatch?.(), goalReachedAt: undefined };
    const goal = live.goal;
    if (goal !== undefined) {
      const onEvent = (e: TraceEvent) => {
        goal.onEvent(e);
        if (live.goalReachedAt === undefined && goal.status().reached) live.goalReachedAt = e.index;
      };
      world.sim.trace.subscribe(onEvent, goal.kinds);
    }
    return live;
  }

  /** Replaces the live world by a re-execution of the current branch up to `target`. */
  private async reexecute(target: number): Promise<void> {
    this.reexecutions++;
    this.live = this.fresh();
    await this.runTo(target);
  }

  /** Runs the live world (or `live`) forward to `target`, applying the branch's interventions on the way. */
  private async runTo(target: number, live: Live<W> = this.live): Promise<void> {
    const sim = live.world.sim;
    const ivs = this.branchList[live.branch]!.interventions;
    for (;;) {
      const next = live.applied < ivs.length ? ivs[live.applied]!.atEvent : Infinity;
      const stopAt = Math.min(next, target);
      if (sim.eventCount < stopAt) await sim.run({ maxEvents: stopAt - sim.eventCount });
      if (sim.eventCount < stopAt) throw new Error(`re-execution ran out of events at ${sim.eventCount} before ${stopAt}: the run is not deterministic`);
      if (next > target) return;
      applyAction(this.adapter, live.world, ivs[live.applied]!.action);
      live.applied++;
    }
  }
}

/** Each live checker's verdict so far. */
export function verdicts(world: World): Verdict[] {
  return world.liveCheckers.map((c) => {
    const v = c.finish()[0];
    return v === undefined ? { checker: c.name, ok: true } : { checker: c.name, ok: false, message: v.message, eventIndex: v.eventIndex };
  });
}

function checkVariant(adapter: ProtocolAdapter<World>, variant: string | undefined): string {
  if (variant === undefined) return adapter.variants[0]!;
  if (!adapter.variants.includes(variant)) throw new UserInputError(`${adapter.protocol}: unknown variant "${variant}" (known: ${adapter.variants.join(", ")})`);
  return variant;
}

function copyBranch(b: Branch): Branch {
  return { interventions: b.interventions.map((i) => ({ atEvent: i.atEvent, action: i.action })), marks: [...b.marks], parent: b.parent, forkStep: b.forkStep };
}
