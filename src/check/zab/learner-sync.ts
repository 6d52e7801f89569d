/**
 * What a learner holds before it acknowledges NEWLEADER and before it serves (the ZooKeeper
 * system specification, ZkV3_7_0.tla: `FollowerProcessNEWLEADER` sets currentEpoch to the
 * accepted epoch and appends the synced txns to its history before the ACK of NEWLEADER;
 * `FollowerProcessUPTODATE` is the only way into BROADCAST; Learner.syncWithLeader in 3.8 with
 * the NEWLEADER order of ZOOKEEPER-4643/4646/4785's fixes). Read from the trace, per learner:
 *
 * - NEWLEADER ACK: its first `send ACK` on the connection it received NEWLEADER on. By then
 *   (a) it has written the new currentEpoch (`zab.epoch.current` after the NEWLEADER), and
 *   (b) every txn-log append it made is durable (covered by a completed fsync): a learner that
 *   ACKs with synced txns still unsynced lets the leader count a quorum that a crash undoes.
 * - currentEpoch: when a learner writes the currentEpoch file while syncing (its `disk.replace`
 *   of `currentEpoch` after NEWLEADER), its txn-log appends are already durable: a currentEpoch
 *   that says "synced for epoch e" over a log that may still lose the sync is ZOOKEEPER-4643.
 * - UPTODATE: a learner (it received LEADERINFO and has not been back in ELECTION since) enters
 *   BROADCAST (`zab.phase`) only after UPTODATE arrived: before that its tree may lack committed
 *   txns it must serve. (A leader enters BROADCAST on its NEWLEADER quorum: zab.newleader-quorum.)
 *
 * The order itself is judged, not its rare consequence (a committed txn lost when the learner
 * and the leader crash within one fsync: zab.committed-durability). State: per node, its
 * connection awaiting a NEWLEADER ACK, its unsynced appends (at most one fsync's worth), and two
 * flags; a crash clears them.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { detailOf, guarded, idOf, intField, optionalStringField, stringField } from "../event-reader.js";

interface Learner {
  /** Disk operations so far (the kernel numbers appends, replaces and deletes per node). */
  ops: number;
  /** Txn-log appends not yet covered by a completed fsync: file and op number. */
  unsynced: { file: string; seq: number }[];
  /** The connection NEWLEADER came in on, until the learner ACKs on it. */
  newLeaderConn?: number;
  /** currentEpoch was written since that NEWLEADER. */
  epochWritten: boolean;
  /** Following or observing a leader: LEADERINFO arrived, and the node has not been in ELECTION since. */
  learning: boolean;
  /** UPTODATE arrived since that LEADERINFO. */
  upToDate: boolean;
}

const KINDS = ["disk.append", "disk.replace", "disk.delete", "disk.fsync.done", "crash", "send", "deliver", "zab.epoch.current", "zab.phase"] as const;
type Kind = KindsOf<typeof KINDS>;
const CURRENT_EPOCH_FILE = "currentEpoch";

export class LearnerSyncChecker implements Checker<Kind> {
  readonly name = "zab.learner-sync";
  readonly kinds = KINDS;
  /** Of the messages, the sync's LEADERINFO, NEWLEADER and UPTODATE a learner receives, and its ACKs. */
  readonly messageTypes = { send: ["ACK"], deliver: ["LEADERINFO", "NEWLEADER", "UPTODATE"] } as const;
  readonly log = new ViolationLog(this.name);
  private readonly nodes = new Map<string, Learner>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const n = this.node(e.node);
    switch (e.kind) {
      case "disk.append":
        n.ops++;
        if (optionalStringField(e, "record") !== undefined) n.unsynced.push({ file: detailOf(e), seq: n.ops });
        return;
      case "disk.replace":
        n.ops++;
        if (detailOf(e) === CURRENT_EPOCH_FILE && n.newLeaderConn !== undefined) this.judgeDurable(e, n, "writes currentEpoch");
        return;
      case "disk.delete":
        n.ops++;
        return;
      case "disk.fsync.done": {
        const file = detailOf(e);
        const mark = idOf(e);
        n.unsynced = n.unsynced.filter((a) => a.file !== file || a.seq > mark);
        return;
      }
      case "crash":
        this.nodes.delete(e.node);
        return;
      case "deliver":
        if (e.detail === "LEADERINFO") Object.assign(n, { learning: true, upToDate: false });
        if (e.detail === "NEWLEADER") Object.assign(n, { newLeaderConn: e.conn, epochWritten: false });
        if (e.detail === "UPTODATE") n.upToDate = true;
        return;
      case "zab.epoch.current":
        if (n.newLeaderConn !== undefined) n.epochWritten = true;
        return;
      case "send":
        if (e.detail === "ACK" && n.newLeaderConn !== undefined && e.conn === n.newLeaderConn) this.onNewLeaderAck(e, n);
        return;
      case "zab.phase":
        return this.onPhase(e, n);
    }
  }

  private onNewLeaderAck(e: TraceEvent, n: Learner): void {
    n.newLeaderConn = undefined;
    if (!n.epochWritten) this.log.add(e, `${e.node} ACKs NEWLEADER before it has written the new currentEpoch: a restart now rejoins as if it never synced for that epoch, while the leader counted its ACK (FollowerProcessNEWLEADER sets currentEpoch first)`);
    this.judgeDurable(e, n, "ACKs NEWLEADER");
  }

  private judgeDurable(e: TraceEvent, n: Learner, what: string): void {
    const first = n.unsynced[0];
    if (first === undefined) return;
    this.log.add(e, `${e.node} ${what} while ${n.unsynced.length} txn-log append(s) are not yet durable (first: ${first.file}, disk op ${first.seq}): a crash now loses synced txns the leader counts as held (ZOOKEEPER-4643/4646/4785)`);
  }

  private onPhase(e: TraceEvent<"zab.phase">, n: Learner): void {
    const phase = stringField(e, "phase");
    if (phase === "ELECTION") Object.assign(n, { learning: false, newLeaderConn: undefined });
    if (phase !== "BROADCAST" || !n.learning || n.upToDate) return;
    this.log.add(e, `${e.node} (sid ${intField(e, "sid")}) enters BROADCAST without having received UPTODATE from its leader: it may serve a tree that lacks txns committed during its sync (FollowerProcessUPTODATE is the only way into BROADCAST)`);
  }

  private node(id: string): Learner {
    let n = this.nodes.get(id);
    if (n === undefined) this.nodes.set(id, (n = { ops: 0, unsynced: [], epochWritten: false, learning: false, upToDate: false }));
    return n;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
