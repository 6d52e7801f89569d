/**
 * A Multi-Paxos replica (book 3.1.5): acceptor, learner and proposer of a replicated log that
 * drives a key-value state machine, with a distinguished proposer (the leader, Chubby's master).
 *
 * - Leader change: a replica that hears no heartbeat for an election timeout (drawn from its
 *   rng) runs phase 1 once, for every slot from the first it has not applied, with a ballot
 *   above any promise it knows. With promises from a majority it re-proposes, slot by slot,
 *   the highest-numbered value they report, fills the gaps with no-ops, and then proposes new
 *   client commands in later slots with phase 2 only. A nack (a higher promise) deposes it.
 * - Learning: the leader announces each chosen slot; a replica behind the leader's applied
 *   prefix (heartbeats carry it) asks for the rest (`catchup`). Slots apply in order; a client's
 *   retried command applies once (the state machine remembers each client's last request).
 * - Reads are served by the leader from its state machine, after it applied every slot it
 *   re-proposed. Master lease (Chubby): followers that acknowledge a heartbeat promise for
 *   `leaseMs` of their own clock not to promise any other proposer; the leader serves reads only
 *   while a majority acknowledged a heartbeat it sent less than its own, shorter lease ago. A
 *   restarted replica waits a longer lease before promising anything (it may have granted a
 *   lease it forgot). Without the lease (`leaseMs` 0) a deposed master that does not know it
 *   keeps serving stale reads.
 * - Clock drift (Paxos Made Live, 5.2: "the master maintains a shorter timeout for the lease
 *   than the replicas"): each node measures the lease on its own clock, and clocks run up to
 *   `maxClockDriftPct` fast or slow. With ρ that fraction, a follower's grant lasts at least
 *   leaseMs/(1+ρ) of true time from when it acked, so the leader counts only
 *   leaseMs·(1−ρ)/(1+ρ) of its clock from the heartbeat's send (at most leaseMs/(1+ρ) true
 *   time); a restarted replica waits leaseMs·(1+ρ)/(1−ρ) of its clock (at least leaseMs/(1−ρ)
 *   true time, the longest a grant it forgot can last). The broken twin `no-drift-margin`
 *   counts leaseMs everywhere: with a slow leader clock and fast follower clocks, a new leader
 *   is elected while the old one still serves reads.
 * - Broken twin `skip-phase-1`: a new leader takes over without phase 1 and proposes at the
 *   slot after the last one it knows chosen, over values an earlier leader may have had chosen.
 *   `skip-gap-fill`: a new leader re-proposes the slots its promises reported but leaves the
 *   others below the highest empty — a hole that stops every replica's state machine.
 *   `no-catch-up`: a replica asked for catch-up sends nothing, so a replica that missed slots
 *   (down, or cut off, while they were chosen) stays behind until it leads itself.
 *
 * Durability: promises and acceptances are fsynced before they are answered (acceptor-log.ts;
 * a re-sent accept is answered when the first write of it is durable, not written again);
 * the last round is fsynced before it is used. The learned log is volatile: a restarted replica
 * learns it again from the leader.
 */
import type { NodeContext, Process } from "../../world/index.js";
import { AcceptorLog } from "./acceptor-log.js";
import { commandId, isMultiPaxosMessage, majority, type AcceptedEntry, type Command, type MultiPaxosMessage } from "./messages.js";
import { invariant } from "../../base/errors.js";

export type ReplicaVariant = "correct" | "skip-phase-1" | "skip-gap-fill" | "mute-promise" | "no-catch-up";

export interface ReplicaConfig {
  index: number;
  replicas: readonly string[];
  heartbeatMs: number;
  electionTimeoutMinMs: number;
  electionTimeoutMaxMs: number;
  /** Chubby's master lease, on the followers' clocks; 0: off. */
  leaseMs: number;
  /** How far (percent) any clock may run fast or slow; the lease keeps this margin (0: none, the `no-drift-margin` twin). */
  maxClockDriftPct: number;
  variant: ReplicaVariant;
}

