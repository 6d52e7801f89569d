/**
 * Connection FIFO: on every connection, each direction delivers messages in the order they
 * were sent. Message ids are assigned at send time in increasing order, so per (connection,
 * receiver) the delivered ids must increase; and nothing may be delivered that was not sent
 * on that connection by the other end.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation } from "../checker.js";

export class ConnectionFifoChecker implements Checker {
  readonly name = "kernel.connection-fifo";
  private readonly log = new ViolationLog(this.name);
  private readonly lastDelivered = new Map<string, number>();
  private readonly sentOn = new Map<number, string>();

  accepts(kind: string): boolean {
    return kind === "send" || kind === "deliver";
  }

  onEvent(e: TraceEvent): void {
    if (e.conn === undefined || e.id === undefined) return;
    if (e.kind === "send") {
      this.sentOn.set(e.id, `${e.conn}:${e.node}>${e.peer}`);
      return;
    }
    if (e.kind !== "deliver") return;
    const key = `${e.conn}:${e.peer}>${e.node}`;
    const sent = this.sentOn.get(e.id);
    if (sent !== key) {
      this.log.add(e, `message ${e.id} delivered on connection ${e.conn} (${e.peer} → ${e.node}) but it was ${sent === undefined ? "never sent" : `sent as ${sent}`}`);
    }
    this.sentOn.delete(e.id);
    const last = this.lastDelivered.get(key);
    if (last !== undefined && e.id <= last) {
      this.log.add(e, `connection ${e.conn} ${e.peer} → ${e.node} delivered message ${e.id} after message ${last}: FIFO order broken`);
    }
    this.lastDelivered.set(key, e.id);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
