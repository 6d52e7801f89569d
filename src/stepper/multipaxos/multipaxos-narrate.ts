/**
 * Narration of a Multi-Paxos run in the book's vocabulary (3.1.5, Chubby's log: one Paxos
 * instance per slot, a distinguished proposer — the master — that runs phase 1 once for every
 * later slot): one line per trace event worth one, generated from the event. Heartbeats and
 * their acks (the master lease's renewals) are left out: they would drown the story.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { narrateLifecycle } from "../narrate-common.js";
import type { Traffic } from "../types.js";

const MESSAGE_NOTES: Record<string, string> = {
  prepare: "phase 1a, for every slot from the one named",
  promise: "phase 1b, with what it accepted in those slots",
  accept: "phase 2a for one slot",
  accepted: "phase 2b for one slot",
  nack: "a refusal: it promised a higher ballot",
  chosen: "a slot's value is chosen",
  catchup: "a replica asks for chosen slots it lacks",
  request: "a client's command",
  reply: "the answer to a client",
  redirect: "not the leader: try another replica",
  heartbeat: "the leader's heartbeat (renews the lease)",
  "heartbeat-ack": "a heartbeat acknowledged",
};

const QUIET_TYPES = new Set(["heartbeat", "heartbeat-ack"]);
const CLIENT_TYPES = new Set(["request", "reply", "redirect"]);

/** Heartbeats are background; a client's request, reply and redirect are its traffic. */
export function multiPaxosTrafficOf(type: string): Traffic {
  if (QUIET_TYPES.has(type)) return "background";
  return CLIENT_TYPES.has(type) ? "client" : "protocol";
}

/** The events a learner must not miss: a leader taking over or stepping down, a read served, a client answered. */
export const MP_DECISIVE: ReadonlySet<string> = new Set(["multipaxos.leader", "multipaxos.deposed", "multipaxos.read", "multipaxos.client.complete"]);

export function multiPaxosBookOfType(type: string): string | undefined {
  return MESSAGE_NOTES[type] !== undefined ? type : undefined;
}

export function narrateMultiPaxos(e: TraceEvent): string | undefined {
  const n = e.node;
  switch (e.kind) {
    case "deliver": {
      const type = e.detail ?? "";
      if (QUIET_TYPES.has(type) || MESSAGE_NOTES[type] === undefined) return undefined;
      return `${n} receives ${type} from ${e.peer} (${MESSAGE_NOTES[type]})`;
    }
    case "multipaxos.prepare":
      return `${n} heard no leader: phase 1 with ballot ${e.fields.ballot} for every slot from ${e.fields.fromSlot} on — once, for all of them`;
    case "multipaxos.promised":
      return `${n} promises ballot ${e.fields.ballot} to ${e.peer} for every open slot (fsynced)`;
    case "multipaxos.leader":
      return e.fields.phase1 === true
        ? `${n} leads with ballot ${e.fields.ballot}: it re-proposes ${e.fields.reproposed} open slot(s) from ${e.fields.fromSlot}, ${e.fields.noops} gap(s) filled with no-ops; later slots need phase 2 only`
        : `${n} takes over with ballot ${e.fields.ballot} WITHOUT phase 1 (broken twin): it proposes after the last slot it knows`;
    case "multipaxos.accepted":
      return `${n} accepts slot ${e.fields.slot} = ${e.fields.command} at ballot ${e.fields.ballot} (fsynced)`;
    case "multipaxos.deposed":
      return `${n} learns of the higher ballot ${e.fields.promised} and steps down`;
    case "multipaxos.apply":
      return `${n} applies slot ${e.fields.slot}: ${e.fields.command}${e.fields.command === "noop" ? " (a gap filled by a new leader)" : ""}`;
    case "multipaxos.read":
      return `${n} serves ${e.fields.client}'s read of ${e.fields.key} from its state machine${e.fields.leaseMs > 0 ? " (it holds the master lease)" : " (no lease: it cannot know it is still the master)"}`;
    case "multipaxos.client.invoke":
      return `${n} sends ${e.fields.op} ${e.fields.key}${e.fields.op === "put" ? `=${e.fields.value}` : ""} (request ${e.fields.reqId})`;
    case "multipaxos.client.complete":
      return `${n}'s request ${e.fields.reqId} is answered${e.fields.op === "get" ? `: ${e.fields.key} = ${e.fields.value === null ? "(none)" : String(e.fields.value)}` : ""}`;
    case "multipaxos.replica.recovered":
      return e.atUs === 0 ? undefined : `${n} reads its disk back: promised ${e.fields.promised}, ${e.fields.accepted} accepted slot(s); its log of chosen values is learned again`;
    default:
      return narrateLifecycle(e);
  }
}
