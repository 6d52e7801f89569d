/**
 * The book's ZAB vocabulary ("From Paxos to ZooKeeper", ch. 4: the discovery, synchronization
 * and broadcast phases; CEPOCH, NEWEPOCH, ACK-E, NEWLEADER, ACK-LD, COMMIT-LD, PROPOSE, ACK,
 * COMMIT) as data, so that what the simulator shows in ZooKeeper's own names (quorum packet
 * types, `ZabState`) can also be shown in the book's. The server does not use it: the trace
 * keeps ZooKeeper's names, and the reports and the teaching UI translate.
 *
 * Where ZooKeeper 3.8 departs from the book (docs/zookeeper.md §7.8) an entry says so: the history Ie′
 * that the book's NEWLEADER carries travels before NEWLEADER as DIFF + PROPOSAL/COMMIT pairs,
 * TRUNC or SNAP; COMMIT-LD is UPTODATE; some packets have no book counterpart at all.
 */
import type { QuorumPacket } from "./quorum-packet.js";

/** ZooKeeper's `QuorumPeer.ZabState`, the values of the `zab.phase` annotation. */
export type ZabState = "ELECTION" | "DISCOVERY" | "SYNCHRONIZATION" | "BROADCAST";

/** The book's phases; leader election (FLE) comes before them. */
export type BookPhase = "election" | "discovery" | "synchronization" | "broadcast";

export interface BookPhaseName {
  readonly phase: BookPhase;
  /** The book's own word (it is written in Chinese). */
  readonly zh: string;
}

export const ZAB_STATE_BOOK_PHASE: Readonly<Record<ZabState, BookPhaseName>> = {
  ELECTION: { phase: "election", zh: "选举" },
  DISCOVERY: { phase: "discovery", zh: "发现" },
  SYNCHRONIZATION: { phase: "synchronization", zh: "同步" },
  BROADCAST: { phase: "broadcast", zh: "广播" },
};

export interface BookTerm {
  /** The phase the message belongs to; undefined for traffic of every phase (heartbeats). */
  readonly phase: BookPhase | undefined;
  /** The book's message name, when the book has one. */
  readonly message: string | undefined;
  /** How the ZooKeeper packet relates to the book's message, for a tooltip or a lesson. */
  readonly note: string;
}

export type QuorumPacketType = QuorumPacket["kind"];

/**
 * Each quorum packet type by what it usually is. Three depend on where they travel on their
 * connection, which the packet type alone cannot tell: see `SYNC_HISTORY`, `ACK_LD` and
 * `ACK_OF_UPTODATE`.
 */
export const QUORUM_PACKET_BOOK: Readonly<Record<QuorumPacketType, BookTerm>> = {
  FOLLOWERINFO: { phase: "discovery", message: "CEPOCH", note: "the follower's acceptedEpoch (zxid = acceptedEpoch << 32)" },
  OBSERVERINFO: { phase: "discovery", message: "CEPOCH", note: "from an observer, which the book's Zab does not have; it does not count toward the quorum" },
  LEADERINFO: { phase: "discovery", message: "NEWEPOCH", note: "the new epoch e′ = max(acceptedEpoch) + 1" },
  ACKEPOCH: { phase: "discovery", message: "ACK-E", note: "the learner's currentEpoch and last zxid, not its history; −1 when it had already accepted e′ (not an ack)" },
  DIFF: { phase: "synchronization", message: undefined, note: "starts the history Ie′ the book's NEWLEADER carries: the txns follow as PROPOSAL+COMMIT pairs, before NEWLEADER" },
  TRUNC: { phase: "synchronization", message: undefined, note: "no book counterpart: the learner drops its txns that are not in Ie′" },
  SNAP: { phase: "synchronization", message: undefined, note: "the history Ie′ as a whole snapshot, sent before NEWLEADER" },
  NEWLEADER: { phase: "synchronization", message: "NEWLEADER", note: "carries no history (Ie′ went ahead as DIFF, TRUNC or SNAP)" },
  UPTODATE: { phase: "synchronization", message: "COMMIT-LD", note: "sent once a quorum ACKed NEWLEADER: start serving" },
  PROPOSAL: { phase: "broadcast", message: "PROPOSE", note: "a txn ⟨v, z⟩ of the current epoch" },
  ACK: { phase: "broadcast", message: "ACK", note: "the txn is logged (fsynced) on the follower" },
  COMMIT: { phase: "broadcast", message: "COMMIT", note: "a quorum ACKed: deliver in zxid order" },
  INFORM: { phase: "broadcast", message: "COMMIT", note: "to an observer, carrying the txn itself (observers get no PROPOSE)" },
  COMMITANDACTIVATE: { phase: "broadcast", message: "COMMIT", note: "the commit of a reconfig: also activate its config, with the leader it designates (3.5+)" },
  INFORMANDACTIVATE: { phase: "broadcast", message: "COMMIT", note: "INFORM of a reconfig to an observer: also activate its config (3.5+)" },
  PING: { phase: undefined, message: undefined, note: "heartbeat (心跳检测), both ways, in every phase once the learner is connected" },
  REQUEST: { phase: "broadcast", message: undefined, note: "a client write forwarded by a learner; the leader PROPOSEs it" },
  REVALIDATE: { phase: undefined, message: undefined, note: "session revalidation when a client reconnects to a learner; not part of Zab" },
  SYNC: { phase: "broadcast", message: undefined, note: "the answer to a client's sync(): what was proposed before it is committed" },
};

/** PROPOSAL and COMMIT between DIFF/TRUNC and NEWLEADER that come as a pair: the history Ie′. */
export const SYNC_HISTORY: BookTerm = {
  phase: "synchronization",
  message: "NEWLEADER's Ie′",
  note: "a txn of the new leader's initial history, sent as a PROPOSAL+COMMIT pair before NEWLEADER (the book puts Ie′ inside NEWLEADER)",
};

/** The learner's first ACK after NEWLEADER: the leader reads exactly one packet as its ACK. */
export const ACK_LD: BookTerm = { phase: "synchronization", message: "ACK-LD", note: "ACK of NEWLEADER (zxid = e′ << 32)" };

/** The learner's first ACK after UPTODATE, which the leader ignores. */
export const ACK_OF_UPTODATE: BookTerm = { phase: "synchronization", message: undefined, note: "ACK of UPTODATE (ignored by the leader); no book counterpart" };

/** "PROPOSE (broadcast)"; "no book name (synchronization)"; "no book name (outside the phases)". */
export function bookLabel(t: BookTerm): string {
  return `${t.message ?? "no book name"} (${t.phase ?? "outside the phases"})`;
}
