/**
 * `multipaxos.slot-agreement`: in every log slot at most one command is chosen, where chosen
 * means accepted by a majority of the replicas at one ballot (`multipaxos.accepted`: slot,
 * ballot, command id, replica count). One Paxos instance per slot (book 3.1.5), so single-decree
 * agreement, slot by slot. A malformed annotation is reported (check/event-reader), never skipped.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded, intField, stringField } from "../event-reader.js";

const KINDS = ["multipaxos.accepted"] as const;
type Kind = KindsOf<typeof KINDS>;

export class MultiPaxosSlotAgreementChecker implements Checker<Kind> {
  readonly name = "multipaxos.slot-agreement";
  readonly kinds = KINDS;
  private readonly log = new ViolationLog(this.name);
  /** "slot/ballot" → command and acceptors. */
  private readonly tallies = new Map<string, { command: string; acceptors: Set<string> }>();
  private readonly chosen = new Map<number, { command: string; ballot: number }>();


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const slot = intField(e, "slot");
    const ballot = intField(e, "ballot");
    const command = stringField(e, "command");
    const acceptors = intField(e, "acceptors");
    const key = `${slot}/${ballot}`;
    const t = this.tallies.get(key) ?? { command, acceptors: new Set<string>() };
    this.tallies.set(key, t);
    if (t.command !== command) return this.log.add(e, `slot ${slot}, ballot ${ballot}: ${e.node} accepted ${command} but ${t.command} was proposed at that ballot`);
    const before = t.acceptors.size;
    t.acceptors.add(e.node);
    const need = Math.floor(acceptors / 2) + 1;
    if (before >= need || t.acceptors.size < need) return;
    const first = this.chosen.get(slot);
    if (first === undefined) this.chosen.set(slot, { command, ballot });
    else if (first.command !== command) this.log.add(e, `slot ${slot} has two chosen commands: ${first.command} at ballot ${first.ballot} and ${command} at ballot ${ballot} (accepted by ${[...t.acceptors].join(", ")})`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
