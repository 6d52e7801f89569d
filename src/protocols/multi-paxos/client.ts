/**
 * A Multi-Paxos client: a closed loop of puts (a fresh value each) and gets over a few keys
 * (a reader: gets only).
 * It sends each request to the replica it believes leads; a redirect names the leader (or not:
 * then the next replica), a silence of `requestTimeoutMs` moves on to the next replica, and the
 * same request (same reqId) is retried until some leader answers — through leader changes. Each
 * operation is annotated at its first send and at its answer (`multipaxos.client.*`): the
 * history the linearizability checker reads. An operation unanswered when the run ends stays
 * open: its outcome is unknown.
 *
 * A `scripted` client (the teaching UI's) starts no operation on its own: each one comes
 * through `submit`, one at a time, and is retried like the others.
 */
import type { NodeContext, Process, TimerHandle } from "../../world/index.js";
import { isMultiPaxosMessage } from "./messages.js";

export interface ClientConfig {
  replicas: readonly string[];
  keys: number;
  requestTimeoutMs: number;
  thinkMsMax: number;
  /** A reader only gets (a dashboard polling the store). */
  readOnly: boolean;
  /** No new operation starts after this (local ms). */
  stopAtMs: number;
  /** Operations come only through `submit` (no closed loop). */
  scripted?: boolean;
}

export class MultiPaxosClient implements Process {
  private reqId = 0;
  private target: number;
  private current: { reqId: number; op: "put" | "get"; key: string; value?: string } | undefined;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: ClientConfig,
  ) {
    this.target = ctx.rng.int(0, config.replicas.length - 1);
    if (config.scripted !== true) ctx.setTimerMs(ctx.rng.int(0, 300), () => this.next(), "client.think");
  }

  /** Starts an operation now (scripted clients); false while the previous one is unanswered. */
  submit(op: "put" | "get", key: string, value?: string): boolean {
    if (this.current !== undefined) return false;
    this.start(op, key, value ?? "");
    return true;
  }

  inspect(): Record<string, unknown> {
    return { role: "client", target: this.config.replicas[this.target], pending: this.current ?? null };
  }

  private next(): void {
    if (this.ctx.nowMs() >= this.config.stopAtMs) return;
    const rng = this.ctx.rng;
    const key = `k${rng.int(1, this.config.keys)}`;
    const put = !this.config.readOnly && rng.chance(0.5);
    this.start(put ? "put" : "get", key, `${this.ctx.id}-${this.reqId + 1}`);
  }

  private start(op: "put" | "get", key: string, value: string): void {
    this.reqId++;
    this.current = op === "put" ? { reqId: this.reqId, op, key, value } : { reqId: this.reqId, op, key };
    this.ctx.annotate("multipaxos.client.invoke", { client: this.ctx.id, ...this.current });
    this.send();
  }

  private send(): void {
    const c = this.current;
    if (c === undefined) return;
    this.ctx.send(this.config.replicas[this.target]!, { kind: "request", ...c });
    this.ctx.cancelTimer(this.timer);
    this.timer = this.ctx.setTimerMs(this.config.requestTimeoutMs, () => this.moveOn(), "client.timeout");
  }

  private moveOn(): void {
    this.target = (this.target + 1) % this.config.replicas.length;
    this.send();
  }

  onDatagram(from: string, m: unknown): void {
    if (!isMultiPaxosMessage(m) || this.current === undefined) return;
    if (m.kind === "redirect" && m.reqId === this.current.reqId && from === this.config.replicas[this.target]) {
      const i = m.leader === null ? -1 : this.config.replicas.indexOf(m.leader);
      this.ctx.cancelTimer(this.timer);
      this.timer = this.ctx.setTimerMs(10, () => (i >= 0 && i !== this.target ? ((this.target = i), this.send()) : this.moveOn()), "client.redirect");
      return;
    }
    if (m.kind !== "reply" || m.reqId !== this.current.reqId) return;
    const c = this.current;
    this.current = undefined;
    this.ctx.cancelTimer(this.timer);
    this.ctx.annotate("multipaxos.client.complete", { client: this.ctx.id, reqId: c.reqId, op: c.op, key: c.key, ...(c.op === "get" ? { value: m.value } : {}) });
    if (this.config.scripted === true) return;
    this.timer = this.ctx.setTimerMs(this.ctx.rng.int(0, this.config.thinkMsMax), () => this.next(), "client.think");
  }
}
