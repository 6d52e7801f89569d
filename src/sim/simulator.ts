/**
 * The discrete-event simulator: virtual clock, scheduler, node lifecycle, timers and the run
 * loops. Network and disk live in their own modules and schedule through this one.
 *
 * Invariants:
 * - Events run in (atUs, seq) order; `seq` is assigned at scheduling.
 * - A crashed node's timers never fire and its in-flight messages are never delivered: every
 *   node-bound event carries the node's incarnation, and a stale incarnation is dropped.
 * - A paused node runs nothing: its due events are parked and re-queued, in order, at resume.
 * - Promise continuations of user code run at the virtual time their promise was resolved,
 *   before the clock moves on (the run loop drains microtasks after such an event only).
 */
import { EventQueue } from "./event-queue.js";
import { Rng } from "./rng.js";
import type { DecisionTape } from "./decision-tape.js";
import { Trace, hashString } from "./trace.js";
import { Network, type NetworkConfig } from "./network.js";
import { Disk, type DiskConfig } from "./disk.js";
import { NodeContext, pendingTimer, type Process, type ProcessFactory } from "./node-context.js";
import { BARRIER, drainMicrotasks, driveWithBarriers, enterMicrotask } from "./microtasks.js";
import { UserInputError, invariant } from "./errors.js";
import type { Deferred } from "../base/deferred.js";

export type NodeStatus = "down" | "up" | "paused";

/** Kinds of scheduled events (numbers: the hot loop switches on them). */
export const enum Ev {
  /** A world-level action (fault, workload step): runs regardless of node state. */
  World = 0,
  /** A node-bound callback (timer, message delivery, fsync callback). */
  NodeCall = 1,
}

/** One scheduled event. A single shape keeps the hot loop monomorphic. */
export class SimEvent {
  constructor(
    public type: Ev,
    /** Node index for node-bound events, −1 for world events. */
    public node: number,
    /** The node incarnation the event belongs to. */
    public incarnation: number,
    public fn: (ev: SimEvent) => void,
    public a: unknown = undefined,
    public b: unknown = undefined,
  ) {}
}

export interface ClockState {
  /** Local clock rate relative to true time (1 = accurate; 1.5 = runs fast). */
  rate: number;
  anchorTrueUs: number;
  anchorLocalUs: number;
}

export class SimNode {
  incarnation = 0;
  status: NodeStatus = "down";
  process: Process | undefined;
  context: NodeContext | undefined;
  parked: SimEvent[] = [];
  clock: ClockState = { rate: 1, anchorTrueUs: 0, anchorLocalUs: 0 };
  startedOnce = false;
  /** Counters that name this node's trace events, kept across its restarts (`NodeContext.traceCounter`). */
  readonly traceCounters = new Map<string, { last: number }>();
  /** `hashString(id)`, precomputed for the trace's message fast path. */
  readonly idHash: number;

  constructor(
    readonly index: number,
    readonly id: string,
    readonly factory: ProcessFactory,
    readonly disk: Disk,
  ) {
    this.idHash = hashString(id);
  }
}

export interface SimulatorOptions {
  seed: number | string;
  network?: Partial<NetworkConfig>;
  /** Keep every trace event in memory (for `--trace FILE`, the UI, divergence reports). */
  retainTrace?: boolean;
  /** Keep a hash snapshot per event (to name the first divergent event). */
  keepHashes?: boolean;
  /**
   * A decision tape for every random stream of the run (counts draws, and simplifies the draws
   * in its ranges: see decision-tape.ts). Without one, draws are the PRNG's, untouched.
   */
  decisionTape?: DecisionTape;
}

export interface RunLimits {
  /** Stop before running any event later than this virtual time. */
  untilUs?: number;
  /** Stop after this many events. */
  maxEvents?: number;
  /** Stop as soon as this returns true (checked after each event). */
  until?: () => boolean;
  /**
   * Stop when this many events in a row run at one virtual instant: time no longer advances
   * (a livelock of zero-delay work, e.g. two timers re-arming each other at delay 0), and the
   * run would never reach its end. Default `MAX_EVENTS_PER_INSTANT`.
   */
  maxEventsPerInstant?: number;
}

