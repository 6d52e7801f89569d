/**
 * The simulator's implementation of the world a process sees (src/world/: its local clock,
 * timers, a random stream, datagrams, connections, its disk and the trace). Protocol code
 * depends on those interfaces only; the real-time runtime (src/runtime/) is the other
 * implementation.
 *
 * A context belongs to one incarnation of a node. After a crash every call on the old context
 * is a no-op (sends vanish, timers never fire), so stale closures cannot act from beyond the
 * grave.
 */
import type { Rng } from "./rng.js";
import type { SimEvent, SimNode, Simulator, Deferred } from "./simulator.js";
import type { ConnectionHandlers, ConnectOptions, Endpoint } from "./network.js";
import type { NodeDisk } from "./disk.js";
import type { AnnotationKind, TraceAnnotations } from "./trace-schema.js";
import type * as world from "../world/index.js";
import type { Process } from "../world/process.js";

export type { Process } from "../world/process.js";

/** Builds a node's process; any object will do (a process with no datagram handler is common). */
export type ProcessFactory = (ctx: NodeContext) => Process | object;

export class TimerHandle implements world.TimerHandle {
  cancelled = false;
  fired = false;
  /** The node's local clock reading at which it fires (a clock-rate change re-times it: Simulator.setClockRate). */
  deadlineLocalUs = 0;
  constructor(
    readonly id: number,
    readonly label: string,
    readonly ctx: NodeContext,
    readonly fn: () => void,
  ) {}
}

function fireTimer(ev: SimEvent): void {
  const handle = ev.a as TimerHandle;
  if (handle.cancelled) return;
  handle.fired = true;
  const ctx = handle.ctx;
  ctx.sim.trace.record(ctx.sim.nowUs, "timer", ctx.id, undefined, handle.id, handle.label);
  handle.fn();
}

/** The timer a pending kernel event fires, or undefined for other events (the stepping interface lists timers). */
export function pendingTimer(ev: SimEvent): TimerHandle | undefined {
  return ev.fn === fireTimer ? (ev.a as TimerHandle) : undefined;
}

export class NodeContext implements world.NodeContext {
  readonly id: string;
  readonly incarnation: number;
  private rngStream: Rng | undefined;
  readonly disk: NodeDisk;

  constructor(
    readonly sim: Simulator,
    readonly node: SimNode,
  ) {
    this.id = node.id;
    this.incarnation = node.incarnation;
    this.disk = node.disk.viewFor(this);
  }

  /** True while this incarnation is the node's current one and it has not crashed. */
  get alive(): boolean {
    return this.node.incarnation === this.incarnation && this.node.status !== "down";
  }

  /** The node's local clock in microseconds (skewed if a clock fault is active). */
  nowUs(): number {
    return this.sim.localNowUs(this.node);
  }

  /** The node's local clock in whole milliseconds (what Java's currentTimeMillis would say). */
  nowMs(): number {
    return Math.floor(this.sim.localNowUs(this.node) / 1000);
  }

  /** This incarnation's random stream (`node/<id>/<incarnation>`). */
  get rng(): Rng {
    if (this.rngStream === undefined) this.rngStream = this.sim.rng.fork(`node/${this.id}/${this.incarnation}`);
    return this.rngStream;
  }

  /** Draws this incarnation's stream has given (0 before its first): with its name, the stream's state. */
  get randomDraws(): number {
    return this.rngStream?.draws ?? 0;
  }

  /** Fires `fn` after `delayUs` of this node's local time (never, if the node crashes first). */
  setTimer(delayUs: number, fn: () => void, label = "timer"): TimerHandle {
    const handle = new TimerHandle(this.sim.nextTimerId(), label, this, fn);
    if (!this.alive) {
      handle.cancelled = true;
      return handle;
    }
    const delay = Math.max(0, Math.ceil(delayUs));
    handle.deadlineLocalUs = this.sim.localNowUs(this.node) + delay;
    this.sim.scheduleOnNode(this.node, this.sim.nowUs + this.sim.trueDelayUs(this.node, delay), fireTimer, handle);
    return handle;
  }

  setTimerMs(delayMs: number, fn: () => void, label = "timer"): TimerHandle {
    return this.setTimer(delayMs * 1000, fn, label);
  }

  /** Cancels a timer of this world (a handle of another world's is none of its timers). */
  cancelTimer(handle: world.TimerHandle | undefined): void {
    if (handle instanceof TimerHandle) handle.cancelled = true;
  }

  /** Sends a datagram (may be lost, duplicated, reordered, delayed; see NetworkConfig). */
  send(to: string, payload: unknown): void {
    if (!this.alive) return;
    this.sim.network.sendDatagram(this.node, to, payload);
  }

  /** Accepts connections on `port`; `onAccept` returns the handlers for the new connection. */
  listen(port: number, onAccept: (endpoint: Endpoint) => ConnectionHandlers): void {
    if (!this.alive) return;
    this.sim.network.listen(this.node, port, onAccept);
  }

  /** Stops accepting connections on `port` (established ones stay). */
  unlisten(port: number): void {
    if (!this.alive) return;
    this.sim.network.unlisten(this.node, port);
  }

  /** Opens a connection; `onOpen` / `onClose("refused" | "timeout" | …)` say how it went. */
  connect(to: string, port: number, handlers: ConnectionHandlers, options: ConnectOptions = {}): Endpoint {
    return this.sim.network.connect(this.node, this.incarnation, to, port, handlers, options);
  }

  /**
   * The IPv4 address a node appears to connect from (`10.0.<i/250>.<i%250+1>` by index), for
   * protocols that identify peers by address (ZooKeeper's `ip` ACL scheme).
   */
  addressOf(nodeId: string): string {
    const i = this.sim.node(nodeId).index;
    return `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  }

  /**
   * A trace annotation from a higher layer (role change, commit, client op…): one of the kinds
   * of `TraceAnnotations` (sim/trace-schema.ts), with that kind's fields.
   */
  annotate<K extends AnnotationKind>(kind: K, fields: TraceAnnotations[K], peer?: string): void {
    if (!this.alive) return;
    this.sim.trace.annotation(this.sim.nowUs, kind, this.id, this.node.idHash, fields, peer);
  }

  /**
   * A counter of this node kept across its restarts, for names its trace events must keep
   * unique over the whole run (a client's operation ids). Not for protocol state, which a
   * crash loses.
   */
  traceCounter(name: string): { last: number } {
    let counter = this.node.traceCounters.get(name);
    if (counter === undefined) this.node.traceCounters.set(name, (counter = { last: 0 }));
    return counter;
  }

  /** A promise whose continuations run at the virtual time it is resolved. */
  deferred<T>(): Deferred<T> {
    return this.sim.deferred<T>();
  }

  /** For user-level async code: resolves after `ms` of local time (never, if the node crashes). */
  sleepMs(ms: number): Promise<void> {
    const d = this.sim.deferred<void>();
    this.setTimerMs(ms, () => d.resolve(), "sleep");
    return d.promise;
  }
}
