/**
 * The Paxos proposer (book 2.2, "Proposer生成提案" and "算法陈述").
 *
 * Phase 1: pick a ballot above any it has used or seen refused, send prepare to every
 * acceptor, wait for promises from a majority. Phase 2: propose [ballot, v] where v is the
 * value of the highest-numbered proposal among those promises, or its own value when none
 * reports one (P2c); wait for a majority of accepted. Then the value is chosen: it tells every
 * learner (`chosen`) until each has answered `learned`.
 *
 * A nack (an acceptor promised a higher ballot) or a phase that outlives `phaseTimeoutMs`
 * abandons the ballot; it retries after a backoff drawn from [retryMinMs, retryMaxMs]. Several
 * proposers doing this can livelock (each one's prepare pre-empts the other's accept); a
 * distinguished proposer ends it: from `distinguished.fromMs` on, every other proposer stops
 * starting rounds.
 *
 * Durability: the round it last used is fsynced before its prepare leaves, so a restart never
 * reuses a ballot. Broken twins: `ignore-promised-values` — phase 2 proposes its own value
 * whatever the promises say (why phase 1 exists: a second value gets chosen); `announce-once`
 * — it tells the learners the chosen value once, so one that was down then never learns it.
 */
import type { NodeContext, Process, TimerHandle } from "../../world/index.js";
import { ballotOf, isPaxosMessage, majority, roundOf, type PaxosValue, type Promise_ } from "./messages.js";
import { invariant } from "../../base/errors.js";

export const PROPOSER_FILE = "proposer";

export type ProposerVariant = "correct" | "ignore-promised-values" | "announce-once";

export interface ProposerConfig {
  /** 0-based position among the proposers: fixes its disjoint ballot numbers. */
  index: number;
  proposers: number;
  acceptors: readonly string[];
  learners: readonly string[];
  /** The value it proposes when the promises leave it free to choose. */
  value: PaxosValue;
  startAtMs: number;
  phaseTimeoutMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  /** From `fromMs` (local time) on, only `proposer` starts rounds. */
  distinguished: { proposer: string; fromMs: number } | undefined;
  variant: ProposerVariant;
}

export type ProposerPhase = "idle" | "preparing" | "accepting" | "backoff" | "announcing" | "done" | "deferred";

