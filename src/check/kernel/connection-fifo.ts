/**
 * Connection FIFO: on every connection, each direction delivers messages in the order they
 * were sent. Message ids are assigned at send time in increasing order, so per (connection,
 * receiver) the delivered ids must increase; and nothing may be delivered that was not sent
 * on that connection by the other end.
 *
 * Bounded state: a sent message is forgotten when it is delivered, when the kernel drops it
 * (`drop` on its connection), or when a later message of the same direction is delivered (it
 * can then never be delivered in order; if it is, the order check reports it). A receiver's
 * last delivered id is forgotten when its end of the connection closes (what reaches a closed
 * end is dropped).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { idOf, peerOf, reportMalformed } from "../event-reader.js";

/** Where a message was sent: its connection and its two ends. */
interface Sent {
  conn: number;
  from: string;
  to: string;
}

/**
 * One direction of a connection, by its receiving end: the ids sent that way and not yet
 * forgotten, in send order, and the last id delivered there. It also says where its messages
 * were sent: the connection, its receiver and the node that sent on it first.
 */
interface Way {
  readonly conn: number;
  /** The node that sent on this way first (undefined until one did). */
  from: string | undefined;
  readonly to: string;
  /** The ids sent this way and not forgotten, from `head` on (a queue: no array is made per delivery). */
  ids: number[];
  head: number;
  /** Messages below this id were forgotten undelivered when a later one arrived. */
  forgottenBelow: number;
  /** The last message id delivered to this end (undefined: none since it opened). */
  lastDelivered: number | undefined;
}

/**
 * The ways of one connection, by receiving end: a connection has two ends, so two slots; a
 * third receiver (only in a malformed trace) goes to `more`.
 */
interface ConnWays {
  a: Way | undefined;
  b: Way | undefined;
  more: Map<string, Way> | undefined;
}

/** How many consecutive message ids `IdMap` holds in its array. */
const ID_WINDOW = 1024;
const ID_MASK = ID_WINDOW - 1;

/**
 * A map by message id, as a `Map` would be, for ids that mostly come in increasing order and
 * are forgotten soon: the latest `ID_WINDOW` ids in a ring array (no hashing), any other id
 * (older, not an integer, ≥ 2^32) in a map. Ids the window slides past move to the map.
 */
class IdMap<V> {
  private readonly slots: (V | undefined)[] = new Array<V | undefined>(ID_WINDOW).fill(undefined);
  /** The window holds ids base … base + ID_WINDOW − 1. */
  private base = 0;
  private readonly far = new Map<number, V>();

  private inWindow(id: number): boolean {
    return id >>> 0 === id && id >= this.base && id < this.base + ID_WINDOW;
  }

  get(id: number): V | undefined {
    return this.inWindow(id) ? this.slots[id & ID_MASK] : this.far.get(id);
  }

  set(id: number, value: V): void {
    if (id >>> 0 !== id || id < this.base) this.far.set(id, value);
    else {
      if (id >= this.base + ID_WINDOW) this.slide(id - ID_WINDOW + 1);
      this.slots[id & ID_MASK] = value;
    }
  }

  delete(id: number): void {
    if (this.inWindow(id)) this.slots[id & ID_MASK] = undefined;
    else this.far.delete(id);
  }

  /** Moves the window to start at `base`: what it held below moves to the map. */
  private slide(base: number): void {
    const end = Math.min(base, this.base + ID_WINDOW);
    for (let id = this.base; id < end; id++) {
      const v = this.slots[id & ID_MASK];
      if (v !== undefined) {
        this.far.set(id, v);
        this.slots[id & ID_MASK] = undefined;
      }
    }
    this.base = base;
  }
}

/** Drops the way's ids before `head` once they are half of its array (amortised O(1) a message). */
function compact(way: Way): void {
  if (way.head > 16 && way.head * 2 > way.ids.length) {
    way.ids = way.ids.slice(way.head);
    way.head = 0;
  }
}

/**
 * Forgets the messages of `way` up to `id`: delivered, or never deliverable in order any more
 * (their sends too).
 */
function forgetUpTo(way: Way, id: number, sentOn: IdMap<Way | Sent>): void {
  const ids = way.ids;
  const first = way.head;
  let k = first;
  while (k < ids.length && ids[k]! < id) sentOn.delete(ids[k++]!);
  if (k > first) way.forgottenBelow = Math.max(way.forgottenBelow, id);
  if (k < ids.length && ids[k] === id) k++;
  if (k > first) {
    way.head = k;
    compact(way);
  }
}

/** Segments, and the events that close one end of a connection (`conn.close` by the process, the others by the network). */
const KINDS = ["send", "deliver", "drop", "conn.close", "conn.closed", "conn.reset", "conn.refused", "conn.timeout"] as const;
type Kind = KindsOf<typeof KINDS>;

