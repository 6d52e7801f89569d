/**
 * The 3PC coordinator (book 2.1.2):
 *   canCommit: log "begin" (durable), send canCommit, collect votes; a No or the timeout → abort;
 *   preCommit: every vote Yes → log "preCommit" (durable), send preCommit, collect Acks; a
 *              missing Ack at the timeout → abort;
 *   doCommit:  every Ack → log the decision commit (durable), send doCommit until each final
 *              Ack; the client gets the outcome the participants report.
 * An abort decision is logged (durable) and sent the same way. Recovery reads the log: a logged
 * decision is sent again; a transaction that never reached preCommit is aborted (nobody can
 * have committed it); one that reached preCommit without a decision is left to its
 * participants, who finish it by the termination protocol (termination.ts) — the recovered
 * coordinator asks them (stateRequest) until each has an outcome, and reports what they did.
 *
 * The book's rule for a missing preCommit Ack (abort) is kept. It is safe under crashes alone
 * because the coordinator decides before any participant's timer can fire (its Ack timeout is
 * half the participants' decision timeout) and its decision leaves to every participant at
 * once. (Bernstein–Hadzilacos–Goodman's coordinator commits there instead: a participant that
 * did not ack has failed and will learn the outcome when it recovers.)
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
import { logDurably, readLog, type CommitTiming, type TxnRequest } from "../atomic-commit/config.js";
import type { ClientMessage, ResultMessage } from "../atomic-commit/client.js";
import type { Decision3pc, ThreePhaseMessage } from "./messages.js";

const LOG = "coordinator.log";

type LogRecord =
  | ({ rec: "begin"; client: string } & TxnRequest)
  | { rec: "preCommit"; txn: string }
  | { rec: "decision"; txn: string; decision: Decision3pc }
  | { rec: "end"; txn: string; outcome: Decision3pc | "inconsistent" };

type Phase = "logging-begin" | "canCommit" | "logging-preCommit" | "preCommit" | "logging-decision" | "awaiting-acks" | "learning" | "ended";

interface CoordinatorTxn {
  req: TxnRequest;
  client: string;
  phase: Phase;
  votes: Map<string, "yes" | "no">;
  preCommitAcks: Set<string>;
  decision: Decision3pc | undefined;
  /** Final outcomes the participants reported (in their Acks or state answers). */
  outcomes: Map<string, Decision3pc>;
  result: Decision3pc | "inconsistent" | undefined;
  timer: TimerHandle | undefined;
  resend: TimerHandle | undefined;
}

