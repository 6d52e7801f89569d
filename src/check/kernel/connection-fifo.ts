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
 * forgotten, in send order, and the last id delivered there.
 */
interface Way {
  ids: number[];
  /** Messages below this id were forgotten undelivered when a later one arrived. */
  forgottenBelow: number;
  /** The last message id delivered to this end (undefined: none since it opened). */
  lastDelivered: number | undefined;
}

/** Forgets the messages of `way` up to `id`: delivered, or never deliverable in order any more. */
function forgetUpTo(way: Way, id: number, sentOn: Map<number, Sent>): void {
  const ids = way.ids;
  let k = 0;
  while (k < ids.length && ids[k]! < id) sentOn.delete(ids[k++]!);
  if (k > 0) way.forgottenBelow = Math.max(way.forgottenBelow, id);
  if (k < ids.length && ids[k] === id) k++;
  if (k > 0) ids.splice(0, k);
}

/** Segments, and the events that close one end of a connection (`conn.close` by the process, the others by the network). */
const KINDS = ["send", "deliver", "drop", "conn.close", "conn.closed", "conn.reset", "conn.refused", "conn.timeout"] as const;
type Kind = KindsOf<typeof KINDS>;

export class ConnectionFifoChecker implements Checker<Kind> {
  readonly name = "kernel.connection-fifo";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly sentOn = new Map<number, Sent>();
  /**
   * Connection number → receiving node → its way. Keyed by the connection's number and the
   * node's name as the trace holds it: no key string is built per message.
   */
  private readonly ways = new Map<number, Map<string, Way>>();

  onEvent(e: TraceEvent<Kind>): void {
    // Datagrams (no connection) promise no order.
    if (e.conn === undefined) return;
    try {
      if (e.kind === "send" || e.kind === "deliver") this.onSegment(e, e.conn, idOf(e), peerOf(e));
      else if (e.kind === "drop") this.onDrop(e.conn, e.node, idOf(e));
      else this.onClose(e.conn, e.node, peerOf(e));
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  private way(conn: number, receiver: string): Way {
    let byReceiver = this.ways.get(conn);
    if (byReceiver === undefined) this.ways.set(conn, (byReceiver = new Map()));
    let way = byReceiver.get(receiver);
    if (way === undefined) byReceiver.set(receiver, (way = { ids: [], forgottenBelow: -1, lastDelivered: undefined }));
    return way;
  }

  /** The kernel dropped message `id` on its way (in order: segments are taken in sequence). */
  private onDrop(conn: number, receiver: string, id: number): void {
    this.sentOn.delete(id);
    const way = this.ways.get(conn)?.get(receiver);
    if (way !== undefined && way.ids[0] === id) way.ids.shift();
  }

  /**
   * One end closed: nothing more is delivered to it; what it sent is delivered or dropped. Both
   * directions forget their messages; the peer's end keeps its last delivered id.
   */
  private onClose(conn: number, node: string, peer: string): void {
    const byReceiver = this.ways.get(conn);
    if (byReceiver === undefined) return;
    byReceiver.delete(node);
    const other = byReceiver.get(peer);
    if (other !== undefined) {
      if (other.lastDelivered === undefined) byReceiver.delete(peer);
      else {
        other.ids = [];
        other.forgottenBelow = -1;
      }
    }
    if (byReceiver.size === 0) this.ways.delete(conn);
  }

  private onSegment(e: TraceEvent, conn: number, id: number, peer: string): void {
    if (e.kind === "send") {
      this.sentOn.set(id, { conn, from: e.node, to: peer });
      this.way(conn, peer).ids.push(id);
      return;
    }
    if (e.kind !== "deliver") return;
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
