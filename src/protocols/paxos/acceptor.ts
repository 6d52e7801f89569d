/**
 * The Paxos acceptor (book 2.2, "Acceptor批准提案"): it remembers the highest ballot it has
 * promised and the highest-numbered proposal it has accepted, and nothing else.
 *
 * - prepare(b): if b > promised, promise b (and report the accepted proposal); else nack.
 * - accept(b, v): if b ≥ promised (P1a: it has not responded to a prepare numbered above b),
 *   accept [b, v] — promised becomes b — and tell the proposer and every learner; else nack.
 *
 * Durability (what the book's "除非那些失败或重启的参与者可以记录某些信息" asks): the
 * state is written to the disk file "acceptor" and fsynced before any promise or accepted
 * leaves the node, so a crash loses only state nobody has been told about. The broken twin
 * `promise-before-fsync` answers first and fsyncs after: a crash inside the fsync window
 * forgets a promise or an acceptance that already counted towards a majority.
 * A full disk: the acceptor ignores the request (the book: an acceptor may ignore any request).
 */
import type { NodeContext, Process } from "../../world/index.js";
import { isPaxosMessage, type PaxosMessage, type PaxosValue } from "./messages.js";
import { invariant } from "../../base/errors.js";

export const ACCEPTOR_FILE = "acceptor";
const STATE_BYTES = 64;

export type AcceptorVariant = "correct" | "promise-before-fsync";

export interface AcceptorConfig {
  learners: readonly string[];
  /** The number of acceptors: annotated with each acceptance, so checkers know the majority. */
  acceptors: number;
  variant: AcceptorVariant;
}

interface AcceptorState {
  promised: number;
  acceptedBallot: number;
  acceptedValue: PaxosValue | null;
}

export class PaxosAcceptor implements Process {
  private state: AcceptorState = { promised: 0, acceptedBallot: 0, acceptedValue: null };

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: AcceptorConfig,
  ) {
    const records = ctx.disk.read(ACCEPTOR_FILE);
    const last = records[records.length - 1] as AcceptorState | undefined;
    if (last !== undefined) this.state = { ...last };
    ctx.annotate("paxos.acceptor.recovered", { promised: this.state.promised, acceptedBallot: this.state.acceptedBallot, acceptedValue: this.state.acceptedValue });
  }

  inspect(): Record<string, unknown> {
    return { role: "acceptor", promisedBallot: this.state.promised, acceptedBallot: this.state.acceptedBallot, acceptedValue: this.state.acceptedValue };
  }

  onDatagram(from: string, payload: unknown): void {
    if (!isPaxosMessage(payload)) return;
    const m: PaxosMessage = payload;
    if (m.kind === "prepare") return this.onPrepare(from, m.ballot);
    if (m.kind === "accept") return this.onAccept(from, m.ballot, m.value);
  }

  private onPrepare(from: string, ballot: number): void {
    const s = this.state;
    if (ballot <= s.promised) {
      this.ctx.send(from, { kind: "nack", ballot, promised: s.promised });
      return;
    }
    const promise = { kind: "promise", ballot, acceptedBallot: s.acceptedBallot, acceptedValue: s.acceptedValue } as const;
    this.persistThen({ ...s, promised: ballot }, () => {
      this.ctx.annotate("paxos.promised", { ballot, acceptedBallot: promise.acceptedBallot, acceptedValue: promise.acceptedValue }, from);
      this.ctx.send(from, promise);
    });
  }

  private onAccept(from: string, ballot: number, value: PaxosValue): void {
    const s = this.state;
    if (ballot < s.promised) {
      this.ctx.send(from, { kind: "nack", ballot, promised: s.promised });
      return;
    }
    this.persistThen({ promised: ballot, acceptedBallot: ballot, acceptedValue: value }, () => {
      this.ctx.annotate("paxos.accepted", { ballot, value, acceptors: this.config.acceptors }, from);
      const accepted = { kind: "accepted", ballot, value } as const;
      this.ctx.send(from, accepted);
      for (const l of this.config.learners) this.ctx.send(l, accepted);
    });
  }

  /** Writes `next` and adopts it; answers once it is durable (or at once, in the broken twin). */
  private persistThen(next: AcceptorState, answer: () => void): void {
    const s = this.state;
    invariant(next.promised >= s.promised && next.acceptedBallot >= s.acceptedBallot && next.acceptedBallot <= next.promised, () => `acceptor ${this.ctx.id}: promised ${s.promised} → ${next.promised}, accepted ${s.acceptedBallot} → ${next.acceptedBallot}: ballots only grow, and nothing is accepted above the promise`);
    const written = this.ctx.disk.replace(ACCEPTOR_FILE, [next], [STATE_BYTES]);
    if (!written.ok) return;
    this.state = next;
    if (this.config.variant === "promise-before-fsync") {
      answer();
      this.ctx.disk.fsync(ACCEPTOR_FILE);
      return;
    }
    this.ctx.disk.fsync(ACCEPTOR_FILE, answer);
  }
}
