/**
 * Election votes (`Vote.java`), server states (`QuorumPeer.ServerState`) and the vote order
 * of FastLeaderElection (`totalOrderPredicate`).
 *
 * A vote names a proposed leader together with that leader's last logged zxid and its
 * currentEpoch (`peerEpoch`), the round it was cast in (`electionEpoch`, the sender's logical
 * clock) and the state of the server that cast it.
 *
 * Vote order (3.8, after ZOOKEEPER-1419): higher peerEpoch wins; on equal epochs the higher
 * zxid; on equal epochs and zxids the higher sid. A candidate of weight 0 never wins. The
 * pre-3.4.4 order (bug zoo, ZOOKEEPER-1419) forgot the epoch equality in the last clause:
 * `(zxid= && sid>)` lets a lower-epoch, higher-sid vote beat a higher-epoch vote that beats it
 * back by the first clause, so it is not an order at all and elections can cycle forever.
 *
 * Vote equality (`voteEquals`, Java's `Vote.equals`) is deliberately not structural: when
 * either vote is LOOKING, leader, zxid, electionEpoch and peerEpoch must match; between
 * FOLLOWING/LEADING votes only the leader and peerEpoch count (ZOOKEEPER-1732/1805), and only
 * the leader when exactly one of them carries a format version > 0 (a mixed-version ensemble;
 * FastLeaderElection mixes version-0 and version-2 votes in its vote sets, so this matters).
 */
import { zxidHex, type Zxid } from "../../proto/records.js";

/** `QuorumPeer.ServerState`; the wire carries the ordinal (LOOKING 0 … OBSERVING 3). */
export type ServerState = "LOOKING" | "FOLLOWING" | "LEADING" | "OBSERVING";

export const SERVER_STATES: readonly ServerState[] = ["LOOKING", "FOLLOWING", "LEADING", "OBSERVING"];

/**
 * Java's `Long.MIN_VALUE`, which observers propose as leader id and peer epoch (exactly
 * representable as a double: it is −2^63).
 */
export const LONG_MIN_VALUE = -(2 ** 63);
/** Java's `Long.MIN_VALUE` as a zxid (what an observer proposes as its last logged zxid). */
export const LONG_MIN_VALUE_ZXID: Zxid = -(1n << 63n);

export interface Vote {
  /** Notification format version the vote came with (0 when built locally, 2 from the wire). */
  readonly version?: number;
  /** The proposed (or established) leader's sid (Java's `Vote.id`). */
  readonly leader: number;
  /** The proposed leader's last logged zxid. */
  readonly zxid: Zxid;
  /** The logical clock (round) the vote was cast in; −1 when unknown. */
  readonly electionEpoch: bigint;
  /** The proposed leader's currentEpoch. */
  readonly peerEpoch: number;
  /** The state of the server that cast the vote. */
  readonly state: ServerState;
}

/** Builds a vote; like Java's shorter constructors, state defaults to LOOKING, version to 0. */
export function makeVote(leader: number, zxid: Zxid, electionEpoch: bigint, peerEpoch: number, state: ServerState = "LOOKING", version = 0): Vote {
  return { version, leader, zxid, electionEpoch, peerEpoch, state };
}

/** Java's `Vote.equals` (see the header). */
export function voteEquals(a: Vote, b: Vote): boolean {
  if (a.state === "LOOKING" || b.state === "LOOKING") {
    return a.leader === b.leader && a.zxid === b.zxid && a.electionEpoch === b.electionEpoch && a.peerEpoch === b.peerEpoch;
  }
  const av = (a.version ?? 0) > 0;
  const bv = (b.version ?? 0) > 0;
  if (av !== bv) return a.leader === b.leader;
  return a.leader === b.leader && a.peerEpoch === b.peerEpoch;
}

/**
 * True when the vote (newId, newZxid, newEpoch) beats (curId, curZxid, curEpoch): higher epoch,
 * or same epoch and higher zxid, or same epoch and zxid and higher sid. `weightOf` gives a
 * candidate's weight (`QuorumVerifier.getWeight`); a weight-0 candidate never wins. Without it
 * every candidate weighs 1. `zk1419` re-injects the pre-3.4.4 predicate (see the header).
 */
export function totalOrderPredicate(
  newId: number,
  newZxid: Zxid,
  newEpoch: number,
  curId: number,
  curZxid: Zxid,
  curEpoch: number,
  weightOf?: (sid: number) => number,
  zk1419 = false,
): boolean {
  if (weightOf !== undefined && weightOf(newId) === 0) return false;
  // ZOOKEEPER-1419: `newEpoch > curEpoch || (newEpoch == curEpoch && newZxid > curZxid) || (newZxid == curZxid && newId > curId)`.
  if (zk1419) return newEpoch > curEpoch || (newEpoch === curEpoch && newZxid > curZxid) || (newZxid === curZxid && newId > curId);
  return newEpoch > curEpoch || (newEpoch === curEpoch && (newZxid > curZxid || (newZxid === curZxid && newId > curId)));
}

/** `(leader, 0xzxid, 0xpeerEpoch)` as Java's `Vote.toString` prints it. */
export function voteToString(v: Vote): string {
  return `(${v.leader}, ${zxidHex(v.zxid)}, 0x${v.peerEpoch.toString(16)})`;
}
