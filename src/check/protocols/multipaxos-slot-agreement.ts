/**
 * `multipaxos.slot-agreement`: in every log slot at most one command is chosen, where chosen
 * means accepted by a majority of the replicas at one ballot (`multipaxos.accepted`: slot,
 * ballot, command id, replica count). One Paxos instance per slot (book 3.1.5), so single-decree
 * agreement, slot by slot. A malformed annotation is reported (check/event-reader), never skipped.
 */
import { ViolationLog, type Checker, type RunEnd, type Violation, type KindsOf } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { SlotTally } from "./multipaxos-chosen.js";

const KINDS = ["multipaxos.accepted"] as const;
type Kind = KindsOf<typeof KINDS>;

export class MultiPaxosSlotAgreementChecker implements Checker<Kind> {
  readonly name = "multipaxos.slot-agreement";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly tally = new SlotTally();
  private readonly chosen = new Map<number, { command: string; ballot: number }>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const t = this.tally.add(e);
    if (t.kind === "conflict") return this.log.add(e, `slot ${t.slot}, ballot ${t.ballot}: ${e.node} accepted ${t.command} but ${t.first} was proposed at that ballot`);
    if (t.kind !== "chosen") return;
    const first = this.chosen.get(t.slot);
    if (first === undefined) this.chosen.set(t.slot, { command: t.command, ballot: t.ballot });
    else if (first.command !== t.command) this.log.add(e, `slot ${t.slot} has two chosen commands: ${first.command} at ballot ${first.ballot} and ${t.command} at ballot ${t.ballot} (accepted by ${t.acceptors.join(", ")})`);
  }

  finish(_end?: RunEnd): Violation[] {
    return this.log.violations;
  }
}
