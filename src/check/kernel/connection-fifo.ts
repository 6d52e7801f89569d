/**
 * Connection FIFO: on every connection, each direction delivers messages in the order they
 * were sent. Message ids are assigned at send time in increasing order, so per (connection,
 * receiver) the delivered ids must increase; and nothing may be delivered that was not sent
 * on that connection by the other end.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation } from "../checker.js";
import { idOf, peerOf, reportMalformed } from "../event-reader.js";

/** Where a message was sent: its connection and its two ends. */
interface Sent {
  conn: number;
  from: string;
  to: string;
}

export class ConnectionFifoChecker implements Checker {
  readonly name = "kernel.connection-fifo";
  private readonly log = new ViolationLog(this.name);
  /** Connection → receiving node → the last message id delivered to it there. */
  private readonly lastDelivered = new Map<number, Map<string, number>>();
  private readonly sentOn = new Map<number, Sent>();

  accepts(kind: string): boolean {
    return kind === "send" || kind === "deliver";
  }

  onEvent(e: TraceEvent): void {
    // Datagrams (no connection) promise no order.
    if (e.conn === undefined) return;
    try {
      this.onSegment(e, e.conn, idOf(e), peerOf(e));
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  private onSegment(e: TraceEvent, conn: number, id: number, peer: string): void {
    if (e.kind === "send") {
      this.sentOn.set(id, { conn, from: e.node, to: peer });
      return;
    }
    if (e.kind !== "deliver") return;
    const sent = this.sentOn.get(id);
    if (sent === undefined || sent.conn !== conn || sent.from !== peer || sent.to !== e.node) {
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