export class ThreePhaseCoordinator {
  private readonly txns = new Map<string, CoordinatorTxn>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly participants: readonly string[],
    private readonly timing: CommitTiming,
  ) {
    this.recover();
  }

  onDatagram(from: string, payload: unknown): void {
    const m = payload as ThreePhaseMessage | ClientMessage;
    switch (m.kind) {
      case "begin":
        return this.onBegin(from, m);
      case "vote":
        return this.onVote(from, m.txn, m.vote);
      case "ack":
        return this.onAck(from, m);
      case "state":
        return this.onState(from, m.txn, m.state);
      case "stateRequest":
        return this.onStateRequest(from, m.txn);
      case "canCommit":
      case "preCommit":
      case "doCommit":
      case "abort":
        return;
    }
  }

  inspect(): object {
    return {
      role: "coordinator",
      txns: [...this.txns.entries()].map(([txn, t]) => ({
        txn,
        phase: t.phase,
        votes: Object.fromEntries(t.votes),
        preCommitAcks: [...t.preCommitAcks],
        decision: t.decision ?? null,
        outcomes: Object.fromEntries(t.outcomes),
      })),
    };
  }

  private onBegin(client: string, m: ClientMessage): void {
    const known = this.txns.get(m.txn);
    if (known !== undefined) {
      if (known.phase === "ended") this.reply(known);
      return;
    }
    const req: TxnRequest = { txn: m.txn, key: m.key, value: m.value, noVoteFrom: m.noVoteFrom };
    const t = this.newTxn(req, client, "logging-begin");
    this.log({ rec: "begin", client, ...req }, () => this.sendCanCommit(t));
  }

  private newTxn(req: TxnRequest, client: string, phase: Phase): CoordinatorTxn {
    const t: CoordinatorTxn = { req, client, phase, votes: new Map(), preCommitAcks: new Set(), decision: undefined, outcomes: new Map(), result: undefined, timer: undefined, resend: undefined };
    this.txns.set(req.txn, t);
    return t;
  }

  private sendCanCommit(t: CoordinatorTxn): void {
    t.phase = "canCommit";
    this.ctx.annotate("3pc.begin", { txn: t.req.txn, client: t.client, key: t.req.key, value: t.req.value, participants: [...this.participants] });
    const m: ThreePhaseMessage = { kind: "canCommit", ...t.req };
    this.repeatUntil(t, (p) => t.votes.has(p), () => m, "resend-canCommit");
    t.timer = this.ctx.setTimerMs(this.timing.voteTimeoutMs, () => {
      if (t.phase === "canCommit") this.decide(t, "abort", `no vote from ${this.participants.filter((p) => !t.votes.has(p)).join(", ")} in time`);
    }, "vote-timeout");
  }

  private onVote(from: string, txn: string, vote: "yes" | "no"): void {
    const t = this.txns.get(txn);
    if (t === undefined || t.phase !== "canCommit") return;
    t.votes.set(from, vote);
    if (vote === "no") return this.decide(t, "abort", `${from} voted No`);
    if (!this.participants.every((p) => t.votes.get(p) === "yes")) return;
    this.stop(t);
    t.phase = "logging-preCommit";
    this.log({ rec: "preCommit", txn }, () => this.sendPreCommit(t));
  }

  private sendPreCommit(t: CoordinatorTxn): void {
    t.phase = "preCommit";
    this.ctx.annotate("3pc.phase", { txn: t.req.txn, phase: "preCommit" });
    const m: ThreePhaseMessage = { kind: "preCommit", txn: t.req.txn, ballot: 0 };
    this.repeatUntil(t, (p) => t.preCommitAcks.has(p), () => m, "resend-preCommit");
    t.timer = this.ctx.setTimerMs(this.timing.voteTimeoutMs, () => {
      if (t.phase === "preCommit") this.decide(t, "abort", `no preCommit Ack from ${this.participants.filter((p) => !t.preCommitAcks.has(p)).join(", ")} in time`);
    }, "ack-timeout");
  }

  private onAck(from: string, m: Extract<ThreePhaseMessage, { kind: "ack" }>): void {
    const t = this.txns.get(m.txn);
    if (t === undefined) return;
    if (m.of === "preCommit") {
      if (t.phase !== "preCommit") return;
      t.preCommitAcks.add(from);
      if (this.participants.every((p) => t.preCommitAcks.has(p))) this.decide(t, "commit", "every participant acked preCommit");
      return;
    }
    if (m.outcome !== undefined) this.onOutcome(t, from, m.outcome);
  }

  private onState(from: string, txn: string, state: string): void {
    const t = this.txns.get(txn);
    if (t === undefined) return;
    if (state === "committed") this.onOutcome(t, from, "commit");
    if (state === "aborted") this.onOutcome(t, from, "abort");
  }

  /**
   * A participant recovered from a crash asks who knows the outcome: a decided coordinator says
   * it; a recovered one that reached preCommit without deciding says it will not decide (it
   * leaves that to the participants), which a recovered participant needs to know before it may
   * apply the termination rule after a total failure. An active coordinator says nothing yet:
   * it is about to decide.
   */
  private onStateRequest(from: string, txn: string): void {
    const t = this.txns.get(txn);
    if (t?.decision !== undefined && (t.phase === "awaiting-acks" || t.phase === "ended")) this.ctx.send(from, { kind: t.decision === "commit" ? "doCommit" : "abort", txn });
    else if (t?.phase === "learning") this.ctx.send(from, { kind: "state", txn, state: "unknown", ballot: 0, recovered: true });
  }

  private onOutcome(t: CoordinatorTxn, from: string, outcome: Decision3pc): void {
    if (t.phase !== "awaiting-acks" && t.phase !== "learning") return;
    t.outcomes.set(from, outcome);
    if (!this.participants.every((p) => t.outcomes.has(p))) return;
    this.stop(t);
    const seen = new Set(t.outcomes.values());
    t.result = seen.size === 1 ? [...seen][0]! : "inconsistent";
    t.phase = "ended";
    this.ctx.annotate("3pc.end", { txn: t.req.txn, outcome: t.result });
    this.ctx.disk.append(LOG, { rec: "end", txn: t.req.txn, outcome: t.result }, 48); // lazily durable: losing it only repeats the last phase
    this.reply(t);
  }

  private decide(t: CoordinatorTxn, decision: Decision3pc, reason: string): void {
    this.stop(t);
    t.decision = decision;
    t.phase = "logging-decision";
    this.log({ rec: "decision", txn: t.req.txn, decision }, () => this.announce(t, reason));
  }

  private announce(t: CoordinatorTxn, reason: string): void {
    t.phase = "awaiting-acks";
    this.ctx.annotate("3pc.decision", { txn: t.req.txn, decision: t.decision!, reason });
    const m: ThreePhaseMessage = t.decision === "commit" ? { kind: "doCommit", txn: t.req.txn } : { kind: "abort", txn: t.req.txn };
    this.repeatUntil(t, (p) => t.outcomes.has(p), () => m, "resend-decision");
  }

  /** Sends `message` to every participant not yet `done`, again every retransmit interval. */
  private repeatUntil(t: CoordinatorTxn, done: (p: string) => boolean, message: () => ThreePhaseMessage, label: string): void {
    const round = () => {
      for (const p of this.participants) if (!done(p)) this.ctx.send(p, message());
      t.resend = this.ctx.setTimerMs(this.timing.retransmitMs, round, label);
    };
    round();
  }

  private stop(t: CoordinatorTxn): void {
    this.ctx.cancelTimer(t.timer);
    this.ctx.cancelTimer(t.resend);
  }

  private reply(t: CoordinatorTxn): void {
    const m: ResultMessage = { kind: "result", txn: t.req.txn, outcome: t.result! };
    this.ctx.send(t.client, m);
  }

  private log(record: LogRecord, onDurable: () => void): void {
    logDurably(this.ctx, LOG, record, onDurable);
  }

  private recover(): void {
    const records = readLog<LogRecord>(this.ctx, LOG);
    if (records.length === 0 && this.ctx.incarnation <= 1) return; // a first start: nothing to recover
    for (const r of records) {
      if (r.rec === "begin") {
        this.newTxn({ txn: r.txn, key: r.key, value: r.value, noVoteFrom: r.noVoteFrom }, r.client, "canCommit");
        continue;
      }
      const t = this.txns.get(r.txn);
      if (t === undefined) continue;
      if (r.rec === "preCommit") t.phase = "learning";
      else if (r.rec === "decision") {
        t.decision = r.decision;
        t.phase = "awaiting-acks";
      } else {
        t.phase = "ended";
        t.result = r.outcome;
      }
    }
    const all = [...this.txns.entries()];
    const decisions = all.filter(([, t]) => t.decision !== undefined).map(([txn, t]): [string, Decision3pc] => [txn, t.decision!]);
    const learning = all.filter(([, t]) => t.phase === "learning").map(([txn]) => txn);
    const presumedAbort = all.filter(([, t]) => t.phase === "canCommit").map(([txn]) => txn);
    this.ctx.annotate("3pc.recover", { role: "coordinator", decisions, learning, presumedAbort });
    for (const t of this.txns.values()) {
      if (t.phase === "awaiting-acks") this.announce(t, "recovered from the log");
      else if (t.phase === "canCommit") this.decide(t, "abort", "recovered before preCommit: nobody can have committed");
      else if (t.phase === "learning") {
        const ask: ThreePhaseMessage = { kind: "stateRequest", txn: t.req.txn, ballot: 0, state: "coordinator" };
        this.repeatUntil(t, (p) => t.outcomes.has(p), () => ask, "ask-outcome");
      }
    }
  }
}