export type StopReason = "time" | "events" | "predicate" | "quiescent" | "stopped" | "livelock";

/** No correct run comes near this many events at one microsecond; a livelock passes it fast. */
export const MAX_EVENTS_PER_INSTANT = 200_000;

export class Simulator {
  readonly rng: Rng;
  readonly trace: Trace;
  readonly network: Network;
  private readonly queue = new EventQueue<SimEvent>();
  private readonly nodes: SimNode[] = [];
  private readonly byId = new Map<string, SimNode>();
  private nowUsValue = 0;
  private eventsRun = 0;
  private drainNeeded = false;
  private timerIds = 0;
  private stopRequested = false;
  /** The event `runNext` chose: it runs before anything queued, at `nextUpAtUs`. */
  private nextUp: SimEvent | undefined;
  private nextUpAtUs = 0;

  constructor(readonly options: SimulatorOptions) {
    this.rng = Rng.root(options.seed, options.decisionTape);
    this.trace = new Trace(options.retainTrace ?? false, options.keepHashes ?? false);
    this.network = new Network(this, this.rng.fork("net"), options.network ?? {});
  }

  /** True virtual time. */
  get nowUs(): number {
    return this.nowUsValue;
  }

  get eventCount(): number {
    return this.eventsRun;
  }

  get pendingEvents(): number {
    return this.queue.size;
  }

  // ---- nodes ---------------------------------------------------------------------------

  addNode(id: string, factory: ProcessFactory, disk: Partial<DiskConfig> = {}): SimNode {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new UserInputError(`invalid node id "${id}" (letters, digits, _ . - only)`);
    if (this.byId.has(id)) throw new UserInputError(`duplicate node id "${id}"`);
    const node = new SimNode(this.nodes.length, id, factory, new Disk(this, id, this.rng.fork(`disk/${id}`), disk));
    this.nodes.push(node);
    this.byId.set(id, node);
    this.network.addNode(node);
    return node;
  }

  node(id: string): SimNode {
    const node = this.byId.get(id);
    if (!node) throw new UserInputError(`unknown node "${id}" (known: ${[...this.byId.keys()].join(", ") || "none"})`);
    return node;
  }

  hasNode(id: string): boolean {
    return this.byId.has(id);
  }

  nodeAt(index: number): SimNode {
    return this.nodes[index]!;
  }

  get nodeIds(): string[] {
    return this.nodes.map((n) => n.id);
  }

  /** Starts a node that is down: a fresh process built from what its disk holds. */
  start(id: string): void {
    const node = this.node(id);
    if (node.status !== "down") return;
    node.incarnation++;
    node.status = "up";
    node.parked = [];
    const kind = node.startedOnce ? "restart" : "start";
    node.startedOnce = true;
    this.trace.record(this.nowUsValue, kind, node.id, undefined, node.incarnation);
    const ctx = new NodeContext(this, node);
    node.context = ctx;
    node.process = node.factory(ctx) as Process;
  }

  /** Crash: volatile state and timers gone, in-flight messages dropped, unsynced disk lost. */
  crash(id: string): void {
    const node = this.node(id);
    if (node.status === "down") return;
    this.trace.record(this.nowUsValue, "crash", node.id, undefined, node.incarnation);
    node.status = "down";
    node.incarnation++; // everything scheduled for the old incarnation is now stale
    node.process = undefined;
    node.context = undefined;
    node.parked = [];
    this.network.onCrash(node);
    node.disk.onCrash();
  }

  /** Crash (if up) and start again from disk. */
  restart(id: string): void {
    this.crash(id);
    this.start(id);
  }

  /** A "GC pause" / SIGSTOP: frozen with its state kept. */
  pause(id: string): void {
    const node = this.node(id);
    if (node.status !== "up") return;
    node.status = "paused";
    this.trace.record(this.nowUsValue, "pause", node.id);
  }

  resume(id: string): void {
    const node = this.node(id);
    if (node.status !== "paused") return;
    node.status = "up";
    this.trace.record(this.nowUsValue, "resume", node.id, undefined, node.parked.length);
    const parked = node.parked;
    node.parked = [];
    for (const ev of parked) this.queue.push(this.nowUsValue, ev);
  }

