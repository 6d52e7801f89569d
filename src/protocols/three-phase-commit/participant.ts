/**
 * A 3PC participant (book 2.1.2). canCommit: if it can execute the transaction it takes the
 * key's lock, logs that it is ready (durable, with the transaction) and votes Yes — now
 * uncertain; otherwise it votes No and aborts alone. preCommit: it executes, logs undo/redo
 * (durable) and acks — now precommitted. doCommit / abort: it logs the outcome, applies it,
 * releases the lock and acks with the outcome.
 *
 * The book's timeout rules: a precommitted participant that hears nothing more commits; an
 * uncertain one aborts. (One recovered from its log after a crash waits for its peers instead:
 * see terminate.) Before acting on a timeout it runs the termination protocol of the
 * literature (Skeen's, which the book's rules summarise): it asks the other participants how
 * far they got and waits `terminationWaitMs` — a peer that committed or aborted decides it; any
 * precommitted peer means commit; otherwise the book's rule. A participant that has not voted
 * and is asked aborts alone (durably) and says so. Under partitions the two sides of a cut
 * cannot ask each other, and the book's flaw appears: one side commits, the other aborts.
 *
 * Twins: commit-uncertain (an uncertain participant commits on timeout), book-timeouts (the
 * timeout rules without asking the peers).
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
import { logDurably, readLog, type CommitTiming, type TxnRequest, type Value } from "../atomic-commit/config.js";
import { KeyedStore } from "../atomic-commit/keyed-store.js";
import type { Decision3pc, ParticipantState3pc, ThreePcVariant, ThreePhaseMessage } from "./messages.js";
import { invariant } from "../../base/errors.js";

const LOG = "participant.log";

type LogRecord =
  | { rec: "ready"; txn: string; key: string; value: Value }
  | { rec: "preCommit"; txn: string; undo: Value | null }
  | { rec: "outcome"; txn: string; outcome: Decision3pc };

type State = "readying" | "uncertain" | "precommitting" | "precommitted" | "applying" | "committed" | "aborted";
type ApplyBy = "doCommit" | "abort" | "vote-no" | "timeout" | "termination";

interface ParticipantTxn {
  key: string;
  value: Value;
  state: State;
  timer: TimerHandle | undefined;
  /** What each peer said during termination (or said of itself when it asked). */
  heard: Map<string, ParticipantState3pc>;
  terminating: boolean;
  /** Rebuilt from the log after a crash: it decides only on what its peers say (see terminate). */
  recovered: boolean;
}

