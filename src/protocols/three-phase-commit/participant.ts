/**
 * A 3PC participant (book 2.1.2). canCommit: if it can execute the transaction it takes the
 * key's lock, logs that it is ready (durable, with the transaction) and votes Yes — now
 * uncertain; otherwise it votes No and aborts alone. preCommit: it executes, logs undo/redo
 * (durable) and acks — now precommitted. doCommit / abort: it logs the outcome, applies it,
 * releases the lock and acks with the outcome.
 *
 * When the coordinator falls silent (its timer fires while uncertain or precommitted) it runs
 * the literature's termination protocol (termination.ts: Skeen; Bernstein–Hadzilacos–Goodman)
 * rather than the book's bare rule: the participants elect a recovery coordinator, the lowest
 * operational one, which collects their states and decides — aborted or committed somewhere:
 * the same; all uncertain: abort; some precommitted: first preCommit to the uncertain ones,
 * then commit. A participant that has joined a termination round ignores an older preCommit.
 * A participant recovered from its log after a crash takes no part in rounds: it asks, and
 * decides only on an outcome someone knows (or, after a total failure, by the same rules once
 * everyone is back). A participant that has not voted and is asked aborts alone (durably) and
 * says so. Under partitions the two sides of a cut elect their own recovery coordinators, and
 * the book's flaw appears: one side commits, the other aborts.
 *
 * Twins: commit-uncertain (an uncertain participant commits on timeout), book-timeouts (the
 * book's timeout rules without the termination protocol), recovered-ignores-coordinator (after
 * a total failure, it decides without hearing that the coordinator is undecided).
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
import { logDurably, readLog, type CommitTiming, type TxnRequest, type Value } from "../atomic-commit/config.js";
import { KeyedStore } from "../atomic-commit/keyed-store.js";
import type { Decision3pc, ParticipantState3pc, ThreePcVariant, ThreePhaseMessage } from "./messages.js";
import { Ballots, terminationRule, type StateAnswer } from "./termination.js";
import { invariant } from "../../base/errors.js";

const LOG = "participant.log";

type LogRecord =
  | { rec: "ready"; txn: string; key: string; value: Value }
  | { rec: "preCommit"; txn: string; undo: Value | null }
  | { rec: "outcome"; txn: string; outcome: Decision3pc };

type State = "readying" | "uncertain" | "precommitting" | "precommitted" | "applying" | "committed" | "aborted";
/** Who decided an applied outcome: the coordinator (doCommit / abort), the recovery coordinator, a peer that knew it, or the participant itself. */
type ApplyBy = "doCommit" | "abort" | "vote-no" | "timeout" | "termination" | "backup" | "peer";

/** A termination round this participant runs as the recovery coordinator. */
interface Round {
  ballot: number;
  phase: "collecting" | "precommitting";
  answers: Map<string, StateAnswer>;
  /** TR4: the uncertain members whose preCommit Ack is still missing. */
  waiting: Set<string>;
}

interface ParticipantTxn {
  key: string;
  value: Value;
  state: State;
  /** The outcome being made durable while `state` is "applying". */
  applying: Decision3pc | undefined;
  timer: TimerHandle | undefined;
  /** The highest termination ballot joined (0: only the coordinator's preCommit is accepted). */
  ballot: number;
  /** The round it runs as the recovery coordinator, if any. */
  round: Round | undefined;
  /** Rebuilt from the log after a crash: not operational, it only asks (see termination.ts). */
  recovered: boolean;
  /** Recovered: the answers to its last question, by peer (and the coordinator's). */
  heard: Map<string, StateAnswer>;
}

const OPEN: ReadonlySet<State> = new Set(["uncertain", "precommitting", "precommitted"]);

export class ThreePhaseParticipant {
  readonly store = new KeyedStore();
  private readonly txns = new Map<string, ParticipantTxn>();
  private readonly ballots: Ballots;

  constructor(
    private readonly ctx: NodeContext,
    private readonly coordinator: string,
    private readonly peers: readonly string[],
    private readonly timing: CommitTiming,
    private readonly executionFailureRate: number,
    private readonly variant: ThreePcVariant | undefined,
  ) {
    this.ballots = new Ballots(ctx.id, peers);
    this.recover();
  }

