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

/** One direction of a connection: the ids sent and not yet forgotten, in send order. */
interface Way {
  ids: number[];
  /** Messages below this id were forgotten undelivered when a later one arrived. */
  forgottenBelow: number;
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
  /** Connection → receiving node → the last message id delivered to it there. */
  private readonly lastDelivered = new Map<number, Map<string, number>>();
  private readonly sentOn = new Map<number, Sent>();
  /** `conn>receiver` → the ids sent that way and not yet forgotten, in send order. */
  private readonly ways = new Map<string, Way>();

  onEvent(e: TraceEvent<Kind>): void {
    // Datagrams (no connection) promise no order.
    if (e.conn === undefined) return;
    try {
      if (e.kind === "send" || e.kind === "deliver") this.onSegment(e, e.conn, idOf(e), peerOf(e));
      else if (e.kind === "drop") this.onDrop(`${e.conn}>${e.node}`, idOf(e));
      else this.onClose(e.conn, e.node, peerOf(e));
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  /** The kernel dropped message `id` on its way (in order: segments are taken in sequence). */
  private onDrop(key: string, id: number): void {
    this.sentOn.delete(id);
    const way = this.ways.get(key);
    if (way !== undefined && way.ids[0] === id) way.ids.shift();
  }

  /** One end closed: nothing more is delivered to it; what it sent is delivered or dropped. */
  private onClose(conn: number, node: string, peer: string): void {
    this.ways.delete(`${conn}>${node}`);
    this.ways.delete(`${conn}>${peer}`);
    const byReceiver = this.lastDelivered.get(conn);
    if (byReceiver === undefined) return;
    byReceiver.delete(node);
    if (byReceiver.size === 0) this.lastDelivered.delete(conn);
  }

  private onSegment(e: TraceEvent, conn: number, id: number, peer: string): void {
    if (e.kind === "send") {
      this.sentOn.set(id, { conn, from: e.node, to: peer });
      const key = `${conn}>${peer}`;
      const way = this.ways.get(key);
      if (way === undefined) this.ways.set(key, { ids: [id], forgottenBelow: -1 });
      else way.ids.push(id);
      return;
    }
    if (e.kind !== "deliver") return;
    const way = this.ways.get(`${conn}>${e.node}`);
    const overtaken = way !== undefined && id < way.forgottenBelow;
    if (way !== undefined) forgetUpTo(way, id, this.sentOn);
    const sent = this.sentOn.get(id);
    // An overtaken message was forgotten when a later one arrived: the order check below reports it.
    const forgotten = overtaken && sent === undefined;
    if (!forgotten && (sent === undefined || sent.conn !== conn || sent.from !== peer || sent.to !== e.node)) {
      const was = sent === undefined ? "never sent" : `sent as ${sent.conn}:${sent.from}>${sent.to}`;
      this.log.add(e, `message ${id} delivered on connection ${conn} (${peer} → ${e.node}) but it was ${was}`);
    }
    this.sentOn.delete(id);
    let byReceiver = this.lastDelivered.get(conn);
    if (byReceiver === undefined) this.lastDelivered.set(conn, (byReceiver = new Map()));
    const last = byReceiver.get(e.node);
    if (last !== undefined && id <= last) {
      this.log.add(e, `connection ${conn} ${peer} → ${e.node} delivered message ${id} after message ${last}: FIFO order broken`);
    }
    byReceiver.set(e.node, id);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
