/**
 * A node's context: everything one incarnation of a process may do to the world. A context
 * belongs to one incarnation: after a crash every call on the old one is a no-op (sends vanish,
 * timers never fire), so a stale closure cannot act from beyond the grave.
 *
 * Times are the node's local clock (a clock fault may skew it); a timer's delay runs on that
 * clock. Random draws come from this incarnation's own named stream, so one component's draws
 * never shift another's.
 */
import type { Deferred } from "../base/deferred.js";
import type { AnnotationKind, TraceAnnotations } from "../sim/trace-schema.js";
import type { ConnectOptions, ConnectionHandlers, Endpoint } from "./network.js";
import type { NodeDisk } from "./disk.js";
import type { RandomStream } from "./random.js";

/** A pending timer as its owner keeps it: to cancel it, or to ask whether it already fired. */
export interface TimerHandle {
  readonly id: number;
  readonly label: string;
  readonly cancelled: boolean;
  readonly fired: boolean;
}

/** A process; it sets itself up in its constructor (listen, timers, disk reads). */
export interface Process {
  onDatagram?(from: string, payload: unknown): void;
}

export interface NodeContext {
  readonly id: string;
  /** Which life of the node this is (1 at first start, one more after each restart). */
  readonly incarnation: number;
  /** True while this incarnation is the node's current one and it has not crashed. */
  readonly alive: boolean;
  readonly disk: NodeDisk;
  /** This incarnation's random stream. */
  readonly rng: RandomStream;

  /** The node's local clock in microseconds. */
  nowUs(): number;
  /** The node's local clock in whole milliseconds (what Java's currentTimeMillis would say). */
  nowMs(): number;
  /** Fires `fn` after `delayUs` of local time (never, if the node crashes first). */
  setTimer(delayUs: number, fn: () => void, label?: string): TimerHandle;
  setTimerMs(delayMs: number, fn: () => void, label?: string): TimerHandle;
  cancelTimer(handle: TimerHandle | undefined): void;

  /** Sends a datagram (it may be lost, duplicated, reordered or delayed). */
  send(to: string, payload: unknown): void;
  /** Accepts connections on `port`; `onAccept` returns the handlers for each new connection. */
  listen(port: number, onAccept: (endpoint: Endpoint) => ConnectionHandlers): void;
  /** Stops accepting on `port` (established connections stay). */
  unlisten(port: number): void;
  /** Opens a connection; `onOpen`, or `onClose` with the reason, say how it went. */
  connect(to: string, port: number, handlers: ConnectionHandlers, options?: ConnectOptions): Endpoint;
  /** The IPv4 address node `nodeId` appears to connect from (ZooKeeper's `ip` ACL scheme). */
  addressOf(nodeId: string): string;

  /** A trace annotation: one of the kinds of `TraceAnnotations`, with that kind's fields. */
  annotate<K extends AnnotationKind>(kind: K, fields: TraceAnnotations[K], peer?: string): void;
  /**
   * A counter of this node kept across its restarts, for names its trace events must keep
   * unique over the whole run (a client's operation ids). Not for protocol state.
   */
  traceCounter(name: string): { last: number };
  /** A promise whose continuations run at the time it is resolved. */
  deferred<T>(): Deferred<T>;
  /** For user-level async code: resolves after `ms` of local time (never, if the node crashes). */
  sleepMs(ms: number): Promise<void>;
}
