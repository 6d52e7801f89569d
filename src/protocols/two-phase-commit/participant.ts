/**
 * A 2PC participant (book 2.1.1). On the transaction inquiry (prepare) it executes the
 * transaction: takes its key's lock, writes the undo and redo information to its log and,
 * once that record is durable, votes Yes; if it cannot execute (the key is locked by another
 * transaction, or its execution fails) it votes No and rolls back alone. On commit or rollback
 * it logs the outcome, fsyncs, applies it, releases the lock and acks.
 *
 * After a Yes it is in doubt: it may not decide alone, so when the decision is late it keeps
 * asking the coordinator (and, with the cooperative termination protocol, the other
 * participants, one of which may know the outcome or may not have voted yet and so can still
 * abort alone) — holding its lock all the while. Before voting it may abort alone: a peer's
 * decision request about a transaction it has not voted on makes it roll back (durably, so it
 * votes No if the inquiry arrives later).
 *
 * Invariants: a Yes is sent only after the prepared record is durable (except in the
 * vote-before-log twin); after a Yes the outcome comes only from someone who knows it (except in
 * the abort-in-doubt twin); recovery restores every prepared, undecided transaction with its lock.
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
import { logDurably, readLog, recordBytes, type CommitTiming, type Termination, type TxnRequest, type Value } from "../atomic-commit/config.js";
import { KeyedStore } from "../atomic-commit/keyed-store.js";
import type { Decision2pc, TwoPcVariant, TwoPhaseMessage } from "./messages.js";
import { invariant } from "../../base/errors.js";

const LOG = "participant.log";

type LogRecord = { rec: "prepared"; txn: string; key: string; value: Value; undo: Value | null } | { rec: "outcome"; txn: string; outcome: Decision2pc };

type State = "preparing" | "prepared" | "applying" | Decision2pc;
type ApplyBy = "coordinator" | "peer" | "vote-no" | "termination" | "timeout";

interface ParticipantTxn {
  key: string;
  value: Value;
  state: State;
  timer: TimerHandle | undefined;
}

export class TwoPhaseParticipant {
  readonly store = new KeyedStore();
  private readonly txns = new Map<string, ParticipantTxn>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly coordinator: string,
    private readonly peers: readonly string[],
    private readonly timing: CommitTiming,
    private readonly termination: Termination,
    private readonly executionFailureRate: number,
    private readonly variant: TwoPcVariant | undefined,
  ) {
    this.recover();
  }

  onDatagram(from: string, payload: unknown): void {
    const m = payload as TwoPhaseMessage;
    switch (m.kind) {
      case "prepare":
        return this.onPrepare(m);
      case "commit":
      case "rollback":
        return this.onDecision(from, m.txn, m.kind);
      case "decisionRequest":
        return this.onDecisionRequest(from, m.txn);
      case "vote":
      case "ack":
        return; // coordinator-bound kinds
    }
  }

  inspect(): object {
    return {
      role: "participant",
      store: this.store.snapshot(),
      heldLocks: this.store.heldLocks(),
      inDoubt: [...this.txns.entries()].filter(([, t]) => t.state === "prepared").map(([txn]) => txn),
      txns: [...this.txns.entries()].map(([txn, t]) => ({ txn, key: t.key, state: t.state })),
    };
  }

  private onPrepare(m: TxnRequest): void {
    const known = this.txns.get(m.txn);
    if (known !== undefined) {
      if (known.state === "prepared") this.ctx.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "yes" } satisfies TwoPhaseMessage);
      if (known.state === "rollback") this.ctx.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "no" } satisfies TwoPhaseMessage);
      return;
    }
    const holder = this.store.holder(m.key);
    const why = m.noVoteFrom.includes(this.ctx.id)
      ? "execution failed"
      : holder !== undefined
        ? `${m.key} is locked by ${holder}`
        : this.executionFailureRate > 0 && this.ctx.rng.chance(this.executionFailureRate)
          ? "execution failed"
          : undefined;
    if (why !== undefined) return this.voteNo(m, why);
    const locked = this.store.tryLock(m.key, m.txn);
    invariant(locked, () => `${this.ctx.id} executes ${m.txn} on ${m.key}, locked by ${this.store.holder(m.key) ?? "nobody"}`);
    const t: ParticipantTxn = { key: m.key, value: m.value, state: "preparing", timer: undefined };
    this.txns.set(m.txn, t);
    const record: LogRecord = { rec: "prepared", txn: m.txn, key: m.key, value: m.value, undo: this.store.values.get(m.key) ?? null };
    if (!this.ctx.disk.append(LOG, record, recordBytes(record)).ok) {
      this.txns.delete(m.txn);
      return this.voteNo(m, "cannot log undo/redo: disk full");
    }
    if (this.variant === "vote-before-log") {
      this.voteYes(m.txn, t);
      this.ctx.disk.fsync(LOG);
      return;
    }
    this.ctx.disk.fsync(LOG, () => this.voteYes(m.txn, t));
  }

  /**
   * Rolls back alone; the No is sent (and recorded as its vote) once that is durable, so a crash
   * cannot turn it into a later Yes: before then, nothing was said.
   */
  private voteNo(m: TxnRequest, reason: string): void {
    const t: ParticipantTxn = { key: m.key, value: m.value, state: "preparing", timer: undefined };
    this.txns.set(m.txn, t);
    this.apply(m.txn, t, "rollback", "vote-no", undefined, () => {
      this.ctx.annotate("2pc.vote", { txn: m.txn, vote: "no", locks: [], reason });
      this.ctx.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "no" } satisfies TwoPhaseMessage);
    });
  }

  private voteYes(txn: string, t: ParticipantTxn): void {
    if (t.state !== "preparing") return;
    t.state = "prepared";
    this.ctx.annotate("2pc.vote", { txn, vote: "yes", locks: [t.key], reason: "executed; undo/redo logged" });
    this.ctx.send(this.coordinator, { kind: "vote", txn, vote: "yes" } satisfies TwoPhaseMessage);
    this.armInDoubt(txn, t, this.timing.decisionTimeoutMs);
  }

  private armInDoubt(txn: string, t: ParticipantTxn, delayMs: number): void {
    this.ctx.cancelTimer(t.timer);
    t.timer = this.ctx.setTimerMs(delayMs, () => this.onInDoubtTimeout(txn, t), "in-doubt");
  }

  private onInDoubtTimeout(txn: string, t: ParticipantTxn): void {
    if (t.state !== "prepared") return;
    if (this.variant === "abort-in-doubt") return this.apply(txn, t, "rollback", "timeout", undefined);
    const askPeers = this.termination === "cooperative";
    const waitingFor = askPeers ? [this.coordinator, ...this.peers] : [this.coordinator];
    this.ctx.annotate("2pc.in-doubt", { txn, locks: [t.key], waitingFor });
    for (const to of waitingFor) this.ctx.send(to, { kind: "decisionRequest", txn } satisfies TwoPhaseMessage);
    this.armInDoubt(txn, t, this.timing.retransmitMs * 5);
  }

  private onDecision(from: string, txn: string, decision: Decision2pc): void {
    const t = this.txns.get(txn);
    const by: ApplyBy = from === this.coordinator ? "coordinator" : "peer";
    const ackTo = from === this.coordinator ? from : undefined;
    if (t === undefined) {
      if (decision === "commit") this.ctx.annotate("2pc.forgotten", { txn, decision });
      if (ackTo !== undefined) this.ctx.send(ackTo, { kind: "ack", txn } satisfies TwoPhaseMessage);
      return;
    }
    if (t.state === "commit" || t.state === "rollback") {
      if (ackTo !== undefined) this.ctx.send(ackTo, { kind: "ack", txn } satisfies TwoPhaseMessage);
      return;
    }
    if (t.state === "applying") return;
    this.apply(txn, t, decision, by, ackTo);
  }

  /** Logs the outcome, and once it is durable applies it, releases the lock and acks. */
  private apply(txn: string, t: ParticipantTxn, outcome: Decision2pc, by: ApplyBy, ackTo: string | undefined, then?: () => void): void {
    invariant(!(t.state === "commit" || t.state === "rollback"), () => `${this.ctx.id} decides ${txn} again (${t.state}, now ${outcome}): a decision never changes`);
    this.ctx.cancelTimer(t.timer);
    t.state = "applying";
    logDurably(this.ctx, LOG, { rec: "outcome", txn, outcome } satisfies LogRecord, () => {
      t.state = outcome;
      if (outcome === "commit") this.store.commit(t.key, t.value, txn);
      this.store.unlock(t.key, txn);
      this.ctx.annotate("2pc.apply", { txn, outcome, by });
      if (ackTo !== undefined) this.ctx.send(ackTo, { kind: "ack", txn } satisfies TwoPhaseMessage);
      then?.();
    });
  }

  /** Cooperative termination: answer a peer in doubt with what this participant knows. */
  private onDecisionRequest(from: string, txn: string): void {
    const t = this.txns.get(txn);
    const answer = (d: Decision2pc) => this.ctx.send(from, { kind: d, txn } satisfies TwoPhaseMessage);
    if (t === undefined) {
      // Not voted yet: it may still abort alone, and does, durably, before it answers.
      const mine: ParticipantTxn = { key: "", value: "", state: "preparing", timer: undefined };
      this.txns.set(txn, mine);
      this.apply(txn, mine, "rollback", "termination", undefined, () => answer("rollback"));
      return;
    }
    if (t.state === "commit" || t.state === "rollback") answer(t.state);
  }

  private recover(): void {
    const records = readLog<LogRecord>(this.ctx, LOG);
    if (records.length === 0 && this.ctx.incarnation <= 1) return; // a first start: nothing to recover
    const outcomes: [string, Decision2pc][] = [];
    for (const r of records) {
      if (r.rec === "prepared") {
        this.txns.set(r.txn, { key: r.key, value: r.value, state: "prepared", timer: undefined });
        continue;
      }
      outcomes.push([r.txn, r.outcome]);
      const t = this.txns.get(r.txn) ?? { key: "", value: "", state: r.outcome, timer: undefined };
      this.txns.set(r.txn, t);
      t.state = r.outcome;
      if (r.outcome === "commit") this.store.values.set(t.key, t.value);
    }
    const inDoubt = [...this.txns.entries()].filter(([, t]) => t.state === "prepared");
    for (const [txn, t] of inDoubt) this.store.tryLock(t.key, txn);
    this.ctx.annotate("2pc.recover", { role: "participant", inDoubt: inDoubt.map(([txn]) => txn), locks: inDoubt.map(([, t]) => t.key), outcomes });
    for (const [txn, t] of inDoubt) this.armInDoubt(txn, t, 0);
  }
}
