/**
 * `multipaxos.liveness`: once the faults are over, the replicated log has no holes and every
 * replica runs all of it (book 3.1.5: a new leader fills the gaps with no-ops, and a replica
 * behind the leader catches up). Judged only when the run ends at least `budgetMs` after its
 * last fault, or comes to rest with nothing left to happen (QuietPeriod). Then every replica
 * that is up must have applied, in its current incarnation (its learned log is volatile),
 * every slot up to the highest one chosen anywhere at least `settleMs` before the end — chosen
 * meaning accepted by a majority at one ballot (multipaxos-chosen.ts). Clients keep writing to
 * the end, so slots chosen in the last moments may not have reached every replica yet: those
 * are not judged.
 *
 * A stuck run says what is stuck: for each replica behind, the first slot it has not applied,
 * whether that slot was ever chosen (a hole no leader filled) or chosen and not learned, and
 * which replica led last, and when.
 *
 * Clients too: a client retries its request through every leader change until some leader
 * answers (client.ts), so on a run judged as above, a request of a client that is up and not
 * paused, still unanswered `budgetMs` after it was invoked, is stuck — a service that stopped
 * answering (no replica completes phase 1, a leader never gets its lease) chooses nothing, and
 * leaves no replica behind on any chosen slot. A crashed client's request dies with it (a
 * restarted client is a new one: client.ts).
 */
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type Violation } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField, stringField } from "../event-reader.js";
import { SlotTally } from "./multipaxos-chosen.js";
import { QuietPeriod } from "./quiet-period.js";

export const MULTIPAXOS_LIVENESS_BUDGET_MS = 2500;
const SETTLE_MS = 500;

interface Replica {
  up: boolean;
  /** Slots applied in its current incarnation, from 0 (slots apply in order). */
  appliedUpTo: number;
}

interface PendingRequest {
  node: string;
  atUs: number;
  what: string;
}

const KINDS = ["multipaxos.accepted", "multipaxos.apply", "multipaxos.replica.recovered", "multipaxos.leader", "multipaxos.client.invoke", "multipaxos.client.complete", ...QuietPeriod.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

export class MultiPaxosLivenessChecker implements Checker<Kind> {
  readonly name = "multipaxos.liveness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly quiet = new QuietPeriod();
  private readonly tally = new SlotTally();
  /** Slot → when its command was chosen, and which. */
  private readonly chosen = new Map<number, { atUs: number; command: string }>();
  private readonly replicas = new Map<string, Replica>();
  private lastLeader: { node: string; atUs: number } | undefined;
  /** Client id → its request not yet answered. */
  private readonly pending = new Map<string, PendingRequest>();
  private readonly paused = new Set<string>();

  constructor(
    private readonly budgetMs = MULTIPAXOS_LIVENESS_BUDGET_MS,
    private readonly settleMs = SETTLE_MS,
  ) {}

  onEvent(e: TraceEvent<Kind>): void {
    this.quiet.onEvent(e);
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "multipaxos.replica.recovered":
        this.replicas.set(e.node, { up: true, appliedUpTo: 0 });
        return;
      case "crash": {
        const r = this.replicas.get(e.node);
        if (r !== undefined) r.up = false;
        for (const [client, p] of [...this.pending]) if (p.node === e.node) this.pending.delete(client);
        this.paused.delete(e.node);
        return;
      }
      case "pause":
        this.paused.add(e.node);
        return;
      case "resume":
        this.paused.delete(e.node);
        return;
      case "multipaxos.client.invoke":
        this.pending.set(stringField(e, "client"), { node: e.node, atUs: e.atUs, what: `${stringField(e, "op")} ${stringField(e, "key")} (request ${intField(e, "reqId")})` });
        return;
      case "multipaxos.client.complete":
        this.pending.delete(stringField(e, "client"));
        return;
      case "multipaxos.leader":
        this.lastLeader = { node: e.node, atUs: e.atUs };
        return;
      case "multipaxos.apply": {
        const slot = intField(e, "slot");
        const r = this.replicas.get(e.node);
        if (r !== undefined) r.appliedUpTo = Math.max(r.appliedUpTo, slot + 1);
        return;
      }
      case "multipaxos.accepted": {
        const t = this.tally.add(e);
        if (t.kind === "chosen" && !this.chosen.has(t.slot)) this.chosen.set(t.slot, { atUs: e.atUs, command: t.command });
        return;
      }
    }
  }

  finish(end?: RunEnd): Violation[] {
    if (!this.quiet.judgeable(end, this.budgetMs)) return this.log.violations;
    this.judgeReplicas(end);
    this.judgeClients(end);
    return this.log.violations;
  }

  private leaderText(): string {
    return this.lastLeader === undefined ? "no replica ever led" : `the last to take the lead was ${this.lastLeader.node}, at ${(this.lastLeader.atUs / 1000).toFixed(1)} ms`;
  }

  private judgeClients(end: RunEnd): void {
    const stuck = [...this.pending]
      .filter(([, p]) => !this.paused.has(p.node) && p.atUs <= end.atUs - this.budgetMs * 1000)
      .map(([client, p]) => `${client}'s ${p.what}, invoked at ${(p.atUs / 1000).toFixed(1)} ms`);
    if (stuck.length === 0) return;
    this.log.add(end, `${this.quiet.describe(end, this.budgetMs)}, a client still waits for an answer: ${stuck.join("; ")}; ${this.leaderText()}`);
  }

  private judgeReplicas(end: RunEnd): void {
    let top = -1;
    for (const [slot, c] of this.chosen) if (c.atUs <= end.atUs - this.settleMs * 1000) top = Math.max(top, slot);
    const behind = [...this.replicas].filter(([, r]) => r.up && r.appliedUpTo <= top);
    if (behind.length === 0) return;
    const stuck = behind.map(([node, r]) => {
      const first = this.chosen.get(r.appliedUpTo);
      const why = first === undefined ? "never chosen: a hole no leader filled" : `chosen (${first.command}) at ${(first.atUs / 1000).toFixed(1)} ms but not learned`;
      return `${node} applied slots below ${r.appliedUpTo} only (slot ${r.appliedUpTo}: ${why})`;
    });
    this.log.add(end, `${this.quiet.describe(end, this.budgetMs)}, slots up to ${top} are chosen but ${stuck.join("; ")}; ${this.leaderText()}`);
  }
}
