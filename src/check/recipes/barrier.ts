/**
 * `recipe.barrier`: barrier semantics, from `recipe.barrier` annotations and session facts.
 *
 * - Simple barrier: a waiter passes only if the barrier was lowered after the last raise that
 *   completed before it began waiting (`wait` → `passed` with no `lowered` since that raise is
 *   a violation).
 * - Double barrier, enter: a process is released (`entered`) only once `size` distinct
 *   processes have joined (`enter`).
 * - Double barrier, the recipe's own history: a process begins to leave (`leave`) only with the
 *   session it was released with (`entered`): the recipe leaves after `enter` returned, so a
 *   `leave` without its `entered` is a history that lost the release (and with it the
 *   liveness judgment of the processes still waiting to enter).
 * - Double barrier, leave: a process finishes leaving (`left`) only when every process that
 *   entered has begun to leave (`leave`), its session has ended, or its node has crashed —
 *   nobody walks out while another is still computing.
 * - Liveness (a waiter is eventually served): at the end of a run quiet (no fault) for
 *   `stallMs`, with nothing happening at the barrier for `stallMs`, a process with a live
 *   session is stuck if it still waits at a simple barrier whose node is gone (`down`: the
 *   controller's delete returned), waits to enter a double barrier that someone has entered
 *   (its `ready` node exists) or that `size` live processes are waiting to enter, or waits to
 *   leave one in which every live process that entered has begun to leave.
 */
import type { Checker, RunEnd, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { STALL_MS } from "./exclusive.js";
import { SessionFates, fmtMs } from "./sessions.js";
import { guarded, intField, optionalStringField, stringField } from "../event-reader.js";

/** A process waiting at a barrier: its session and since when. */
interface Waiter {
  session: string;
  atUs: number;
}

interface BarrierHistory {
  lastRaisedUs: number;
  lastLoweredUs: number;
  /** When the last lowering's delete returned (`down`) after the last raise; -1 while up. */
  downUs: number;
  waitingSince: Map<string, number>;
  joined: Set<string>;
  inside: Map<string, string>;
  /** Client → the session of its last `entered` (kept when it leaves or its session ends). */
  releasedAs: Map<string, string>;
  /** Client → its wait at the simple barrier, until it passes. */
  waiters: Map<string, Waiter>;
  /** Client → its wait to enter the double barrier (`enter` … `entered`), and to leave it (`leave` … `left`). */
  entering: Map<string, Waiter>;
  leaving: Map<string, Waiter>;
  /** Someone entered: the double barrier's `ready` node exists, so every process waiting to enter may go in. */
  entered: boolean;
  size: number;
  lastEventUs: number;
}

const BARRIER_KINDS = ["recipe.barrier", ...SessionFates.KINDS] as const;
type BarrierKind = KindsOf<typeof BARRIER_KINDS>;

export class BarrierChecker implements Checker<BarrierKind> {
  readonly name = "recipe.barrier";
  readonly kinds = BARRIER_KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  private readonly barriers = new Map<string, BarrierHistory>();

  constructor(private readonly stallMs = STALL_MS) {}

  onEvent(e: TraceEvent<BarrierKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<BarrierKind>): void {
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      const gone = (client: string, session: string) => (fate.kind === "session-ended" ? fate.sessions.includes(session) : client === fate.client);
      for (const b of this.barriers.values()) {
        for (const [client, session] of [...b.inside]) if (gone(client, session)) b.inside.delete(client);
        for (const waits of [b.waiters, b.entering, b.leaving]) for (const [client, w] of [...waits]) if (gone(client, w.session)) waits.delete(client);
      }
      return;
    }
    if (e.kind !== "recipe.barrier") return;
    const name = stringField(e, "barrier");
    const client = stringField(e, "client");
    const event = stringField(e, "event");
    const b = this.barrier(name);
    b.lastEventUs = e.atUs;
    const session = stringField(e, "session");
    // A process acting on a session that has already ended (paused, it has not heard yet) waits for nothing: its next call fails.
    const wait = (waits: Map<string, Waiter>) => {
      if (!this.fates.isEnded(session)) waits.set(client, { session, atUs: e.atUs });
    };
    switch (event) {
      case "raised":
        b.lastRaisedUs = e.atUs;
        b.downUs = -1;
        return;
      case "lowered":
        b.lastLoweredUs = e.atUs;
        return;
      case "down":
        b.downUs = e.atUs;
        return;
      case "wait":
        b.waitingSince.set(client, b.lastRaisedUs);
        wait(b.waiters);
        return;
      case "passed": {
        b.waiters.delete(client);
        const raisedUs = b.waitingSince.get(client) ?? -1;
        if (raisedUs >= 0 && b.lastLoweredUs < raisedUs) this.log.add(e, `${client} passed barrier ${name}, which was raised and has not been lowered since`);
        return;
      }
      case "enter":
        b.joined.add(client);
        wait(b.entering);
        b.size = intField(e, "size");
        return;
      case "entered": {
        const size = intField(e, "size");
        b.entering.delete(client);
        b.entered = true;
        if (b.joined.size < size) this.log.add(e, `${client} entered double barrier ${name} with only ${b.joined.size} of ${size} processes joined`);
        // A process whose session had already ended (it was paused, say, and has not heard
        // yet) has no node in the barrier: nobody waits for it to leave.
        if (!this.fates.isEnded(session)) b.inside.set(client, session);
        b.releasedAs.set(client, session);
        return;
      }
      case "leave":
        if (b.releasedAs.get(client) !== session) this.log.add(e, `${client} began to leave double barrier ${name} with session ${session}, which it was never released with (no 'entered')`);
        b.inside.delete(client);
        wait(b.leaving);
        return;
      case "left": {
        b.leaving.delete(client);
        const still = [...b.inside.keys()].filter((c) => c !== client);
        if (still.length > 0) this.log.add(e, `${client} left double barrier ${name} while ${still.join(", ")} had entered and not begun to leave (sessions alive)`);
        return;
      }
      default:
        return;
    }
  }

  private barrier(name: string): BarrierHistory {
    let b = this.barriers.get(name);
    if (b === undefined) {
      b = {
        lastRaisedUs: -1,
        lastLoweredUs: -1,
        downUs: -1,
        waitingSince: new Map(),
        joined: new Set(),
        releasedAs: new Map(),
        inside: new Map(),
        waiters: new Map(),
        entering: new Map(),
        leaving: new Map(),
        entered: false,
        size: 0,
        lastEventUs: 0,
      };
      this.barriers.set(name, b);
    }
    return b;
  }

  finish(end?: RunEnd): Violation[] {
    if (end === undefined) return this.log.violations;
    this.fates.endAt(end.atUs);
    if (this.fates.quietMs() < this.stallMs) return this.log.violations;
    const who = (waits: Map<string, Waiter>) => [...waits].map(([client, w]) => `${client} (since ${fmtMs(w.atUs)})`).join(", ");
    for (const [name, b] of this.barriers) {
      const idleMs = (this.fates.lastEventUs - b.lastEventUs) / 1000;
      if (idleMs < this.stallMs) continue;
      const quiet = `nothing happened at it for ${idleMs.toFixed(0)} ms of a quiet run`;
      if (b.downUs >= 0 && b.waiters.size > 0) this.log.add(end, `barrier ${name} is stuck: ${who(b.waiters)} wait with live sessions though it was down at ${fmtMs(b.downUs)}, and ${quiet}`);
      if (b.entering.size > 0 && (b.entered || b.entering.size >= b.size)) {
        const why = b.entered ? "someone entered it (its ready node exists)" : `${b.entering.size} of ${b.size} processes wait to enter`;
        this.log.add(end, `double barrier ${name} is stuck: ${who(b.entering)} wait to enter with live sessions though ${why}, and ${quiet}`);
      }
      if (b.leaving.size > 0 && b.inside.size === 0) this.log.add(end, `double barrier ${name} is stuck: ${who(b.leaving)} wait to leave with live sessions though every live process inside has begun to leave, and ${quiet}`);
    }
    return this.log.violations;
  }
}