  onDatagram(from: string, payload: unknown): void {
    const m = payload as ThreePhaseMessage;
    switch (m.kind) {
      case "canCommit":
        return this.onCanCommit(m);
      case "preCommit":
        return this.onPreCommit(from, m.txn, m.ballot);
      case "doCommit":
        return this.onFinal(from, m.txn, "commit");
      case "abort":
        return this.onFinal(from, m.txn, "abort");
      case "stateRequest":
        return this.onStateRequest(from, m.txn, m.ballot);
      case "state":
        return this.onState(from, m.txn, { state: m.state, ballot: m.ballot, recovered: m.recovered });
      case "ack":
        return this.onPreCommitAck(from, m.txn, m.of, m.ballot);
      case "vote":
        return;
    }
  }

  inspect(): object {
    return {
      role: "participant",
      store: this.store.snapshot(),
      heldLocks: this.store.heldLocks(),
      txns: [...this.txns.entries()].map(([txn, t]) => ({
        txn,
        key: t.key,
        state: t.state,
        terminating: t.round !== undefined || (t.recovered && OPEN.has(t.state)),
        ...(t.ballot > 0 ? { ballot: t.ballot } : {}),
        ...(t.round !== undefined ? { recoveryCoordinator: true } : {}),
        ...(t.recovered ? { recovered: true } : {}),
      })),
    };
  }

  /** What it tells others about a transaction: an outcome being made durable already counts as that outcome. */
  private stateOf(t: ParticipantTxn | undefined): ParticipantState3pc {
    if (t === undefined || t.state === "readying") return "unknown";
    if (t.state === "applying") return t.applying === "commit" ? "committed" : "aborted";
    if (t.state === "committed" || t.state === "aborted") return t.state;
    return t.state === "uncertain" ? "uncertain" : "precommitted";
  }

  private answerOf(t: ParticipantTxn): StateAnswer {
    return { state: this.stateOf(t), ballot: t.ballot, recovered: t.recovered };
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
      // The No is sent (and recorded as its vote) once the abort is durable: a crash cannot turn it into a later Yes.
      const t = this.fresh(m.key, m.value, "readying");
      this.txns.set(m.txn, t);
      return this.apply(m.txn, t, "abort", "vote-no", () => {
        this.ctx.annotate("3pc.vote", { txn: m.txn, vote: "no", locks: [], reason: why });
        this.send(this.coordinator, { kind: "vote", txn: m.txn, vote: "no" });
      });
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
    return { key, value, state, applying: undefined, timer: undefined, ballot: 0, round: undefined, recovered: false, heard: new Map() };
  }

  /** From the coordinator (ballot 0) or a recovery coordinator (its round's ballot). */
  private onPreCommit(from: string, txn: string, ballot: number): void {
    const t = this.txns.get(txn);
    if (t === undefined || t.recovered) return;
    if (ballot < t.ballot) {
      // It reported its state to a newer round: an older preCommit would make that report false.
      if (from !== this.coordinator) this.send(from, { kind: "state", txn, ...this.answerOf(t) });
      return;
    }
    if (ballot > t.ballot) this.join(txn, t, ballot);
    const ack = () => this.send(from, { kind: "ack", txn, of: "preCommit", ballot });
    if (t.state === "precommitted") return ack();
    if (t.state !== "uncertain") return;
    t.state = "precommitting";
    this.log({ rec: "preCommit", txn, undo: this.store.values.get(t.key) ?? null }, () => {
      if (t.state !== "precommitting") return;
      t.state = "precommitted";
      this.ctx.annotate("3pc.precommit", { txn });
      ack();
      this.arm(txn, t);
    });
  }