  /** Sets a node's clock rate (1 = accurate). Affects its local time and its timers. */
  setClockRate(id: string, rate: number): void {
    if (!(rate > 0) || !Number.isFinite(rate)) throw new UserInputError(`clock rate must be a positive number, got ${rate}`);
    const node = this.node(id);
    const c = node.clock;
    c.anchorLocalUs = this.localNowUs(node);
    c.anchorTrueUs = this.nowUsValue;
    c.rate = rate;
    this.trace.record(this.nowUsValue, "clock", node.id, undefined, undefined, undefined, { rate });
    this.retimeTimers(node);
  }

  /**
   * A timer fires when its node's local clock reaches the timer's deadline, as a timed wait on
   * a monotonic clock does: after a rate change, each pending timer of the node moves to the true
   * time at which the clock, at its new rate, gets there. (A timer that kept the firing time
   * computed at the old rate would wait out a slow clock long after the clock ran true again.)
   * Timers move in the order they were queued, so equal new times keep their old order.
   */
  private retimeTimers(node: SimNode): void {
    const pending: { seq: number; atUs: number; ev: SimEvent; deadlineLocalUs: number }[] = [];
    this.queue.forEach((atUs, seq, ev) => {
      const timer = pendingTimer(ev);
      if (timer === undefined || timer.cancelled || ev.node !== node.index || ev.incarnation !== node.incarnation) return;
      pending.push({ seq, atUs, ev, deadlineLocalUs: timer.deadlineLocalUs });
    });
    pending.sort((a, b) => a.seq - b.seq);
    const localNowUs = this.localNowUs(node);
    for (const t of pending) {
      const atUs = this.nowUsValue + this.trueDelayUs(node, Math.max(0, t.deadlineLocalUs - localNowUs));
      if (atUs !== t.atUs) this.moveEvent(t.ev, atUs, false);
    }
  }

  /** A node's local clock reading. */
  localNowUs(node: SimNode): number {
    const c = node.clock;
    return c.anchorLocalUs + Math.floor((this.nowUsValue - c.anchorTrueUs) * c.rate);
  }

  /** True-time delay for a local-clock delay on `node`. */
  trueDelayUs(node: SimNode, localDelayUs: number): number {
    const rate = node.clock.rate;
    return rate === 1 ? localDelayUs : Math.ceil(localDelayUs / rate);
  }

  // ---- scheduling ----------------------------------------------------------------------

  /** Schedules a world action (faults, workload steps, network internals). */
  schedule(atUs: number, fn: (ev: SimEvent) => void, a?: unknown, b?: unknown): SimEvent {
    // Not `invariant(cond, message)`: its message would be formatted on every call.
    if (!(atUs >= this.nowUsValue)) invariant(false, `cannot schedule in the past (${atUs} < ${this.nowUsValue})`);
    const ev = new SimEvent(Ev.World, -1, 0, fn, a, b);
    this.queue.push(atUs, ev);
    return ev;
  }

  /** Schedules a callback on a node's current incarnation (dropped if it crashes, parked if paused). */
  scheduleOnNode(node: SimNode, atUs: number, fn: (ev: SimEvent) => void, a?: unknown, b?: unknown): SimEvent {
    if (!(atUs >= this.nowUsValue)) invariant(false, `cannot schedule in the past (${atUs} < ${this.nowUsValue})`);
    const ev = new SimEvent(Ev.NodeCall, node.index, node.incarnation, fn, a, b);
    this.queue.push(atUs, ev);
    return ev;
  }

  /** Re-queues a node event at a later time (used for messages held by a partition). */
  requeue(atUs: number, ev: SimEvent): void {
    this.queue.push(atUs, ev);
  }

  /**
   * Drain microtasks after every event, not only after those that settled a kernel deferred:
   * for user code that settles promises of its own from callbacks (a watcher resolving a
   * `new Promise`), whose continuations must run at the virtual time of the callback, not at the
   * next drain. The public API's user scripts set it (src/api/); a barrier per event costs a few
   * µs, so built-in workloads, which settle only kernel deferreds, leave it off.
   */
  drainAfterEveryEvent = false;

