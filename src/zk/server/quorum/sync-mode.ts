/**
 * How the leader synchronises one learner: `LearnerHandler.syncFollower` and
 * `queueCommittedProposals` of ZooKeeper 3.8 as a pure decision (reference §7.4), from the
 * learner's last logged zxid and the leader's committed log.
 *
 * 1. in sync (peer = lastProcessedZxid) → empty DIFF;
 * 2. peer beyond the committed log (and not a bare new-epoch zxid (e, 0)) → TRUNC(maxCommittedLog):
 *    the learner's tail was never committed;
 * 3. peer within [minCommittedLog, maxCommittedLog] → walk the log to the first txn ≥ peer:
 *    - equal, or the peer is (e, 0) (it has no txn of epoch e to lose) → DIFF;
 *    - greater, same epoch as the peer → TRUNC(the txn before it);
 *    - greater, another epoch → SNAP: "we cannot send TRUNC that crosses an epoch boundary".
 *      The comparison is between the peer's epoch and the epoch of that *next* txn of the
 *      leader — not of the last common one — so a learner whose extra txns are the tail of an
 *      epoch the leader has since left gets a SNAP, even though TRUNC(last common) would do;
 * 4. otherwise (older than the committed log; the on-disk txn-log catch-up is not modelled) → SNAP.
 *
 * Invariant: DIFF and TRUNC name a zxid after which the leader's committed txns are queued as
 * PROPOSAL+COMMIT (`queueFrom`); SNAP carries the whole tree at lastProcessedZxid.
 */
import { zxidCounter, zxidEpoch, type Zxid } from "../../proto/records.js";

export type SyncMode = "DIFF" | "TRUNC" | "SNAP";

export interface SyncChoice {
  mode: SyncMode;
  /** The zxid the DIFF/TRUNC/SNAP packet carries. */
  zxid: Zxid;
  /** DIFF/TRUNC: committed txns above this zxid follow as PROPOSAL+COMMIT pairs. */
  queueFrom: Zxid;
}

export interface LeaderHistory {
  lastProcessedZxid: Zxid;
  minCommittedLog: Zxid;
  maxCommittedLog: Zxid;
  /** The last committed txns, ascending (`ZKDatabase.committedLog`). */
  committedLog: readonly { header: { zxid: Zxid } }[];
}

/**
 * `diffWithoutHistory` re-injects ZOOKEEPER-1154: a peer within the committed log is DIFFed
 * without checking that its last zxid is in the leader's history.
 */
export function chooseSyncMode(peerLastZxid: Zxid, db: LeaderHistory, diffWithoutHistory = false): SyncChoice {
  const last = db.lastProcessedZxid;
  const isPeerNewEpochZxid = zxidCounter(peerLastZxid) === 0;
  if (peerLastZxid === last) return { mode: "DIFF", zxid: last, queueFrom: peerLastZxid };
  if (peerLastZxid > db.maxCommittedLog && !isPeerNewEpochZxid) return { mode: "TRUNC", zxid: db.maxCommittedLog, queueFrom: db.maxCommittedLog };
  if (peerLastZxid >= db.minCommittedLog && peerLastZxid <= db.maxCommittedLog) return walkCommittedLog(peerLastZxid, db, diffWithoutHistory);
  return snap(last);
}

/** `queueCommittedProposals`: the first committed txn at or above the peer's zxid decides. */
function walkCommittedLog(peerLastZxid: Zxid, db: LeaderHistory, diffWithoutHistory: boolean): SyncChoice {
  const diff: SyncChoice = { mode: "DIFF", zxid: db.maxCommittedLog, queueFrom: peerLastZxid };
  let prev: Zxid | undefined;
  for (const { header } of db.committedLog) {
    const zxid = header.zxid;
    if (zxid < peerLastZxid) {
      prev = zxid;
      continue;
    }
    if (zxid === peerLastZxid || diffWithoutHistory || zxidCounter(peerLastZxid) === 0) return diff;
    if (zxidEpoch(zxid) !== zxidEpoch(peerLastZxid) || prev === undefined) return snap(db.lastProcessedZxid);
    return { mode: "TRUNC", zxid: prev, queueFrom: prev };
  }
  // Nothing at or above the peer: only a bare (e, 0) peer gets its (empty) DIFF; else SNAP.
  return zxidCounter(peerLastZxid) === 0 ? diff : snap(db.lastProcessedZxid);
}

function snap(lastProcessedZxid: Zxid): SyncChoice {
  return { mode: "SNAP", zxid: lastProcessedZxid, queueFrom: lastProcessedZxid };
}
