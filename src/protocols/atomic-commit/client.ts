/**
 * A client of a commit coordinator: it submits its transactions one at a time ("begin"), resends
 * the request until the coordinator answers ("result"), and only then starts its next one. A
 * client whose coordinator is down or undecided waits: the book's blocking, seen from outside.
 *
 * The plan is volatile: a crashed client does not resume it (clients drive the story; they are
 * not part of the protocol). `submit` adds a transaction to the plan while the run goes (the
 * teaching UI's client action); it starts once the ones before it have their outcome. Transaction ids are `<client>-<n>`, with the incarnation added
 * after a restart so that ids never repeat.
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
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
  private readonly plan: PlannedTxn[];
  /** A transaction of the plan is waiting for its start time (its timer is set). */
  private starting = false;

  constructor(
    private readonly ctx: NodeContext,
    private readonly protocol: "2pc" | "3pc",
    private readonly coordinator: string,
    plan: readonly PlannedTxn[],
    private readonly retryMs: number,
  ) {
    this.plan = [...plan];
    if (ctx.incarnation <= 1) this.scheduleNext();
  }

  /** Adds a transaction at the end of the plan; it starts now if nothing is in flight or due. */
  submit(spec: PlannedTxn): void {
    this.plan.push(spec);
    if (this.current === undefined && !this.starting && this.next === this.plan.length - 1) this.scheduleNext();
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
    this.starting = true;
    this.ctx.setTimerMs(Math.max(0, spec.atMs - this.ctx.nowMs()), () => this.begin(spec), "txn");
  }

  private begin(spec: PlannedTxn): void {
    this.starting = false;
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
