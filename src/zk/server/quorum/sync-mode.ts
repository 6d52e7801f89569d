/**
 * How the leader synchronises one learner: `LearnerHandler.syncFollower` and
 * `queueCommittedProposals` of ZooKeeper 3.8 as a pure decision (docs/zookeeper.md §7.4), from the
 * learner's last logged zxid, the leader's committed log and, for a learner older than that
 * log, the leader's on-disk txn log.
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
 * 4. peer older than the committed log → the same walk over the on-disk txn log (up to
 *    minCommittedLog), then over the committed log — if the txn log reaches back to the peer,
 *    is small enough (`ZKDatabase.getProposalsFromTxnLog`) and meets the committed log without
 *    a gap (ZOOKEEPER-2418); otherwise SNAP;
 * 5. anything else → SNAP.
 *
 * Invariant: DIFF and TRUNC come with the committed txns the learner lacks, ascending, each to
 * be sent as PROPOSAL+COMMIT; SNAP carries the whole tree at lastProcessedZxid.
 */
import { zxidCounter, zxidEpoch, type Zxid } from "../../proto/records.js";

export type SyncMode = "DIFF" | "TRUNC" | "SNAP";

/** A txn as the sync walk sees it. */
export interface Logged {
  header: { zxid: Zxid };
}

export interface SyncChoice<T extends Logged = Logged> {
  mode: SyncMode;
  /** The zxid the DIFF/TRUNC/SNAP packet carries. */
  zxid: Zxid;
  /** DIFF/TRUNC: the txns that follow as PROPOSAL+COMMIT pairs, ascending (none for SNAP). */
  proposals: T[];
  /** Case 4: the older part of `proposals` came from the on-disk txn log. */
  fromTxnLog: boolean;
}

export interface LeaderHistory<T extends Logged = Logged> {
  lastProcessedZxid: Zxid;
  minCommittedLog: Zxid;
  maxCommittedLog: Zxid;
  /** The last committed txns, ascending (`ZKDatabase.committedLog`). */
  committedLog: readonly T[];
  /**
   * `getProposalsFromTxnLog(zxid, sizeLimit)`: the logged txns from the log file holding `zxid`
   * on, in log order — none when txn-log sync is disabled, when the log does not reach back to
   * `zxid`, or when it is over the size limit. Absent: no on-disk catch-up (case 4 is SNAP).
   */
  proposalsFromTxnLog?(zxid: Zxid): readonly T[];
}

/**
 * `diffWithoutHistory` re-injects ZOOKEEPER-1154: a peer within the history is DIFFed without
 * checking that its last zxid is in the leader's history.
 */
export function chooseSyncMode<T extends Logged>(peerLastZxid: Zxid, db: LeaderHistory<T>, diffWithoutHistory = false): SyncChoice<T> {
  const last = db.lastProcessedZxid;
  const q = new ProposalQueue<T>(peerLastZxid, diffWithoutHistory);
  if (peerLastZxid === last) return { mode: "DIFF", zxid: peerLastZxid, proposals: [], fromTxnLog: false };
  if (peerLastZxid > db.maxCommittedLog && !q.isPeerNewEpochZxid) return { mode: "TRUNC", zxid: db.maxCommittedLog, proposals: [], fromTxnLog: false };
  if (peerLastZxid >= db.minCommittedLog && peerLastZxid <= db.maxCommittedLog) {
    q.queueCommittedProposals(db.committedLog, peerLastZxid, undefined, db.maxCommittedLog);
    return q.choice(last, false);
  }
  if (peerLastZxid < db.minCommittedLog && db.proposalsFromTxnLog !== undefined) {
    const fromLog = db.proposalsFromTxnLog(peerLastZxid);
    if (fromLog.length > 0) {
      const reached = q.queueCommittedProposals(fromLog, peerLastZxid, db.minCommittedLog, db.maxCommittedLog);
      // "Detected gap between end of txnlog and start of committedLog": revert to SNAP.
      if (reached < db.minCommittedLog) return snap(last);
      q.queueCommittedProposals(db.committedLog, reached, undefined, db.maxCommittedLog);
      return q.choice(last, true);
    }
  }
  return snap(last);
}

function snap<T extends Logged>(lastProcessedZxid: Zxid): SyncChoice<T> {
  return { mode: "SNAP", zxid: lastProcessedZxid, proposals: [], fromTxnLog: false };
}

/** The packets one `syncFollower` call queues: the op packet (DIFF/TRUNC) first, then the txns. */
class ProposalQueue<T extends Logged> {
  readonly isPeerNewEpochZxid: boolean;
  private op: { mode: "DIFF" | "TRUNC"; zxid: Zxid } | undefined;
  private readonly proposals: T[] = [];

  constructor(
    peerLastZxid: Zxid,
    private readonly diffWithoutHistory: boolean,
  ) {
    // A learner that only ever saw a NEWLEADER has no txn of that epoch to lose: never TRUNC.
    this.isPeerNewEpochZxid = zxidCounter(peerLastZxid) === 0;
  }

  /**
   * `queueCommittedProposals`: skips what the peer has, decides the op packet at the first txn
   * at or above it, queues every later txn up to `maxZxid`; returns the last zxid queued (the
   * peer's own when nothing was).
   */
  queueCommittedProposals(txns: readonly T[], peerLastZxid: Zxid, maxZxid: Zxid | undefined, lastCommittedZxid: Zxid): Zxid {
    let queuedZxid = peerLastZxid;
    let prevProposalZxid: Zxid | undefined;
    for (const t of txns) {
      const zxid = t.header.zxid;
      if (maxZxid !== undefined && zxid > maxZxid) break;
      if (zxid < peerLastZxid) {
        prevProposalZxid = zxid;
        continue;
      }
      if (this.op === undefined) {
        if (zxid === peerLastZxid || this.diffWithoutHistory) {
          this.op = { mode: "DIFF", zxid: lastCommittedZxid };
          if (zxid === peerLastZxid) continue;
        } else if (this.isPeerNewEpochZxid) {
          this.op = { mode: "DIFF", zxid: lastCommittedZxid };
        } else {
          // The peer has a txn the leader lacks; TRUNC cannot cross an epoch boundary.
          if (zxidEpoch(zxid) !== zxidEpoch(peerLastZxid) || prevProposalZxid === undefined) return queuedZxid;
          this.op = { mode: "TRUNC", zxid: prevProposalZxid };
        }
      }
      if (zxid <= queuedZxid) continue;
      this.proposals.push(t);
      queuedZxid = zxid;
    }
    // Nothing at or above a bare (e, 0) peer: its (empty) DIFF all the same.
    if (this.op === undefined && this.isPeerNewEpochZxid) this.op = { mode: "DIFF", zxid: lastCommittedZxid };
    return queuedZxid;
  }

  /** The queued packets, or SNAP when no op packet was decided ("unhandled scenario"). */
  choice(lastProcessedZxid: Zxid, fromTxnLog: boolean): SyncChoice<T> {
    if (this.op === undefined) return snap(lastProcessedZxid);
    return { mode: this.op.mode, zxid: this.op.zxid, proposals: this.proposals, fromTxnLog };
  }
}
