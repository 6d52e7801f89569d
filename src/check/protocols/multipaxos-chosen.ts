/**
 * What "chosen" means in Multi-Paxos, read from the trace (book 3.1.5: one Paxos instance per
 * log slot): a command is chosen in a slot when a majority of the replicas accepted it at one
 * ballot (`multipaxos.accepted`: slot, ballot, command id, replica count), tallied by distinct
 * acceptor. Shared by the Multi-Paxos checkers (not by the protocol: checkers share no code with
 * what they check). A malformed annotation throws `MalformedEvent` (check/event-reader).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { intField, stringField } from "../event-reader.js";

/** One acceptance, as the tally saw it. */
export type Tallied =
  | { kind: "counted" }
  /** This acceptance made a majority: the command is chosen in the slot at this ballot. */
  | { kind: "chosen"; slot: number; ballot: number; command: string; acceptors: string[] }
  /** The replica accepted another command than the one first accepted at this slot and ballot. */
  | { kind: "conflict"; slot: number; ballot: number; command: string; first: string };

export class SlotTally {
  /** "slot/ballot" → command and acceptors. */
  private readonly tallies = new Map<string, { command: string; acceptors: Set<string> }>();

  /** Reads one `multipaxos.accepted`. */
  add(e: TraceEvent<"multipaxos.accepted">): Tallied {
    const slot = intField(e, "slot");
    const ballot = intField(e, "ballot");
    const command = stringField(e, "command");
    const acceptors = intField(e, "acceptors");
    const key = `${slot}/${ballot}`;
    const t = this.tallies.get(key) ?? { command, acceptors: new Set<string>() };
    this.tallies.set(key, t);
    if (t.command !== command) return { kind: "conflict", slot, ballot, command, first: t.command };
    const before = t.acceptors.size;
    t.acceptors.add(e.node);
    const need = Math.floor(acceptors / 2) + 1;
    if (before >= need || t.acceptors.size < need) return { kind: "counted" };
    return { kind: "chosen", slot, ballot, command, acceptors: [...t.acceptors] };
  }
}