export class ConnectionFifoChecker implements Checker<Kind> {
  readonly name = "kernel.connection-fifo";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /**
   * Message id → where it was sent: its way when the way's first sender sent it (no object per
   * message), else a `Sent` of its own (a second sender on one way: only in a malformed trace).
   */
  private readonly sentOn = new IdMap<Way | Sent>();
  /**
   * Connection number → its ways by receiving end. Keyed by the connection's number (numbered
   * in opening order, so mostly in the ring array: no hashing) and the node's name as the trace
   * holds it: no key string is built per message.
   */
  private readonly ways = new IdMap<ConnWays>();

  onEvent(e: TraceEvent<Kind>): void {
    // Datagrams (no connection) promise no order.
    if (e.conn === undefined) return;
    try {
      if (e.kind === "send") this.onSend(e.conn, e.node, idOf(e), peerOf(e));
      else if (e.kind === "deliver") this.onDeliver(e, e.conn, idOf(e), peerOf(e));
      else if (e.kind === "drop") this.onDrop(e.conn, e.node, idOf(e));
      else this.onClose(e.conn, e.node, peerOf(e));
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  /** The way of `receiver` on `conn`, if open. */
  private find(conn: number, receiver: string): Way | undefined {
    const c = this.ways.get(conn);
    if (c === undefined) return undefined;
    if (c.a !== undefined && c.a.to === receiver) return c.a;
    if (c.b !== undefined && c.b.to === receiver) return c.b;
    return c.more?.get(receiver);
  }

  private way(conn: number, receiver: string): Way {
    let c = this.ways.get(conn);
    if (c === undefined) this.ways.set(conn, (c = { a: undefined, b: undefined, more: undefined }));
    if (c.a !== undefined && c.a.to === receiver) return c.a;
    if (c.b !== undefined && c.b.to === receiver) return c.b;
    let way = c.more?.get(receiver);
    if (way !== undefined) return way;
    way = { conn, from: undefined, to: receiver, ids: [], head: 0, forgottenBelow: -1, lastDelivered: undefined };
    if (c.a === undefined) c.a = way;
    else if (c.b === undefined) c.b = way;
    else (c.more ??= new Map()).set(receiver, way);
    return way;
  }

  /** Forgets the way of `receiver` on `conn`, if it has one; the connection's entry goes with its last way. */
  private forget(conn: number, c: ConnWays, receiver: string): void {
    if (c.a !== undefined && c.a.to === receiver) c.a = undefined;
    else if (c.b !== undefined && c.b.to === receiver) c.b = undefined;
    else c.more?.delete(receiver);
    if (c.a === undefined && c.b === undefined && (c.more === undefined || c.more.size === 0)) this.ways.delete(conn);
  }

  /** The kernel dropped message `id` on its way (in order: segments are taken in sequence). */
  private onDrop(conn: number, receiver: string, id: number): void {
    this.sentOn.delete(id);
    const way = this.find(conn, receiver);
    if (way !== undefined && way.ids[way.head] === id) {
      way.head++;
      compact(way);
    }
  }

  /**
   * One end closed: nothing more is delivered to it; what it sent is delivered or dropped. Both
   * directions forget their messages; the peer's end keeps its last delivered id.
   */
  private onClose(conn: number, node: string, peer: string): void {
    const c = this.ways.get(conn);
    if (c === undefined) return;
    this.forget(conn, c, node);
    const other = this.find(conn, peer);
    if (other !== undefined) {
      if (other.lastDelivered === undefined) this.forget(conn, c, peer);
      else {
        other.ids = [];
        other.head = 0;
        other.forgottenBelow = -1;
      }
    }
  }

  private onSend(conn: number, from: string, id: number, to: string): void {
    const way = this.way(conn, to);
    way.from ??= from;
    this.sentOn.set(id, way.from === from ? way : { conn, from, to });
    way.ids.push(id);
  }

  private onDeliver(e: TraceEvent, conn: number, id: number, peer: string): void {
    const way = this.way(conn, e.node);
    const overtaken = id < way.forgottenBelow;
    forgetUpTo(way, id, this.sentOn);
    const sent = this.sentOn.get(id);
    // An overtaken message was forgotten when a later one arrived: the order check below reports it.
    const forgotten = overtaken && sent === undefined;
    if (!forgotten && (sent === undefined || sent.conn !== conn || sent.from !== peer || sent.to !== e.node)) {
      const was = sent === undefined ? "never sent" : `sent as ${sent.conn}:${sent.from}>${sent.to}`;
      this.log.add(e, `message ${id} delivered on connection ${conn} (${peer} → ${e.node}) but it was ${was}`);
    }
    this.sentOn.delete(id);
    const last = way.lastDelivered;
    if (last !== undefined && id <= last) {
      this.log.add(e, `connection ${conn} ${peer} → ${e.node} delivered message ${id} after message ${last}: FIFO order broken`);
    }
    way.lastDelivered = id;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
