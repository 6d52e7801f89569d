/**
 * `recipe.barrier`: barrier semantics, from `recipe.barrier` annotations and session facts.
 *
 * - Simple barrier: a waiter passes only if the barrier was lowered after the last raise that
 *   completed before it began waiting (`wait` → `passed` with no `lowered` since that raise is
 *   a violation).
 * - Double barrier, enter: a process is released (`entered`) only once `size` distinct
 *   processes have joined (`enter`).
 * - Double barrier, leave: a process finishes leaving (`left`) only when every process that
 *   entered has begun to leave (`leave`), its session has ended, or its node has crashed —
 *   nobody walks out while another is still computing.
 */
import type { Checker, Violation } from "../checker.js";
import { ViolationLog, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { SessionFates } from "./sessions.js";
import { guarded, intField, optionalStringField, stringField } from "../event-reader.js";

interface BarrierHistory {
  lastRaisedUs: number;
  lastLoweredUs: number;
  waitingSince: Map<string, number>;
  joined: Set<string>;
  inside: Map<string, string>;
}

const BARRIER_KINDS = ["recipe.barrier", ...SessionFates.KINDS] as const;
type BarrierKind = KindsOf<typeof BARRIER_KINDS>;

export class BarrierChecker implements Checker<BarrierKind> {
  readonly name = "recipe.barrier";
  readonly kinds = BARRIER_KINDS;
  private readonly log = new ViolationLog(this.name);
  private readonly fates = new SessionFates();
  private readonly barriers = new Map<string, BarrierHistory>();

  onEvent(e: TraceEvent<BarrierKind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<BarrierKind>): void {
    const fate = this.fates.onEvent(e);
    if (fate !== undefined) {
      for (const b of this.barriers.values()) {
        for (const [client, session] of [...b.inside]) if (fate.kind === "session-ended" ? session === fate.session : client === fate.client) b.inside.delete(client);
      }
      return;
    }
    if (e.kind !== "recipe.barrier") return;
    const name = stringField(e, "barrier");
    const client = stringField(e, "client");
    const event = stringField(e, "event");
    const b = this.barrier(name);
    switch (event) {
      case "raised":
        b.lastRaisedUs = e.atUs;
        return;
      case "lowered":
        b.lastLoweredUs = e.atUs;
        return;
      case "wait":
        b.waitingSince.set(client, b.lastRaisedUs);
        return;
      case "passed": {
        const raisedUs = b.waitingSince.get(client) ?? -1;
        if (raisedUs >= 0 && b.lastLoweredUs < raisedUs) this.log.add(e, `${client} passed barrier ${name}, which was raised and has not been lowered since`);
        return;
      }
      case "enter":
        b.joined.add(client);
        return;
      case "entered": {
        const size = intField(e, "size");
        const session = stringField(e, "session");
        if (b.joined.size < size) this.log.add(e, `${client} entered double barrier ${name} with only ${b.joined.size} of ${size} processes joined`);
        // A process whose session had already ended (it was paused, say, and has not heard
        // yet) has no node in the barrier: nobody waits for it to leave.
        if (!this.fates.isEnded(session)) b.inside.set(client, session);
        return;
      }
      case "leave":
        b.inside.delete(client);
        return;
      case "left": {
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
      b = { lastRaisedUs: -1, lastLoweredUs: -1, waitingSince: new Map(), joined: new Set(), inside: new Map() };
      this.barriers.set(name, b);
    }
    return b;
  }

  finish(): Violation[] {
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
  private readonly log = new ViolationLog(this.name);
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