  private onFinal(from: string, txn: string, decision: Decision3pc): void {
    const of = decision === "commit" ? "doCommit" : "abort";
    const ack = (outcome: Decision3pc) => {
      if (from === this.coordinator) this.send(from, { kind: "ack", txn, of, outcome });
    };
    const t = this.txns.get(txn);
    if (t === undefined) {
      if (decision === "abort") this.abortUnvoted(txn, () => ack("abort"));
      return;
    }
    if (t.state === "committed" || t.state === "aborted") return ack(t.state === "committed" ? "commit" : "abort");
    if (t.state === "applying" || t.state === "readying") return;
    const by: ApplyBy = from === this.coordinator ? of : t.recovered ? "peer" : "backup";
    this.apply(txn, t, decision, by, () => ack(decision));
  }

  private arm(txn: string, t: ParticipantTxn): void {
    this.ctx.cancelTimer(t.timer);
    t.timer = this.ctx.setTimerMs(this.timing.decisionTimeoutMs, () => this.onTimeout(txn, t), "3pc-timeout");
  }

  private onTimeout(txn: string, t: ParticipantTxn): void {
    if (t.state !== "uncertain" && t.state !== "precommitted") return;
    const state = t.state;
    if (this.variant === "commit-uncertain" || this.variant === "book-timeouts") {
      const bookRule: Decision3pc = state === "precommitted" || this.variant === "commit-uncertain" ? "commit" : "abort";
      this.ctx.annotate("3pc.timeout", { txn, state, action: bookRule, locks: [t.key] });
      return this.apply(txn, t, bookRule, "timeout");
    }
    if (t.recovered) {
      this.ctx.annotate("3pc.timeout", { txn, state, action: "recovered: ask who knows the outcome", locks: [t.key] });
      return this.askOutcome(txn, t);
    }
    const ballot = this.ballots.above(t.ballot);
    this.ctx.annotate("3pc.timeout", { txn, state, action: `termination, ballot ${ballot}: ask the others`, locks: [t.key] });
    t.ballot = ballot;
    t.round = { ballot, phase: "collecting", answers: new Map(), waiting: new Set() };
    for (const p of this.peers) this.send(p, { kind: "stateRequest", txn, ballot, state });
    t.timer = this.ctx.setTimerMs(this.timing.terminationWaitMs, () => this.decideRound(txn, t), "termination");
  }

  /** Joins a newer termination round: its own round, if older, is abandoned; it waits for the round's decision. */
  private join(txn: string, t: ParticipantTxn, ballot: number): void {
    t.ballot = ballot;
    if (t.round !== undefined && t.round.ballot < ballot) t.round = undefined;
    if (OPEN.has(t.state)) this.arm(txn, t);
  }

  private onStateRequest(from: string, txn: string, ballot: number): void {
    const t = this.txns.get(txn);
    if (t === undefined) return this.abortUnvoted(txn, () => this.send(from, { kind: "state", txn, state: "aborted", ballot: 0, recovered: false }));
    if (ballot > t.ballot && !t.recovered && t.state !== "applying" && t.state !== "committed" && t.state !== "aborted") this.join(txn, t, ballot);
    this.send(from, { kind: "state", txn, ...this.answerOf(t) });
  }

  private onState(from: string, txn: string, a: StateAnswer): void {
    const t = this.txns.get(txn);
    if (t === undefined || !OPEN.has(t.state)) return;
    if (a.state === "committed" || a.state === "aborted") {
      // Someone knows the outcome (TR1/TR2): take it; a recovery coordinator also passes it on.
      const tell = t.round !== undefined;
      t.round = undefined;
      return this.apply(txn, t, a.state === "committed" ? "commit" : "abort", "peer", tell ? () => this.announce(txn, a.state === "committed" ? "commit" : "abort") : undefined);
    }
    if (t.recovered) {
      t.heard.set(from, a);
      return;
    }
    if (a.ballot > t.ballot) return this.join(txn, t, a.ballot); // a newer round runs: wait for it
    const r = t.round;
    if (r === undefined || r.phase !== "collecting" || (a.ballot !== r.ballot && !a.recovered)) return;
    r.answers.set(from, a);
    if (this.peers.every((p) => r.answers.has(p))) this.decideRound(txn, t);
  }