export class ThreePhaseParticipant {
  readonly store = new KeyedStore();
  private readonly txns = new Map<string, ParticipantTxn>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly coordinator: string,
    private readonly peers: readonly string[],
    private readonly timing: CommitTiming,
    private readonly executionFailureRate: number,
    private readonly variant: ThreePcVariant | undefined,
  ) {
    this.recover();
  }

  onDatagram(from: string, payload: unknown): void {
    const m = payload as ThreePhaseMessage;
    switch (m.kind) {
      case "canCommit":
        return this.onCanCommit(m);
      case "preCommit":
        return this.onPreCommit(m.txn);
      case "doCommit":
        return this.onFinal(m.txn, "commit");
      case "abort":
        return this.onFinal(m.txn, "abort");
      case "stateRequest":
        return this.onStateRequest(from, m.txn, m.state);
      case "state":
        this.txns.get(m.txn)?.heard.set(from, m.state);
        return;
      case "vote":
      case "ack":
        return;
    }
  }

  inspect(): object {
    return {
      role: "participant",
      store: this.store.snapshot(),
      heldLocks: this.store.heldLocks(),
      txns: [...this.txns.entries()].map(([txn, t]) => ({ txn, key: t.key, state: t.state, terminating: t.terminating })),
    };
  }

  private stateOf(t: ParticipantTxn | undefined): ParticipantState3pc {
    if (t === undefined || t.state === "readying") return "unknown";
    if (t.state === "committed" || t.state === "aborted") return t.state;
    return t.state === "precommitted" ? "precommitted" : "uncertain";
  }

  private onCanCommit(m: TxnRequest): void {
    const known = this.txns.get(m.txn);
    if (known !== undefined) {
      const s = this.stateOf(known);
      if (s === "uncertain" || s === "precommitted") this.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "yes" });
      if (s === "aborted") this.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "no" });
      return;
    }
    const holder = this.store.holder(m.key);
    const why = m.noVoteFrom.includes(this.ctx.id)
      ? "cannot execute it"
      : holder !== undefined
        ? `${m.key} is locked by ${holder}`
        : this.executionFailureRate > 0 && this.ctx.rng.chance(this.executionFailureRate)
          ? "cannot execute it"
          : undefined;
    if (why !== undefined) {
      // The No is sent once the abort is durable: a crash cannot turn it into a later Yes.
      const t = this.fresh(m.key, m.value, "readying");
      this.txns.set(m.txn, t);
      this.ctx.annotate("3pc.vote", { txn: m.txn, vote: "no", locks: [], reason: why });
      return this.apply(m.txn, t, "abort", "vote-no", () => this.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "no" }));
    }
    const locked = this.store.tryLock(m.key, m.txn);
    invariant(locked, () => `${this.ctx.id} executes ${m.txn} on ${m.key}, locked by ${this.store.holder(m.key) ?? "nobody"}`);
    const t = this.fresh(m.key, m.value, "readying");
    this.txns.set(m.txn, t);
    this.log({ rec: "ready", txn: m.txn, key: m.key, value: m.value }, () => {
      if (t.state !== "readying") return;
      t.state = "uncertain";
      this.ctx.annotate("3pc.vote", { txn: m.txn, vote: "yes", locks: [m.key], reason: "ready" });
      this.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "yes" });
      this.arm(m.txn, t);
    });
  }

  private fresh(key: string, value: Value, state: State): ParticipantTxn {
    return { key, value, state, timer: undefined, heard: new Map(), terminating: false, recovered: false };
  }

  private onPreCommit(txn: string): void {
    const t = this.txns.get(txn);
    if (t === undefined) return;
    if (t.state === "precommitted") return this.send(this.coordinator, { kind: "ack", txn, of: "preCommit" });
    if (t.state !== "uncertain") return;
    t.state = "precommitting";
    this.log({ rec: "preCommit", txn, undo: this.store.values.get(t.key) ?? null }, () => {
      if (t.state !== "precommitting") return;
      t.state = "precommitted";
      this.ctx.annotate("3pc.precommit", { txn });
      this.send(this.coordinator, { kind: "ack", txn, of: "preCommit" });
      this.arm(txn, t);
    });
  }

  private onFinal(txn: string, decision: Decision3pc): void {
    const of = decision === "commit" ? "doCommit" : "abort";
    const t = this.txns.get(txn);
    if (t === undefined) {
      if (decision === "abort") this.abortUnvoted(txn, () => this.send(this.coordinator, { kind: "ack", txn, of, outcome: "abort" }));
      return;
    }
    if (t.state === "committed" || t.state === "aborted") return this.send(this.coordinator, { kind: "ack", txn, of, outcome: t.state === "committed" ? "commit" : "abort" });
    if (t.state === "applying" || t.state === "readying") return;
    this.apply(txn, t, decision, of, () => this.send(this.coordinator, { kind: "ack", txn, of, outcome: decision }));
  }

  private arm(txn: string, t: ParticipantTxn): void {
    this.ctx.cancelTimer(t.timer);
    t.timer = this.ctx.setTimerMs(this.timing.decisionTimeoutMs, () => this.onTimeout(txn, t), "3pc-timeout");
  }

  private onTimeout(txn: string, t: ParticipantTxn): void {
    if (t.state !== "uncertain" && t.state !== "precommitted") return;
    const state = t.state;
    const bookRule: Decision3pc = state === "precommitted" || this.variant === "commit-uncertain" ? "commit" : "abort";
    if (this.variant !== undefined) {
      this.ctx.annotate("3pc.timeout", { txn, state, action: bookRule, locks: [t.key] });
      return this.apply(txn, t, bookRule, "timeout");
    }
    this.ctx.annotate("3pc.timeout", { txn, state, action: "ask the other participants", locks: [t.key] });
    t.terminating = true;
    for (const p of this.peers) this.send(p, { kind: "stateRequest", txn, state });
    t.timer = this.ctx.setTimerMs(this.timing.terminationWaitMs, () => this.terminate(txn, t, bookRule), "termination");
  }

  /**
   * Decides from what the peers said; with nothing decisive, the book's rule. A participant
   * recovered from its log was not there while the others may have terminated without it, so
   * it decides only on a peer's outcome or once every peer has answered — until then it asks
   * again (3PC is nonblocking for the sites that stay up, not for one that comes back).
   */
  private terminate(txn: string, t: ParticipantTxn, bookRule: Decision3pc): void {
    if (t.state !== "uncertain" && t.state !== "precommitted") return;
    const said = new Set(t.heard.values());
    const final = said.has("committed") || said.has("aborted");
    if (t.recovered && !final && !this.peers.every((p) => t.heard.has(p))) {
      for (const p of this.peers) this.send(p, { kind: "stateRequest", txn, state: this.stateOf(t) });
      t.timer = this.ctx.setTimerMs(this.timing.terminationWaitMs, () => this.terminate(txn, t, bookRule), "termination");
      return;
    }
    const decisive = final || said.has("precommitted");
    const outcome: Decision3pc = said.has("committed") ? "commit" : said.has("aborted") ? "abort" : said.has("precommitted") ? "commit" : bookRule;
    this.apply(txn, t, outcome, decisive ? "termination" : "timeout");
  }

  private onStateRequest(from: string, txn: string, theirs: ParticipantState3pc | "coordinator"): void {
    const t = this.txns.get(txn);
    if (t === undefined) return this.abortUnvoted(txn, () => this.send(from, { kind: "state", txn, state: "aborted" }));
    if (theirs !== "coordinator") t.heard.set(from, theirs);
    this.send(from, { kind: "state", txn, state: this.stateOf(t) });
  }

  /** Not voted (or not durably ready): it may abort alone, durably, so a late canCommit gets No. */
  private abortUnvoted(txn: string, then: () => void): void {
    const t = this.fresh("", "", "readying");
    this.txns.set(txn, t);
    this.apply(txn, t, "abort", "termination", then);
  }

  private apply(txn: string, t: ParticipantTxn, outcome: Decision3pc, by: ApplyBy, then?: () => void): void {
    invariant(!(t.state === "committed" || t.state === "aborted"), () => `${this.ctx.id} decides ${txn} again (${t.state}, now ${outcome}): a decision never changes`);
    this.ctx.cancelTimer(t.timer);
    t.state = "applying";
    this.log({ rec: "outcome", txn, outcome }, () => {
      t.state = outcome === "commit" ? "committed" : "aborted";
      if (outcome === "commit") this.store.commit(t.key, t.value, txn);
      this.store.unlock(t.key, txn);
      this.ctx.annotate("3pc.apply", { txn, outcome, by });
      then?.();
    });
  }

  private send(to: string, m: ThreePhaseMessage): void {
    this.ctx.send(to, m);
  }

  private log(record: LogRecord, onDurable: () => void): void {
    logDurably(this.ctx, LOG, record, onDurable);
  }

  private recover(): void {
    const records = readLog<LogRecord>(this.ctx, LOG);
    if (records.length === 0 && this.ctx.incarnation <= 1) return; // a first start: nothing to recover
    const outcomes: [string, Decision3pc][] = [];
    for (const r of records) {
      if (r.rec === "ready") {
        const t = this.fresh(r.key, r.value, "uncertain");
        t.recovered = true;
        this.txns.set(r.txn, t);
        continue;
      }
      const t = this.txns.get(r.txn) ?? this.fresh("", "", "aborted");
      this.txns.set(r.txn, t);
      if (r.rec === "preCommit") t.state = "precommitted";
      else {
        outcomes.push([r.txn, r.outcome]);
        t.state = r.outcome === "commit" ? "committed" : "aborted";
        if (r.outcome === "commit") this.store.values.set(t.key, t.value);
      }
    }
    const inDoubt = [...this.txns.entries()].filter(([, t]) => t.state === "uncertain" || t.state === "precommitted");
    for (const [txn, t] of inDoubt) this.store.tryLock(t.key, txn);
    this.ctx.annotate("3pc.recover", { role: "participant", inDoubt: inDoubt.map(([txn]) => txn), locks: inDoubt.map(([, t]) => t.key), outcomes });
    for (const [txn, t] of inDoubt) this.arm(txn, t);
  }
}
