/**
 * The Paxos learner (book 2.2, "提案的获取"): it learns the chosen value either from the
 * acceptors (scheme one: every acceptor sends each acceptance to every learner, and a majority
 * of acceptances at one ballot means chosen) or from a proposer that saw that majority
 * (`chosen`, answered with `learned` once durable).
 *
 * The learned value is fsynced to the file "learner"; after a restart it is read back (a
 * learner never unlearns what it has made durable). Broken twin `learn-unwritten`: a learner
 * whose write fails (a full disk) learns, and reports, the value anyway — after a restart it
 * holds nothing.
 */
import type { NodeContext, Process } from "../../world/index.js";
import { isPaxosMessage, majority, type PaxosValue } from "./messages.js";
import { invariant } from "../../base/errors.js";

export const LEARNER_FILE = "learner";

export type LearnerVariant = "correct" | "learn-unwritten";

export interface LearnerConfig {
  acceptors: number;
  variant?: LearnerVariant;
}

export class PaxosLearner implements Process {
  private learned: PaxosValue | undefined;
  private durable = false;
  private readonly waiting: string[] = [];
  /** Acceptances seen per ballot: its value and who accepted it. */
  private readonly tallies = new Map<number, { value: PaxosValue; acceptors: Set<string> }>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly config: LearnerConfig,
  ) {
    const stored = ctx.disk.read(LEARNER_FILE);
    const last = stored[stored.length - 1] as { value: PaxosValue } | undefined;
    if (last !== undefined) {
      this.learned = last.value;
      this.durable = true;
    }
    ctx.annotate("paxos.learner.recovered", { value: this.learned ?? null });
  }

  inspect(): Record<string, unknown> {
    return { role: "learner", learnedValue: this.learned ?? null, durable: this.durable, ballotsSeen: this.tallies.size };
  }

  onDatagram(from: string, payload: unknown): void {
    if (!isPaxosMessage(payload)) return;
    if (payload.kind === "accepted") return this.onAccepted(from, payload.ballot, payload.value);
    if (payload.kind === "chosen") return this.onChosen(from, payload.value);
  }

  private onAccepted(from: string, ballot: number, value: PaxosValue): void {
    if (this.learned !== undefined) return;
    const tally = this.tallies.get(ballot) ?? { value, acceptors: new Set<string>() };
    this.tallies.set(ballot, tally);
    tally.acceptors.add(from);
    if (tally.acceptors.size >= majority(this.config.acceptors)) this.learn(value, "accepted", undefined);
  }

  private onChosen(from: string, value: PaxosValue): void {
    if (this.learned !== undefined) {
      if (this.durable) this.ctx.send(from, { kind: "learned", value: this.learned });
      else this.waiting.push(from);
      return;
    }
    this.learn(value, "chosen", from);
  }

  private learn(value: PaxosValue, via: "accepted" | "chosen", proposer: string | undefined): void {
    invariant(this.learned === undefined, () => `learner ${this.ctx.id} learns a second value: a decision never changes`);
    const written = this.ctx.disk.replace(LEARNER_FILE, [{ value }], [32]);
    if (!written.ok) {
      // The broken twin learn-unwritten learns, and reports, what it could not write.
      if (this.config.variant !== "learn-unwritten") return;
    }
    this.learned = value;
    if (proposer !== undefined) this.waiting.push(proposer);
    this.ctx.disk.fsync(LEARNER_FILE, () => {
      this.durable = true;
      this.ctx.annotate("paxos.learned", { value, via });
      for (const p of this.waiting.splice(0)) this.ctx.send(p, { kind: "learned", value });
    });
  }
}