export class PaxosProposer implements Process {
  private round = -1;
  private ballot = 0;
  private phase: ProposerPhase = "idle";
  private readonly promises = new Map<string, Promise_>();
  private readonly accepted = new Set<string>();
  private readonly learnersAcked = new Set<string>();
  private proposal: PaxosValue | undefined;
  private chosen: PaxosValue | undefined;
  private timer: TimerHandle | undefined;
  private rounds = 0;

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: ProposerConfig,
  ) {
    const stored = ctx.disk.read(PROPOSER_FILE);
    const last = stored[stored.length - 1] as { round: number } | undefined;
    if (last !== undefined) this.round = last.round;
    ctx.annotate("paxos.proposer.input", { value: config.value, round: this.round });
    const delayMs = Math.max(0, config.startAtMs - ctx.nowMs());
    this.timer = ctx.setTimerMs(delayMs, () => this.beginRound(), "paxos.start");
  }

  inspect(): Record<string, unknown> {
    return {
      role: "proposer",
      phase: this.phase,
      ballot: this.ballot,
      value: this.config.value,
      proposal: this.proposal ?? null,
      promises: this.promises.size,
      accepted: this.accepted.size,
      chosenValue: this.chosen ?? null,
      roundsTried: this.rounds,
    };
  }

  onDatagram(from: string, payload: unknown): void {
    if (!isPaxosMessage(payload)) return;
    switch (payload.kind) {
      case "promise":
        return this.onPromise(from, payload);
      case "accepted":
        return this.onAccepted(from, payload.ballot, payload.value);
      case "nack":
        return this.onNack(payload.ballot, payload.promised);
      case "learned":
        return this.onLearned(from);
      case "prepare":
      case "accept":
      case "chosen":
        return;
    }
  }

  private get deferring(): boolean {
    const d = this.config.distinguished;
    return d !== undefined && d.proposer !== this.ctx.id && this.ctx.nowMs() >= d.fromMs;
  }

  /** Phase 1a: a fresh ballot, made durable, then prepare to every acceptor. */
  private beginRound(): void {
    if (this.deferring) {
      this.phase = "deferred";
      this.ctx.annotate("paxos.proposer.deferred", { to: this.config.distinguished!.proposer });
      return;
    }
    const round = this.round + 1;
    const written = this.ctx.disk.replace(PROPOSER_FILE, [{ round }], [16]);
    if (!written.ok) return this.backoff();
    this.round = round;
    this.phase = "preparing";
    this.ctx.disk.fsync(PROPOSER_FILE, () => {
      if (this.round !== round || this.phase !== "preparing") return;
      const ballot = ballotOf(round, this.config.index, this.config.proposers);
      invariant(ballot > this.ballot, () => `proposer ${this.ctx.id}: ballot ${ballot} after ${this.ballot}: a proposer's ballots only grow`);
      this.ballot = ballot;
      this.rounds++;
      this.promises.clear();
      this.accepted.clear();
      this.proposal = undefined;
      this.ctx.annotate("paxos.prepare", { ballot: this.ballot });
      for (const a of this.config.acceptors) this.ctx.send(a, { kind: "prepare", ballot: this.ballot });
      this.armPhaseTimeout();
    });
  }

  /** Phase 1b collected: propose the highest-numbered accepted value (P2c), or its own. */
  private onPromise(from: string, m: Promise_): void {
    if (this.phase !== "preparing" || m.ballot !== this.ballot) return;
    this.promises.set(from, m);
    if (this.promises.size < majority(this.config.acceptors.length)) return;
    let highest: Promise_ | undefined;
    for (const p of this.promises.values()) if (p.acceptedBallot > 0 && (highest === undefined || p.acceptedBallot > highest.acceptedBallot)) highest = p;
    const adopt = highest !== undefined && this.config.variant !== "ignore-promised-values";
    const value = adopt ? highest!.acceptedValue! : this.config.value;
    this.proposal = value;
    this.phase = "accepting";
    this.ctx.annotate("paxos.propose", { ballot: this.ballot, value, adoptedFrom: highest?.acceptedBallot ?? 0, adopted: adopt });
    for (const a of this.config.acceptors) this.ctx.send(a, { kind: "accept", ballot: this.ballot, value });
    this.armPhaseTimeout();
  }

  private onAccepted(from: string, ballot: number, value: PaxosValue): void {
    if (this.phase !== "accepting" || ballot !== this.ballot) return;
    this.accepted.add(from);
    if (this.accepted.size < majority(this.config.acceptors.length)) return;
    this.chosen = value;
    this.phase = "announcing";
    this.ctx.annotate("paxos.chosen", { ballot, value });
    this.announce();
  }

  /** Tells every learner that has not answered yet, again every phase timeout. */
  private announce(): void {
    this.ctx.cancelTimer(this.timer);
    const missing = this.config.learners.filter((l) => !this.learnersAcked.has(l));
    if (missing.length === 0) {
      this.phase = "done";
      return;
    }
    for (const l of missing) this.ctx.send(l, { kind: "chosen", value: this.chosen! });
    if (this.config.variant === "announce-once") return; // the twin: a learner that missed it never hears again
    this.timer = this.ctx.setTimerMs(this.config.phaseTimeoutMs, () => this.announce(), "paxos.announce");
  }

  private onLearned(from: string): void {
    if (this.phase !== "announcing") return;
    this.learnersAcked.add(from);
    if (this.config.learners.every((l) => this.learnersAcked.has(l))) {
      this.ctx.cancelTimer(this.timer);
      this.phase = "done";
    }
  }

  /** An acceptor promised a higher ballot: this one is lost; retry above it. */
  private onNack(ballot: number, promised: number): void {
    if ((this.phase !== "preparing" && this.phase !== "accepting") || ballot !== this.ballot) return;
    this.round = Math.max(this.round, roundOf(promised, this.config.proposers));
    this.ctx.annotate("paxos.preempted", { ballot, promised });
    this.backoff();
  }

  private armPhaseTimeout(): void {
    this.ctx.cancelTimer(this.timer);
    const ballot = this.ballot;
    this.timer = this.ctx.setTimerMs(
      this.config.phaseTimeoutMs,
      () => {
        if (this.ballot !== ballot || (this.phase !== "preparing" && this.phase !== "accepting")) return;
        this.ctx.annotate("paxos.timeout", { ballot, phase: this.phase });
        this.backoff();
      },
      "paxos.phase-timeout",
    );
  }

  private backoff(): void {
    this.ctx.cancelTimer(this.timer);
    this.phase = "backoff";
    const { retryMinMs, retryMaxMs } = this.config;
    const delayUs = this.ctx.rng.int(retryMinMs * 1000, retryMaxMs * 1000);
    this.timer = this.ctx.setTimer(delayUs, () => this.beginRound(), "paxos.retry");
  }
}
