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
 * Identity across restarts: a client's request ids live in its memory, so a restarted client
 * would reuse them, and a replica's duplicate detection (the last request id of each client)
 * would answer its new put from the cache without applying it. As real systems do (Chubby's
 * sessions, Raft's client registration), a restarted client is a new client: its identity is
 * its node name and incarnation ("c1/3"; the first incarnation is plain "c1"), carried in each
 * request and echoed in each answer, so an answer meant for a previous incarnation — a datagram
 * still on the wire across the restart — is not taken for its own.
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
  /** The broken twin `restart-reuses-ids`: the node name alone, in every incarnation. */
  reuseIdentity?: boolean;
}

export class MultiPaxosClient implements Process {
  /** Who the replicas know this client as: its node, and its incarnation after a restart. */
  readonly clientId: string;
  private reqId = 0;
  private target: number;
  private current: { reqId: number; op: "put" | "get"; key: string; value?: string } | undefined;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: ClientConfig,
  ) {
    this.clientId = ctx.incarnation <= 1 || config.reuseIdentity === true ? ctx.id : `${ctx.id}/${ctx.incarnation}`;
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
    this.start(put ? "put" : "get", key, `${this.clientId}-${this.reqId + 1}`);
  }

  private start(op: "put" | "get", key: string, value: string): void {
    this.reqId++;
    this.current = op === "put" ? { reqId: this.reqId, op, key, value } : { reqId: this.reqId, op, key };
    this.ctx.annotate("multipaxos.client.invoke", { client: this.clientId, ...this.current });
    this.send();
  }

  private send(): void {
    const c = this.current;
    if (c === undefined) return;
    this.ctx.send(this.config.replicas[this.target]!, { kind: "request", client: this.clientId, ...c });
    this.ctx.cancelTimer(this.timer);
    this.timer = this.ctx.setTimerMs(this.config.requestTimeoutMs, () => this.moveOn(), "client.timeout");
  }

  private moveOn(): void {
    this.target = (this.target + 1) % this.config.replicas.length;
    this.send();
  }

  onDatagram(from: string, m: unknown): void {
    if (!isMultiPaxosMessage(m) || this.current === undefined || (m.kind !== "reply" && m.kind !== "redirect") || m.client !== this.clientId) return;
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
    this.ctx.annotate("multipaxos.client.complete", { client: this.clientId, reqId: c.reqId, op: c.op, key: c.key, ...(c.op === "get" ? { value: m.value } : {}) });
    if (this.config.scripted === true) return;
    this.timer = this.ctx.setTimerMs(this.ctx.rng.int(0, this.config.thinkMsMax), () => this.next(), "client.think");
  }
}