  /** Marks that user promises were resolved: the run loop drains microtasks after this event. */
  noteUserPromiseResolved(): void {
    this.drainNeeded = true;
  }

  /** A promise for user-level code whose continuation runs at the current virtual time. */
  deferred<T>(): Deferred<T> {
    return new SimDeferred<T>(this);
  }

  /** Timer ids are per simulation (a module-level counter would leak between runs). */
  nextTimerId(): number {
    return ++this.timerIds;
  }

  /** For world-level async code (scenario scripts): resolves after `us` of true virtual time. */
  sleepUs(us: number): Promise<void> {
    const d = this.deferred<void>();
    this.schedule(this.nowUsValue + Math.max(0, Math.ceil(us)), () => d.resolve());
    return d.promise;
  }

  /** Requests the run loop to stop after the current event. */
  stop(): void {
    this.stopRequested = true;
  }

  // ---- the stepping interface's hooks (the teaching UI lists and reorders pending events) --

  /** The events waiting to run, in run order (a copy: changing it changes nothing). */
  pendingList(): PendingSimEvent[] {
    const out: PendingSimEvent[] = [];
    this.queue.forEach((atUs, seq, ev) => {
      if (ev.fn !== cancelledEvent) out.push({ atUs, seq, ev });
    });
    out.sort((x, y) => x.atUs - y.atUs || x.seq - y.seq);
    if (this.nextUp !== undefined) out.unshift({ atUs: this.nextUpAtUs, seq: -Infinity, ev: this.nextUp });
    return out;
  }

  /** A pending event will do nothing when its time comes (it still counts as a run event). */
  cancelEvent(ev: SimEvent): void {
    ev.fn = cancelledEvent;
  }

  /**
   * Moves a pending event to `atUs` (≥ now). `first`: ahead of everything else queued at that
   * time, so that at `atUs` = now it is the very next event to run.
   */
  moveEvent(ev: SimEvent, atUs: number, first: boolean): SimEvent {
    if (!(atUs >= this.nowUsValue)) invariant(false, `cannot schedule in the past (${atUs} < ${this.nowUsValue})`);
    const copy = new SimEvent(ev.type, ev.node, ev.incarnation, ev.fn, ev.a, ev.b);
    this.cancelEvent(ev);
    if (first) this.queue.pushFirst(atUs, copy);
    else this.queue.push(atUs, copy);
    return copy;
  }

  /**
   * Makes a pending event the very next one to run, at its own time `atUs` when that is later
   * than now — the clock moves there, and the events due before it run late, each at the then
   * current time when its turn comes — or now (the model checker's "this one next": any pending
   * event may go next, as in an asynchronous network, without time ever going back).
   */
  runNext(ev: SimEvent, atUs: number): void {
    if (this.nextUp !== undefined) invariant(false, "runNext: an event is already chosen to run next");
    const copy = new SimEvent(ev.type, ev.node, ev.incarnation, ev.fn, ev.a, ev.b);
    this.cancelEvent(ev);
    this.nextUp = copy;
    this.nextUpAtUs = Math.max(atUs, this.nowUsValue);
  }

  /** Queues a copy of a pending event at `atUs` as well (a duplicated datagram). */
  copyEvent(ev: SimEvent, atUs: number): SimEvent {
    const copy = new SimEvent(ev.type, ev.node, ev.incarnation, ev.fn, ev.a, ev.b);
    this.queue.push(atUs, copy);
    return copy;
  }

  // ---- running -------------------------------------------------------------------------

  /** Time of the next event (Infinity when quiescent). */
  nextEventTimeUs(): number {
    return this.nextUp !== undefined ? this.nextUpAtUs : this.queue.peekTime();
  }

  /** The next event to run: the one `runNext` chose, else the queue's first. */
  private takeNext(): SimEvent | undefined {
    const ev = this.nextUp;
    if (ev === undefined) return this.queue.pop();
    this.nextUp = undefined;
    return ev;
  }

  /**
   * Runs exactly one event. Returns false when there is nothing to run.
   * Microtasks are not drained: use `stepAsync` when user promises may be involved.
   */
  step(): boolean {
    const atUs = this.nextEventTimeUs();
    const ev = this.takeNext();
    if (ev === undefined) return false;
    this.dispatch(atUs, ev);
    return true;
  }

