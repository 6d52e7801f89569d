/**
 * A client of a commit coordinator: it submits its transactions one at a time ("begin"), resends
 * the request until the coordinator answers ("result"), and only then starts its next one. A
 * client whose coordinator is down or undecided waits: the book's blocking, seen from outside.
 *
 * The plan is volatile: a crashed client does not resume it (clients drive the story; they are
 * not part of the protocol). Transaction ids are `<client>-<n>`, with the incarnation added
 * after a restart so that ids never repeat.
 */
import type { NodeContext, TimerHandle } from "../../sim/node-context.js";
import type { TxnRequest, Value } from "./config.js";

export interface PlannedTxn {
  atMs: number;
  key: string;
  value: Value;
  noVoteFrom: string[];
}

export type ClientMessage = { kind: "begin" } & TxnRequest;
export interface ResultMessage {
  kind: "result";
  txn: string;
  outcome: string;
}

export class CommitClient {
  private next = 0;
  private current: TxnRequest | undefined;
  private startedAtMs = 0;
  private retry: TimerHandle | undefined;
  private readonly results: { txn: string; outcome: string }[] = [];

  constructor(
    private readonly ctx: NodeContext,
    private readonly protocol: "2pc" | "3pc",
    private readonly coordinator: string,
    private readonly plan: readonly PlannedTxn[],
    private readonly retryMs: number,
  ) {
    if (ctx.incarnation <= 1) this.scheduleNext();
  }

  onDatagram(_from: string, payload: unknown): void {
    const m = payload as ResultMessage;
    if (m.kind !== "result" || this.current === undefined || m.txn !== this.current.txn) return;
    this.ctx.cancelTimer(this.retry);
    this.ctx.annotate(`${this.protocol}.result`, { txn: m.txn, outcome: m.outcome, waitedMs: this.ctx.nowMs() - this.startedAtMs });
    this.results.push({ txn: m.txn, outcome: m.outcome });
    this.current = undefined;
    this.scheduleNext();
  }

  inspect(): object {
    return { role: "client", waitingFor: this.current?.txn ?? null, sinceMs: this.current ? this.startedAtMs : null, results: this.results.slice() };
  }

  private scheduleNext(): void {
    const spec = this.plan[this.next];
    if (spec === undefined) return;
    this.ctx.setTimerMs(Math.max(0, spec.atMs - this.ctx.nowMs()), () => this.submit(spec), "txn");
  }

  private submit(spec: PlannedTxn): void {
    const n = ++this.next;
    const txn = this.ctx.incarnation <= 1 ? `${this.ctx.id}-${n}` : `${this.ctx.id}/${this.ctx.incarnation}-${n}`;
    this.current = { txn, key: spec.key, value: spec.value, noVoteFrom: spec.noVoteFrom };
    this.startedAtMs = this.ctx.nowMs();
    this.ctx.annotate(`${this.protocol}.request`, { txn, key: spec.key, value: spec.value });
    this.send();
  }

  private send(): void {
    if (this.current === undefined) return;
    const msg: ClientMessage = { kind: "begin", ...this.current };
    this.ctx.send(this.coordinator, msg);
    this.retry = this.ctx.setTimerMs(this.retryMs, () => this.send(), "client-retry");
  }
}
