/**
 * Narration of a ZAB run in the book's vocabulary ("From Paxos to ZooKeeper", ch. 4): one line
 * per event worth a line, generated from the event (never a fixed script), so whatever the
 * learner does is explained. Message names go through `QUORUM_PACKET_BOOK` (PROPOSAL is the
 * book's PROPOSE, FOLLOWERINFO its CEPOCH, …), and per message through the connection's order
 * where the type alone cannot tell (the ACK of NEWLEADER is ACK-LD; see zk/server/quorum/zab-book-terms.ts);
 * where ZooKeeper has no book counterpart the line says what the packet is for, and timers are
 * named by what they do (an election timeout, a client reconnecting), never by their labels.
 *
 * One line per event: a txn ACK is told once, where it counts — the follower's log write and
 * ACK as one line, the leader's count of it as another (its delivery adds nothing); the
 * leader's own log write is its own ACK. A client's reply and connect answer are told by the
 * client's own line (`client.complete`, `client.state`). Heartbeats (PING), client pings and
 * timer ticks are left out: they would drown the story.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { ClientCompleteFields } from "../../zk/trace-events.js";
import { formatLinks } from "../narrate-common.js";
import { ACK_LD, ACK_OF_UPTODATE, QUORUM_PACKET_BOOK, SYNC_HISTORY, ZAB_STATE_BOOK_PHASE, type BookTerm, type QuorumPacketType, type ZabState } from "../../zk/server/quorum/zab-vocabulary.js";
import type { EventNote } from "./zab-state.js";

/** What the narration reads besides the event: the state it happened in, a message's term. */
export interface ZabNarrationContext {
  /** The server's role and phase when a zab.log or zab.ack happened (recent events). */
  noteOf(e: TraceEvent): EventNote | undefined;
  /** The book term of a sent message by id, where its place on the connection decides it. */
  termOf(msg: number): BookTerm | undefined;
  /** How many ACKs make a quorum. */
  quorum: number;
}

/** The book's name of a traced message type, if it is a ZAB or FLE message. */
export function zabBookOfType(type: string): string | undefined {
  const entry = QUORUM_PACKET_BOOK[type as QuorumPacketType];
  if (entry !== undefined) return entry.message ?? type;
  if (type === "fle.notification") return "VOTE";
  return undefined;
}

/** The book's name of one message by its term: ACK-LD, "ACK (of UPTODATE)", the history's PROPOSE/COMMIT. */
export function zabBookOfTerm(type: string, term: BookTerm | undefined): string | undefined {
  if (term === ACK_LD) return "ACK-LD";
  if (term === ACK_OF_UPTODATE) return "ACK of UPTODATE";
  if (term === SYNC_HISTORY) return `${zabBookOfType(type) ?? type} (Ie′)`;
  return undefined;
}

const QUIET_TYPES = new Set(["PING", "ping", "qcm.initial"]);

/** What each timer that is worth a line does when it fires, in ZooKeeper's words (the book names no timers). */
export const ZAB_TIMER_STORY: Readonly<Record<string, string>> = {
  "fle.notTimeout": "heard no new vote within its election timeout (ZooKeeper's notTimeout): it sends its vote again and waits twice as long",
  "fle.finalizeWait": "heard no better vote within the finalize wait (ZooKeeper's finalizeWait): it settles on the leader it has a quorum for",
  "leader-discovery-timeout": "did not hear a quorum of followers (CEPOCH, ACK-E) within initLimit",
  "leader-newleader-timeout": "did not get a quorum of ACK-LDs within initLimit",
  "learner-connect-retry": "tries again to connect to the leader",
  "zk-client.reconnect": "tries the next server of its connect string",
  "zk-client.rw-probe": "gives up probing a server for a read-write one",
  "read-only-grace": "has no quorum: it starts serving reads only (read-only mode)",
};

/** Timers not told at all: ticks, heartbeats and bookkeeping. */
const QUIET_TIMERS = new Set(["leader-tick", "learner-watchdog", "zk-client.tick", "qcm.loopback", "learner-log-fsync", "session-expiry", "snapshot-chunk", "container-check"]);

const SYNC_MODE_WHY: Record<string, string> = {
  DIFF: "it only lacks committed txns the leader still holds in memory: they follow as PROPOSE+COMMIT pairs",
  TRUNC: "it logged txns the new leader never committed: it must cut its log back first",
  SNAP: "it is too far behind for a diff: it gets the whole tree as a snapshot",
};