  /** One event, then a microtask drain if it resolved a user promise. */
  async stepAsync(): Promise<boolean> {
    await enterMicrotask();
    const ran = this.step();
    if (this.drainNeeded || this.drainAfterEveryEvent) {
      this.drainNeeded = false;
      await drainMicrotasks();
    }
    return ran;
  }

  /** Runs until a limit; drains microtasks only after events that resolved user promises. */
  run(limits: RunLimits = {}): Promise<StopReason> {
    this.stopRequested = false;
    let ran = 0;
    let first = true;
    const maxPerInstant = limits.maxEventsPerInstant ?? MAX_EVENTS_PER_INSTANT;
    let instantUs = -1;
    let atInstant = 0;
    return driveWithBarriers(() => {
      if (first) {
        first = false;
        if (this.drainNeeded) {
          this.drainNeeded = false;
          return BARRIER;
        }
      }
      for (;;) {
        const stop = this.stopReason(limits, ran);
        if (stop !== undefined) return stop;
        const atUs = this.nextEventTimeUs();
        if (atUs !== instantUs) {
          instantUs = atUs;
          atInstant = 0;
        } else if (++atInstant >= maxPerInstant) {
          return "livelock";
        }
        this.dispatch(atUs, this.takeNext()!);
        ran++;
        if (this.drainNeeded || this.drainAfterEveryEvent) {
          this.drainNeeded = false;
          return BARRIER;
        }
      }
    });
  }

  /**
   * Synchronous run for pure protocol code (no user promises). Promise continuations, if any,
   * would run only after it returns — use `run` for workloads written with async/await.
   */
  runSync(limits: RunLimits = {}): StopReason {
    this.stopRequested = false;
    for (let ran = 0; ; ran++) {
      const stop = this.stopReason(limits, ran);
      if (stop !== undefined) return stop;
      this.dispatch(this.nextEventTimeUs(), this.takeNext()!);
    }
  }

  /** Why the run loop must stop before the next event, if it must. */
  private stopReason(limits: RunLimits, ran: number): StopReason | undefined {
    if (limits.until !== undefined && limits.until()) return "predicate";
    if (this.stopRequested) return "stopped";
    if (limits.maxEvents !== undefined && ran >= limits.maxEvents) return "events";
    const t = this.nextEventTimeUs();
    if (t === Infinity) return "quiescent";
    if (limits.untilUs !== undefined && t > limits.untilUs) {
      this.nowUsValue = Math.max(this.nowUsValue, limits.untilUs);
      return "time";
    }
    return undefined;
  }

  private dispatch(atUs: number, ev: SimEvent): void {
    // Never back: after a `runNext` moved the clock ahead, the events due before run late.
    if (atUs > this.nowUsValue) this.nowUsValue = atUs;
    this.eventsRun++;
    if (ev.type === Ev.World) {
      ev.fn(ev);
      return;
    }
    const node = this.nodes[ev.node]!;
    if (ev.incarnation !== node.incarnation) return; // crashed since: dropped
    if (node.status === "paused") {
      node.parked.push(ev);
      return;
    }
    ev.fn(ev);
  }
}

export type { Deferred };

/** One pending event with its queue key. */
export interface PendingSimEvent {
  atUs: number;
  seq: number;
  ev: SimEvent;
}

function cancelledEvent(): void {}

/** A Deferred whose settling tells the run loop to drain microtasks (methods, not closures: one is made per client op). */
class SimDeferred<T> implements Deferred<T> {
  readonly promise: Promise<T>;
  private resolveFn!: (v: T) => void;
  private rejectFn!: (e: unknown) => void;

  constructor(private readonly sim: Simulator) {
    this.promise = new Promise<T>((res, rej) => {
      this.resolveFn = res;
      this.rejectFn = rej;
    });
  }

  resolve(value: T): void {
    this.sim.noteUserPromiseResolved();
    this.resolveFn(value);
  }

  reject(error: unknown): void {
    this.sim.noteUserPromiseResolved();
    this.rejectFn(error);
  }
}