const POLLING_KINDS = ["recipe.barrier", "client.invoke", "client.complete", "client.watch", "client.state"] as const;
type PollingKind = KindsOf<typeof POLLING_KINDS>;

/**
 * `recipe.barrier-polling`: a simple-barrier waiter reads the barrier node again only when
 * something told it to — a watch event delivered to its client (`client.watch` on the barrier
 * path), a change of its connection state (`client.state`: a disconnect wakes watchers), or its
 * previous read not answered ok (a retry). The first read of each wait is free. A read with none
 * of these before it is a poll: correct, but every waiter loads the servers for as long as the
 * barrier is up, which is what watches exist to avoid. Each waiter that polled is reported once
 * per wait, with its number of unprompted reads.
 */
export class BarrierPollingChecker implements Checker<PollingKind> {
  readonly name = "recipe.barrier-polling";
  readonly kinds = POLLING_KINDS;
  readonly log = new ViolationLog(this.name);
  /** Client node → its current wait at a simple barrier. */
  private readonly waits = new Map<string, { barrier: string; since: TraceEvent; prompted: boolean; polls: number; reads: Set<string> }>();

  onEvent(e: TraceEvent<PollingKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<PollingKind>): void {
    if (e.kind === "recipe.barrier") {
      const event = stringField(e, "event");
      if (event === "wait") this.waits.set(e.node, { barrier: stringField(e, "barrier"), since: e, prompted: true, polls: 0, reads: new Set() });
      else if (event === "passed") this.passed(e);
      return;
    }
    const w = this.waits.get(e.node);
    if (w === undefined) return;
    if (e.kind === "client.state") {
      w.prompted = true;
    } else if (e.kind === "client.watch") {
      if (optionalStringField(e, "path") === w.barrier) w.prompted = true;
    } else if (e.kind === "client.invoke") {
      const op = stringField(e, "op");
      if (optionalStringField(e, "path") !== w.barrier || (op !== "exists" && op !== "getData")) return;
      if (!w.prompted) w.polls++;
      w.prompted = false;
      w.reads.add(stringField(e, "opId"));
    } else if (w.reads.delete(stringField(e, "opId")) && optionalStringField(e, "outcome") !== "ok") {
      w.prompted = true;
    }
  }

  private passed(e: TraceEvent): void {
    const w = this.waits.get(e.node);
    this.waits.delete(e.node);
    if (w === undefined || w.polls === 0) return;
    this.log.add(
      e,
      `${e.node} polled barrier ${w.barrier}: ${w.polls} reads of it with no watch event, connection change or failed read before them, between its wait (event #${w.since.index}) and passing — a waiter should leave a watch and wait for it`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