type Role = "follower" | "candidate" | "leader";
const ROUND_FILE = "proposer";
const CATCHUP_BATCH = 64;

export class MultiPaxosReplica implements Process {
  private readonly acceptor: AcceptorLog;
  private role: Role = "follower";
  private round = -1;
  private ballot = 0;
  private leader: string | null = null;
  private lastHeartbeatUs: number;
  private electionTimeoutUs = 0;
  private readonly promises = new Map<string, AcceptedEntry[]>();
  private readonly proposals = new Map<number, { value: Command; acks: Set<string> }>();
  private nextSlot = 0;
  private readBarrier = 0;
  private leaseUntilUs = 0;
  /** The lease the leader counts on its own clock from a heartbeat's send: shorter than the followers' by the drift margin. */
  private readonly leaderLeaseUs: number;
  private readonly heartbeatAcks = new Map<number, Set<string>>();
  /** Follower side of the lease: no promise to another proposer before this (local µs). */
  private grantedUntilUs: number;
  private grantedBallot = 0;
  private readonly chosen = new Map<number, Command>();
  private applied = 0;
  private readonly kv = new Map<string, string>();
  private readonly lastRequest = new Map<string, number>();
  /** Commands this leader proposed for a client, by id, and the node to answer once applied. */
  private readonly waiting = new Map<string, string>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: ReplicaConfig,
  ) {
    this.acceptor = new AcceptorLog(ctx);
    const rounds = ctx.disk.read(ROUND_FILE);
    const last = rounds[rounds.length - 1] as { round: number } | undefined;
    if (last !== undefined) this.round = last.round;
    this.lastHeartbeatUs = ctx.nowUs();
    const drift = config.maxClockDriftPct / 100;
    this.leaderLeaseUs = Math.floor((config.leaseMs * 1000 * (1 - drift)) / (1 + drift));
    this.grantedUntilUs = config.leaseMs > 0 ? ctx.nowUs() + Math.ceil((config.leaseMs * 1000 * (1 + drift)) / (1 - drift)) : 0;
    this.drawElectionTimeout();
    ctx.annotate("multipaxos.replica.recovered", { promised: this.acceptor.promised, accepted: this.acceptor.accepted.size });
    ctx.setTimerMs(config.heartbeatMs, () => this.onTick(), "multipaxos.tick");
  }

  inspect(): Record<string, unknown> {
    const now = this.ctx.nowUs();
    return {
      role: this.role,
      ballot: this.ballot,
      promisedBallot: this.acceptor.promised,
      leader: this.leader,
      nextSlot: this.nextSlot,
      applied: this.applied,
      log: [...this.chosen].sort((a, b) => a[0] - b[0]).map(([slot, c]) => ({ slot, command: commandId(c) })),
      accepted: this.acceptor.entriesFrom(0).map((e) => ({ slot: e.slot, ballot: e.ballot, command: commandId(e.value) })),
      kv: Object.fromEntries([...this.kv].sort()),
      lease: this.config.leaseMs === 0 ? "off" : this.role === "leader" ? { heldForMs: Math.max(0, (this.leaseUntilUs - now) / 1000) } : { grantedToBallot: this.grantedBallot, forMs: Math.max(0, (this.grantedUntilUs - now) / 1000) },
    };
  }

  onDatagram(from: string, m: unknown): void {
    if (!isMultiPaxosMessage(m)) return;
    const msg: MultiPaxosMessage = m;
    switch (msg.kind) {
      case "prepare":
        return this.onPrepare(from, msg.ballot, msg.fromSlot);
      case "promise":
        return this.onPromise(from, msg.ballot, msg.entries);
      case "accept":
        return this.onAccept(from, msg.ballot, msg.slot, msg.value);
      case "accepted":
        return this.onAccepted(from, msg.ballot, msg.slot);
      case "nack":
        return this.onNack(msg.ballot, msg.promised);
      case "chosen":
        return this.learn(msg.slot, msg.value);
      case "heartbeat":
        return this.onHeartbeat(from, msg.ballot, msg.chosenUpTo, msg.sentUs);
      case "heartbeat-ack":
        return this.onHeartbeatAck(from, msg.ballot, msg.sentUs);
      case "catchup":
        return this.onCatchup(from, msg.fromSlot);
      case "request":
        return this.onRequest(from, msg);
      case "reply":
      case "redirect":
        return;
    }
  }

  private ownerOf(ballot: number): number {
    return (ballot - 1) % this.config.replicas.length;
  }

  private drawElectionTimeout(): void {
    this.electionTimeoutUs = this.ctx.rng.int(this.config.electionTimeoutMinMs * 1000, this.config.electionTimeoutMaxMs * 1000);
  }

  private others(): string[] {
    return this.config.replicas.filter((r) => r !== this.ctx.id);
  }

  // ---- timers: heartbeats and retransmission (leader), election timeout (others) ----------

  private onTick(): void {
    this.ctx.setTimerMs(this.config.heartbeatMs, () => this.onTick(), "multipaxos.tick");
    const now = this.ctx.nowUs();
    if (this.role === "leader") {
      this.heartbeatAcks.clear();
      this.heartbeatAcks.set(now, new Set([this.ctx.id]));
      for (const r of this.others()) this.ctx.send(r, { kind: "heartbeat", ballot: this.ballot, chosenUpTo: this.applied, sentUs: now });
      for (const [slot, p] of this.proposals) for (const r of this.config.replicas) if (!p.acks.has(r)) this.ctx.send(r, { kind: "accept", ballot: this.ballot, slot, value: p.value });
      return;
    }
    if (now - this.lastHeartbeatUs >= this.electionTimeoutUs) this.startPhase1();
  }

  private startPhase1(): void {
    this.drawElectionTimeout();
    this.lastHeartbeatUs = this.ctx.nowUs();
    const round = Math.max(this.round, Math.floor((this.acceptor.promised - 1) / this.config.replicas.length)) + 1;
    if (!this.ctx.disk.replace(ROUND_FILE, [{ round }], [16]).ok) return;
    this.round = round;
    this.role = "candidate";
    this.ctx.disk.fsync(ROUND_FILE, () => {
      if (this.round !== round || this.role !== "candidate") return;
      this.ballot = round * this.config.replicas.length + this.config.index + 1;
      this.promises.clear();
      if (this.config.variant === "skip-phase-1") return this.becomeLeader(new Map());
      this.ctx.annotate("multipaxos.prepare", { ballot: this.ballot, fromSlot: this.applied });
      for (const r of this.config.replicas) this.ctx.send(r, { kind: "prepare", ballot: this.ballot, fromSlot: this.applied });
    });
  }

  // ---- acceptor -------------------------------------------------------------------------

  private onPrepare(from: string, ballot: number, fromSlot: number): void {
    const leaseHeld = this.ctx.nowUs() < this.grantedUntilUs && (this.grantedBallot === 0 || this.ownerOf(ballot) !== this.ownerOf(this.grantedBallot));
    if (ballot <= this.acceptor.promised || leaseHeld) {
      this.ctx.send(from, { kind: "nack", ballot, promised: this.acceptor.promised });
      return;
    }
    this.acceptor.promise(ballot, () => {
      this.ctx.annotate("multipaxos.promised", { ballot }, from);
      // The broken twin mute-promise keeps its promise to itself: no candidate ever completes phase 1.
      if (this.config.variant === "mute-promise") return;
      this.ctx.send(from, { kind: "promise", ballot, entries: this.acceptor.entriesFrom(fromSlot) });
    });
    if (this.role !== "follower" && ballot > this.ballot) this.stepDown(ballot);
  }

  private onAccept(from: string, ballot: number, slot: number, value: Command): void {
    if (ballot < this.acceptor.promised) {
      this.ctx.send(from, { kind: "nack", ballot, promised: this.acceptor.promised });
      return;
    }
    const answer = (): void => this.ctx.send(from, { kind: "accepted", ballot, slot });
    // A re-sent accept is answered once the first write is durable, never from memory before
    // (answering early let a slot be chosen twice), and never written again (acceptor-log.ts).
    if (this.acceptor.whenAccepted(slot, ballot, value, answer)) return;
    this.acceptor.accept(slot, ballot, value, () => {
      this.ctx.annotate("multipaxos.accepted", { slot, ballot, command: commandId(value), acceptors: this.config.replicas.length }, from);
      answer();
    });
  }

  // ---- proposer / leader ----------------------------------------------------------------

  private onPromise(from: string, ballot: number, entries: AcceptedEntry[]): void {
    if (this.role !== "candidate" || ballot !== this.ballot) return;
    this.promises.set(from, entries);
    if (this.promises.size < majority(this.config.replicas.length)) return;
    const adopted = new Map<number, AcceptedEntry>();
    for (const list of this.promises.values()) for (const e of list) if ((adopted.get(e.slot)?.ballot ?? 0) < e.ballot) adopted.set(e.slot, e);
    this.becomeLeader(new Map([...adopted].map(([slot, e]) => [slot, e.value])));
  }

  /** Re-proposes `adopted` slots, fills gaps below the highest with no-ops, then leads. */
  private becomeLeader(adopted: Map<number, Command>): void {
    this.role = "leader";
    this.leader = this.ctx.id;
    this.proposals.clear();
    this.leaseUntilUs = 0;
    let top = this.applied - 1;
    for (const slot of adopted.keys()) top = Math.max(top, slot);
    if (this.config.variant === "skip-phase-1") for (const slot of this.chosen.keys()) top = Math.max(top, slot);
    let noops = 0;
    for (let slot = this.applied; slot <= top; slot++) {
      if (this.config.variant === "skip-phase-1") continue;
      // The twin skip-gap-fill leaves a slot no promise reported empty: the log has a hole forever.
      if (this.config.variant === "skip-gap-fill" && !this.chosen.has(slot) && !adopted.has(slot)) continue;
      const value = this.chosen.get(slot) ?? adopted.get(slot) ?? { kind: "noop" as const };
      if (value.kind === "noop" && !adopted.has(slot) && !this.chosen.has(slot)) noops++;
      this.propose(slot, value);
    }
    this.nextSlot = top + 1;
    this.readBarrier = this.nextSlot;
    this.ctx.annotate("multipaxos.leader", { ballot: this.ballot, fromSlot: this.applied, reproposed: Math.max(0, top + 1 - this.applied), noops, phase1: this.config.variant !== "skip-phase-1" });
  }

  private propose(slot: number, value: Command): void {
    this.proposals.set(slot, { value, acks: new Set() });
    for (const r of this.config.replicas) this.ctx.send(r, { kind: "accept", ballot: this.ballot, slot, value });
  }

  private onAccepted(from: string, ballot: number, slot: number): void {
    if (this.role !== "leader" || ballot !== this.ballot) return;
    const p = this.proposals.get(slot);
    if (p === undefined) return;
    p.acks.add(from);
    if (p.acks.size < majority(this.config.replicas.length)) return;
    this.proposals.delete(slot);
    for (const r of this.others()) this.ctx.send(r, { kind: "chosen", slot, value: p.value });
    this.learn(slot, p.value);
  }

  private onNack(ballot: number, promised: number): void {
    if (this.role === "follower" || ballot !== this.ballot || promised <= this.ballot) return;
    this.stepDown(promised);
  }

  private stepDown(promised: number): void {
    this.ctx.annotate("multipaxos.deposed", { ballot: this.ballot, promised });
    this.round = Math.max(this.round, Math.floor((promised - 1) / this.config.replicas.length));
    this.role = "follower";
    this.leader = null;
    this.proposals.clear();
    this.waiting.clear();
    this.lastHeartbeatUs = this.ctx.nowUs();
  }

  private onHeartbeat(from: string, ballot: number, chosenUpTo: number, sentUs: number): void {
    if (ballot < this.acceptor.promised) {
      this.ctx.send(from, { kind: "nack", ballot, promised: this.acceptor.promised });
      return;
    }
    if (this.role !== "follower" && ballot > this.ballot) this.stepDown(ballot);
    this.leader = from;
    this.lastHeartbeatUs = this.ctx.nowUs();
    if (this.config.leaseMs > 0) {
      this.grantedUntilUs = this.ctx.nowUs() + this.config.leaseMs * 1000;
      this.grantedBallot = ballot;
    }
    this.ctx.send(from, { kind: "heartbeat-ack", ballot, sentUs });
    if (this.applied < chosenUpTo) this.ctx.send(from, { kind: "catchup", fromSlot: this.applied });
  }

  private onHeartbeatAck(from: string, ballot: number, sentUs: number): void {
    if (this.role !== "leader" || ballot !== this.ballot) return;
    const acks = this.heartbeatAcks.get(sentUs);
    if (acks === undefined) return;
    acks.add(from);
    if (acks.size >= majority(this.config.replicas.length)) this.leaseUntilUs = Math.max(this.leaseUntilUs, sentUs + this.leaderLeaseUs);
  }

  private onCatchup(from: string, fromSlot: number): void {
    if (this.config.variant === "no-catch-up") return;
    for (let slot = fromSlot; slot < Math.min(this.applied, fromSlot + CATCHUP_BATCH); slot++) {
      const value = this.chosen.get(slot);
      if (value !== undefined) this.ctx.send(from, { kind: "chosen", slot, value });
    }
  }

  // ---- learner and state machine ---------------------------------------------------------

  private learn(slot: number, value: Command): void {
    if (this.chosen.has(slot) || slot < this.applied) return;
    this.chosen.set(slot, value);
    // Slots apply in order, each once: everything below `applied` is chosen, and stays so.
    invariant(this.applied === 0 || this.chosen.has(this.applied - 1), () => `replica ${this.ctx.id} applied slot ${this.applied - 1} without a chosen value`);
    while (this.chosen.has(this.applied)) {
      const c = this.chosen.get(this.applied)!;
      if (c.kind === "put" && (this.lastRequest.get(c.client) ?? 0) < c.reqId) {
        this.kv.set(c.key, c.value);
        this.lastRequest.set(c.client, c.reqId);
      }
      this.ctx.annotate("multipaxos.apply", { slot: this.applied, command: commandId(c) });
      const replyTo = c.kind === "put" ? this.waiting.get(commandId(c)) : undefined;
      if (c.kind === "put" && replyTo !== undefined) {
        this.waiting.delete(commandId(c));
        this.ctx.send(replyTo, { kind: "reply", client: c.client, reqId: c.reqId, value: null });
      }
      this.applied++;
    }
  }

  /** A client's request (`from`: its node; `m.client`: its identity, which duplicate detection keys on). */
  private onRequest(from: string, m: Extract<MultiPaxosMessage, { kind: "request" }>): void {
    const { client, reqId, key } = m;
    if (this.role !== "leader") {
      this.ctx.send(from, { kind: "redirect", client, reqId, leader: this.leader });
      return;
    }
    if (m.op === "get") {
      const leaseOk = this.config.leaseMs === 0 || this.ctx.nowUs() < this.leaseUntilUs;
      if (leaseOk && this.applied >= this.readBarrier) {
        this.ctx.annotate("multipaxos.read", { client, reqId, key, leaseMs: this.config.leaseMs });
        this.ctx.send(from, { kind: "reply", client, reqId, value: this.kv.get(key) ?? null });
      }
      return;
    }
    if ((this.lastRequest.get(client) ?? 0) >= reqId) {
      this.ctx.send(from, { kind: "reply", client, reqId, value: null });
      return;
    }
    const cmd: Command = { kind: "put", client, reqId, key, value: m.value ?? "" };
    if (this.waiting.has(commandId(cmd))) return;
    this.waiting.set(commandId(cmd), from);
    this.propose(this.nextSlot++, cmd);
  }
}