  /** The recovery coordinator decides from its round's answers (termination.ts: TR1–TR4). */
  private decideRound(txn: string, t: ParticipantTxn): void {
    const r = t.round;
    if (r === undefined || r.phase !== "collecting" || t.ballot !== r.ballot) return;
    if (t.state === "precommitting") {
      t.timer = this.ctx.setTimerMs(this.timing.retransmitMs, () => this.decideRound(txn, t), "termination");
      return;
    }
    if (t.state !== "uncertain" && t.state !== "precommitted") return;
    this.ctx.cancelTimer(t.timer);
    const members = [...r.answers].filter(([, a]) => !a.recovered);
    const own = this.stateOf(t);
    const { rule, decision } = terminationRule([own, ...members.map(([, a]) => a.state)]);
    const excluded = this.peers.filter((p) => !members.some(([q]) => q === p));
    this.ctx.annotate("3pc.terminate", { txn, ballot: r.ballot, states: [[this.ctx.id, own], ...members.map(([p, a]): [string, string] => [p, a.state])], excluded, rule, decision, recovered: false });
    const uncertain = members.filter(([, a]) => a.state === "uncertain" || a.state === "unknown").map(([p]) => p);
    if (rule !== "TR4" || uncertain.length === 0) return this.decide(txn, t, decision);
    r.phase = "precommitting";
    r.waiting = new Set(uncertain);
    for (const p of uncertain) this.send(p, { kind: "preCommit", txn, ballot: r.ballot });
    // A member that neither acks nor refuses within the wait has crashed (3PC assumes a failure is detected).
    t.timer = this.ctx.setTimerMs(this.timing.terminationWaitMs, () => {
      if (t.round === r && t.ballot === r.ballot) this.decide(txn, t, "commit");
    }, "termination");
  }

  private onPreCommitAck(from: string, txn: string, of: string, ballot: number | undefined): void {
    const t = this.txns.get(txn);
    const r = t?.round;
    if (t === undefined || r === undefined || of !== "preCommit" || r.phase !== "precommitting" || ballot !== r.ballot || t.ballot !== r.ballot) return;
    r.waiting.delete(from);
    if (r.waiting.size === 0) this.decide(txn, t, "commit");
  }

  private decide(txn: string, t: ParticipantTxn, decision: Decision3pc): void {
    t.round = undefined;
    this.apply(txn, t, decision, "termination", () => this.announce(txn, decision));
  }

  private announce(txn: string, decision: Decision3pc): void {
    for (const p of this.peers) this.send(p, decision === "commit" ? { kind: "doCommit", txn } : { kind: "abort", txn });
  }

  /** Recovered: ask the participants and the coordinator; an outcome answer decides (onState, onFinal). */
  private askOutcome(txn: string, t: ParticipantTxn): void {
    t.heard.clear();
    const ask: ThreePhaseMessage = { kind: "stateRequest", txn, ballot: 0, state: this.stateOf(t) };
    for (const p of [...this.peers, this.coordinator]) this.send(p, ask);
    t.timer = this.ctx.setTimerMs(this.timing.terminationWaitMs, () => this.afterAsking(txn, t), "termination");
  }

  /**
   * Recovered and nobody told it an outcome: after a total failure — every participant back and
   * recovered, the coordinator back and undecided — nobody else can decide, and every recovered
   * site applies the same rule to the same states; otherwise it asks again.
   */
  private afterAsking(txn: string, t: ParticipantTxn): void {
    if (t.state !== "uncertain" && t.state !== "precommitted") return;
    const asked = this.variant === "recovered-ignores-coordinator" ? this.peers : [...this.peers, this.coordinator];
    const everyone = asked.every((p) => t.heard.get(p)?.recovered === true);
    if (!everyone) return this.askOutcome(txn, t);
    const own = this.stateOf(t);
    const { rule, decision } = terminationRule([own, ...this.peers.map((p) => t.heard.get(p)!.state)]);
    this.ctx.annotate("3pc.terminate", { txn, ballot: 0, states: [[this.ctx.id, own], ...this.peers.map((p): [string, string] => [p, t.heard.get(p)!.state])], excluded: [], rule, decision, recovered: true });
    this.apply(txn, t, decision, "termination");
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
    t.applying = outcome;
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