/** The events a learner must not miss: commits, a leader established or stepping down, a sync, a session expiring. */
const DECISIVE = new Set(["zab.commit", "zab.leader.established", "zab.role.ended", "zab.sync", "zab.truncate", "zk.session.expire"]);

export function isZabDecisive(e: TraceEvent): boolean {
  return DECISIVE.has(e.kind) && !(e.kind === "zab.role.ended" && e.fields.state !== "LEADING");
}

export function narrateZab(e: TraceEvent, ctx: ZabNarrationContext): string | undefined {
  const n = e.node;
  switch (e.kind) {
    case "deliver":
      return narrateDelivery(e, ctx);
    case "drop":
      return e.detail === "receiver-down" || e.detail === "sender-crashed" || e.detail === "receiver-closed" ? undefined : `a message ${e.peer}→${n} is lost (${e.detail ?? "dropped"})`;
    case "hold":
      return `${zabBookOfType(e.detail ?? "") ?? e.detail} ${e.peer}→${n} is held: the link is cut (TCP keeps it until the heal)`;
    case "timer": {
      const story = ZAB_TIMER_STORY[e.detail ?? ""];
      if (story !== undefined) return `${n} ${story}`;
      return QUIET_TIMERS.has(e.detail ?? "") ? undefined : `${n}'s timer fires (${e.detail ?? "?"})`;
    }
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
    case "zab.log":
    case "zab.ack":
      return narrateLogAndAck(e, ctx);
    default:
      return narrateAnnotation(e, n);
  }
}

/** A delivery, unless another line tells it better (a txn ACK, a client's reply). */
function narrateDelivery(e: TraceEvent, ctx: ZabNarrationContext): string | undefined {
  const type = e.detail ?? "?";
  const n = e.node;
  if (QUIET_TYPES.has(type)) return undefined;
  const term = e.id === undefined ? undefined : ctx.termOf(e.id);
  if (term === ACK_LD) return `${n} receives ACK-LD from ${e.peer}: ${e.peer} has logged the new leader's history and acknowledges NEWLEADER`;
  if (term === ACK_OF_UPTODATE) return undefined; // the leader ignores it
  if (term === SYNC_HISTORY) return `${n} receives ${zabBookOfType(type)} from ${e.peer}: a txn of the new leader's history Ie′ (a PROPOSE+COMMIT pair before NEWLEADER)`;
  if (type === "ACK") return undefined; // the leader's count of it is the line (zab.ack)
  const book = zabBookOfType(type);
  if (book === undefined) return /^(reply:|connected|pong)/.test(type) ? undefined : `${n} receives ${type} from ${e.peer} (a client request)`;
  const entry = QUORUM_PACKET_BOOK[type as QuorumPacketType];
  const note = entry !== undefined ? ` — ${entry.note}` : " — a FastLeaderElection notification";
  return `${n} receives ${book} from ${e.peer}${note}`;
}

/**
 * A log write (zab.log) and an ACK (zab.ack) as one story: a follower logs a PROPOSE and ACKs
 * it (one line, on the ACK); the leader logs it and counts that as its own ACK (one line, on
 * the ACK); the leader counts a follower's ACK. A log write without an ACK of its own (a
 * learner logging the new leader's history while it synchronizes) is told on the write.
 */
function narrateLogAndAck(e: TraceEvent<"zab.log" | "zab.ack">, ctx: ZabNarrationContext): string | undefined {
  const n = e.node;
  const zxid = e.fields.zxid;
  const note = ctx.noteOf(e);
  const leading = note?.role === "LEADING";
  if (e.kind === "zab.log") {
    if (leading || note?.phase === "broadcast") return undefined; // its ACK line says it
    return `${n} has logged ${zxid} (fsynced)${note?.phase === "synchronization" ? ": a txn of the new leader's history" : ""}`;
  }
  const f = e.fields;
  const acks = note?.acks !== undefined ? `${note.acks} of the ${ctx.quorum} a quorum needs` : "";
  if (f.from !== f.sid) return `${n} (leader) counts s${f.from}'s ACK for ${zxid}${acks !== "" ? `: ${acks}` : ""}`;
  if (leading) return `${n} (leader) has logged ${zxid} (fsynced): its own ACK${acks !== "" ? `, ${acks}` : ""}`;
  return `${n} has logged ${zxid} (fsynced) and sends its ACK to the leader`;
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
