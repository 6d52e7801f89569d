/**
 * The 2PC coordinator (book 2.1.1). For each transaction a client submits:
 *   phase 1: log "begin" (durable), send the transaction inquiry (prepare) to every
 *            participant, collect the votes;
 *   phase 2: every vote Yes → commit; a No, or the vote timeout → rollback. The decision is
 *            written to the log and fsynced before it is announced; then commit/rollback goes to
 *            every participant until each acks, and the client gets the result.
 * Recovery reads the log: a logged decision is announced again; a transaction begun but not
 * decided is rolled back (presumed abort — no participant can have been told commit).
 *
 * Invariants: a decision is never announced before it is durable (except in the
 * decide-before-log twin); commit only if every participant voted Yes (except in the
 * commit-on-timeout twin); one decision per transaction, across crashes.
 */
import type { NodeContext, TimerHandle } from "../../world/index.js";
import { logDurably, readLog, type CommitTiming, type TxnRequest } from "../atomic-commit/config.js";
import type { ClientMessage, ResultMessage } from "../atomic-commit/client.js";
import type { Decision2pc, TwoPcVariant, TwoPhaseMessage } from "./messages.js";

const LOG = "coordinator.log";

type LogRecord =
  | ({ rec: "begin"; client: string } & TxnRequest)
  | { rec: "decision"; txn: string; decision: Decision2pc }
  | { rec: "end"; txn: string };

type Phase = "logging-begin" | "voting" | "logging-decision" | "awaiting-acks" | "ended";

interface CoordinatorTxn {
  req: TxnRequest;
  client: string;
  phase: Phase;
  votes: Map<string, "yes" | "no">;
  decision: Decision2pc | undefined;
  acks: Set<string>;
  timer: TimerHandle | undefined;
  resend: TimerHandle | undefined;
}

