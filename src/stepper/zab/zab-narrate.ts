/**
 * Narration of a ZAB run in the book's vocabulary ("From Paxos to ZooKeeper", ch. 4): one line
 * per trace event worth a line, generated from the event itself (never a fixed script), so
 * whatever the learner does is explained. Message names go through `QUORUM_PACKET_BOOK`
 * (PROPOSAL is the book's PROPOSE, FOLLOWERINFO its CEPOCH, …); where ZooKeeper has no book
 * counterpart the line says what the packet is for.
 *
 * Heartbeats (PING), client pings and timer ticks are left out: they would drown the story.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { ClientCompleteFields } from "../../zk/trace-events.js";
import { formatLinks } from "../narrate-common.js";
import { QUORUM_PACKET_BOOK, ZAB_STATE_BOOK_PHASE, type QuorumPacketType, type ZabState } from "../../zk/server/quorum/zab-vocabulary.js";

/** The book's name of a traced message type, if it is a ZAB or FLE message. */
export function zabBookOfType(type: string): string | undefined {
  const entry = QUORUM_PACKET_BOOK[type as QuorumPacketType];
  if (entry !== undefined) return entry.message ?? type;
  if (type === "fle.notification") return "VOTE";
  return undefined;
}

const QUIET_TYPES = new Set(["PING", "ping", "qcm.initial"]);
const QUIET_TIMERS = new Set(["leader-tick", "learner-watchdog", "zk-client.tick", "qcm.loopback", "learner-log-fsync", "session-expiry", "snapshot-chunk", "container-check"]);

const SYNC_MODE_WHY: Record<string, string> = {
  DIFF: "it only lacks committed txns the leader still holds in memory: they follow as PROPOSE+COMMIT pairs",
  TRUNC: "it logged txns the new leader never committed: it must cut its log back first",
  SNAP: "it is too far behind for a diff: it gets the whole tree as a snapshot",
};

export function narrateZab(e: TraceEvent): string | undefined {
  const n = e.node;
  switch (e.kind) {
    case "deliver": {
      const type = e.detail ?? "?";
      if (QUIET_TYPES.has(type)) return undefined;
      const book = zabBookOfType(type);
      if (book === undefined) return `${n} receives ${type} from ${e.peer} (client traffic)`;
      const entry = QUORUM_PACKET_BOOK[type as QuorumPacketType];
      const note = entry !== undefined ? ` — ${entry.note}` : " — a FastLeaderElection notification";
      return `${n} receives ${book} from ${e.peer}${note}`;
    }
    case "drop":
      return `a message ${e.peer}→${n} is lost (${e.detail ?? "dropped"})`;
    case "hold":
      return `${zabBookOfType(e.detail ?? "") ?? e.detail} ${e.peer}→${n} is held: the link is cut (TCP keeps it until the heal)`;
    case "timer":
      if (QUIET_TIMERS.has(e.detail ?? "")) return undefined;
      return `${n}'s timer ${e.detail} fires`;
    case "crash":
      return `${n} crashes: its memory, timers and connections are gone; its disk stays`;
    case "start":
    case "restart":
      return `${n} starts from what its disk holds`;
    case "pause":
      return `${n} is paused (a GC pause): it keeps its state but does nothing`;
    case "resume":
      return `${n} resumes`;
    case "partition":
      return `the network is cut: ${formatLinks(e.fields.links)}`;
    case "heal":
      return `the network heals: ${formatLinks(e.fields.links)}`;
    default:
      return narrateAnnotation(e, n);
  }
}

function narrateAnnotation(e: TraceEvent, n: string): string | undefined {
  switch (e.kind) {
    case "fle.vote":
      return `${n} votes for s${e.fields.proposedLeader} (last zxid ${e.fields.zxid}, election round ${e.fields.electionEpoch})`;
    case "fle.elected":
      return `${n} has a quorum of votes for s${e.fields.leader}: it becomes ${e.fields.state}`;
    case "zab.state":
      return e.fields.state === "LOOKING" ? `${n} is LOOKING: it starts a leader election (FLE)` : undefined;
    case "zab.phase": {
      const book = ZAB_STATE_BOOK_PHASE[e.fields.phase as ZabState];
      return book === undefined ? undefined : `${n} enters ${book.phase} (${book.zh})${e.fields.phase === "ELECTION" ? "" : `, epoch ${e.fields.epoch}`}`;
    }
    case "zab.epoch.accepted":
      return `${n} accepts epoch ${e.fields.epoch} (acceptedEpoch, fsynced): it will not ACK an older leader`;
    case "zab.epoch.current":
      return `${n} sets currentEpoch = ${e.fields.epoch} (fsynced): it follows that epoch's history`;
    case "zab.recovered":
      return `${n} recovered from disk: last zxid ${e.fields.lastZxid}, currentEpoch ${e.fields.currentEpoch}`;
    case "zab.sync":
      return `${n} synchronizes s${e.fields.learner} by ${e.fields.mode} (learner at ${e.fields.peerLastZxid}): ${SYNC_MODE_WHY[e.fields.mode] ?? ""}`;
    case "zab.truncate":
      return `${n} truncates its log to ${e.fields.zxid}: what it logged after that was never committed`;
    case "zab.snap.load":
      return `${n} loads the leader's snapshot at ${e.fields.zxid}`;
    case "zab.leader.established":
      return `${n} is the established leader of epoch ${e.fields.epoch}: a quorum ACKed NEWLEADER (ACK-LD)`;
    case "zab.role.ended":
      return `${n} leaves ${e.fields.state}: ${e.fields.reason}`;
    case "zab.propose":
      return `${n} (leader) proposes ${e.fields.zxid}: PROPOSE goes to every follower`;
    case "zab.log":
      return `${n} has logged ${e.fields.zxid} (fsynced): a follower sends its ACK; a leader counts it as its own`;
    case "zab.ack":
      return e.fields.from === e.fields.sid
        ? `${n} ACKs ${e.fields.zxid}: its log holds it, fsynced (a follower sends the ACK; a leader counts its own)`
        : `${n} (leader) counts the ACK of s${e.fields.from} for ${e.fields.zxid}`;
    case "zab.commit":
      return `${n} (leader) commits ${e.fields.zxid}: a quorum has logged it; COMMIT goes to the followers`;
    case "zab.deliver":
      return `${n} delivers ${e.fields.zxid} (applies it to its tree, in zxid order)`;
    case "client.invoke":
      return `${n} calls ${e.fields.op}${"path" in e.fields ? ` ${e.fields.path}` : ""}`;
    case "client.complete":
      return `${n}'s op ${e.fields.opId} ends: ${outcomeText(e.fields)}`;
    case "client.state":
      return `${n} is ${e.fields.state}${e.fields.cause !== undefined ? ` (${e.fields.cause})` : ""}`;
    case "zk.session.expire":
      return `${n} expires session ${e.fields.session}: its ephemeral nodes are deleted`;
    default:
      return undefined;
  }
}

function outcomeText(f: ClientCompleteFields): string {
  if (f.outcome === "ok") return `ok${f.zxid !== undefined ? ` (zxid ${f.zxid})` : ""}`;
  if (f.outcome === "unknown") return `unknown (${f.err}): it may or may not have happened`;
  return `failed (${f.err})`;
}