export class TwoPhaseCoordinator {
  private readonly txns = new Map<string, CoordinatorTxn>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly participants: readonly string[],
    private readonly timing: CommitTiming,
    private readonly variant: TwoPcVariant | undefined,
  ) {
    this.recover();
  }

  onDatagram(from: string, payload: unknown): void {
    const m = payload as TwoPhaseMessage | ClientMessage;
    switch (m.kind) {
      case "begin":
        return this.onBegin(from, m);
      case "vote":
        return this.onVote(from, m.txn, m.vote);
      case "ack":
        return this.onAck(from, m.txn);
      case "decisionRequest":
        return this.onDecisionRequest(from, m.txn);
      case "prepare":
      case "commit":
      case "rollback":
        return; // participant-bound kinds: a coordinator has nothing to do with them
    }
  }

  inspect(): object {
    return {
      role: "coordinator",
      txns: [...this.txns.entries()].map(([txn, t]) => ({
        txn,
        phase: t.phase,
        votes: Object.fromEntries(t.votes),
        decision: t.decision ?? null,
        acks: [...t.acks],
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
    const t: CoordinatorTxn = { req, client, phase: "logging-begin", votes: new Map(), decision: undefined, acks: new Set(), timer: undefined, resend: undefined };
    this.txns.set(m.txn, t);
    this.log({ rec: "begin", client, ...req }, () => this.startVoting(t));
  }

  private startVoting(t: CoordinatorTxn): void {
    t.phase = "voting";
    this.ctx.annotate("2pc.begin", { txn: t.req.txn, client: t.client, key: t.req.key, value: t.req.value, participants: [...this.participants] });
    const prepare: TwoPhaseMessage = { kind: "prepare", ...t.req };
    const sendMissing = () => {
      for (const p of this.participants) if (!t.votes.has(p)) this.ctx.send(p, prepare);
      t.resend = this.ctx.setTimerMs(this.timing.retransmitMs, sendMissing, "resend-prepare");
    };
    sendMissing();
    t.timer = this.ctx.setTimerMs(this.timing.voteTimeoutMs, () => this.onVoteTimeout(t), "vote-timeout");
  }

  private onVoteTimeout(t: CoordinatorTxn): void {
    if (t.phase !== "voting") return;
    const missing = this.participants.filter((p) => !t.votes.has(p));
    if (this.variant === "commit-on-timeout" && ![...t.votes.values()].includes("no")) {
      return this.decide(t, "commit", `vote timeout: ${missing.join(", ")} silent, counted as Yes`);
    }
    this.decide(t, "rollback", `vote timeout: no vote from ${missing.join(", ")}`);
  }

  private onVote(from: string, txn: string, vote: "yes" | "no"): void {
    const t = this.txns.get(txn);
    if (t === undefined) return;
    if (t.phase !== "voting") {
      // A participant voting again (it restarted, or a vote was duplicated): tell it the outcome.
      if (t.phase === "awaiting-acks" || t.phase === "ended") this.sendDecision(t, from);
      return;
    }
    t.votes.set(from, vote);
    if (vote === "no") return this.decide(t, "rollback", `${from} voted No`, from);
    if (this.participants.every((p) => t.votes.get(p) === "yes")) this.decide(t, "commit", "every participant voted Yes");
  }

  /** `votedNo`: the participant whose No this rollback rests on (the decision annotation names it). */
  private decide(t: CoordinatorTxn, decision: Decision2pc, reason: string, votedNo?: string): void {
    this.ctx.cancelTimer(t.timer);
    this.ctx.cancelTimer(t.resend);
    t.decision = decision;
    t.phase = "logging-decision";
    const record: LogRecord = { rec: "decision", txn: t.req.txn, decision };
    if (this.variant === "decide-before-log") {
      this.announce(t, reason, votedNo);
      this.log(record, () => undefined);
      return;
    }
    this.log(record, () => this.announce(t, reason, votedNo));
  }

  private announce(t: CoordinatorTxn, reason: string, votedNo?: string): void {
    const decision = t.decision!;
    t.phase = "awaiting-acks";
    this.ctx.annotate("2pc.decision", { txn: t.req.txn, decision, reason, ...(votedNo !== undefined ? { votedNo } : {}) });
    const sendMissing = () => {
      for (const p of this.participants) if (!t.acks.has(p)) this.sendDecision(t, p);
      t.resend = this.ctx.setTimerMs(this.timing.retransmitMs, sendMissing, "resend-decision");
    };
    sendMissing();
  }

  private sendDecision(t: CoordinatorTxn, to: string): void {
    const m: TwoPhaseMessage = t.decision === "commit" ? { kind: "commit", txn: t.req.txn } : { kind: "rollback", txn: t.req.txn };
    this.ctx.send(to, m);
  }

  private onAck(from: string, txn: string): void {
    const t = this.txns.get(txn);
    if (t === undefined || t.phase !== "awaiting-acks") return;
    t.acks.add(from);
    if (!this.participants.every((p) => t.acks.has(p))) return;
    this.ctx.cancelTimer(t.resend);
    t.phase = "ended";
    this.ctx.annotate("2pc.end", { txn, outcome: t.decision! });
    this.ctx.disk.append(LOG, { rec: "end", txn }, 48); // lazily durable: losing it only repeats phase 2
    this.reply(t);
  }

  private onDecisionRequest(from: string, txn: string): void {
    const t = this.txns.get(txn);
    if (t !== undefined && (t.phase === "awaiting-acks" || t.phase === "ended")) this.sendDecision(t, from);
  }

  private reply(t: CoordinatorTxn): void {
    const m: ResultMessage = { kind: "result", txn: t.req.txn, outcome: t.decision! };
    this.ctx.send(t.client, m);
  }

  private log(record: LogRecord, onDurable: () => void): void {
    logDurably(this.ctx, LOG, record, onDurable);
  }

  /** Rebuilds the transactions from the log; finishes phase 2 of each, deciding rollback where none was logged. */
  private recover(): void {
    const records = readLog<LogRecord>(this.ctx, LOG);
    if (records.length === 0 && this.ctx.incarnation <= 1) return; // a first start: nothing to recover
    for (const r of records) {
      if (r.rec === "begin") {
        const req: TxnRequest = { txn: r.txn, key: r.key, value: r.value, noVoteFrom: r.noVoteFrom };
        this.txns.set(r.txn, { req, client: r.client, phase: "voting", votes: new Map(), decision: undefined, acks: new Set(), timer: undefined, resend: undefined });
        continue;
      }
      const t = this.txns.get(r.txn);
      if (t === undefined) continue;
      if (r.rec === "decision") {
        t.decision = r.decision;
        t.phase = "awaiting-acks";
      } else t.phase = "ended";
    }
    const decisions: [string, Decision2pc][] = [];
    const presumedAbort: string[] = [];
    for (const [txn, t] of this.txns) {
      if (t.decision !== undefined) decisions.push([txn, t.decision]);
      else presumedAbort.push(txn);
    }
    this.ctx.annotate("2pc.recover", { role: "coordinator", decisions, presumedAbort });
    for (const t of this.txns.values()) {
      if (t.phase === "awaiting-acks") this.announce(t, "recovered from the log");
      else if (t.phase === "voting" && this.variant !== "no-presumed-abort") this.decide(t, "rollback", "recovered undecided: presumed abort");
    }
  }
}
