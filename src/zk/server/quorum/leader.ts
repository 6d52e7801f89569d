/**
 * `Leader` (docs/zookeeper.md §7.3–7.6), with its `LearnerHandler`s (learner-handler.ts) and its
 * `LeaderZooKeeperServer` (leader-zoo-keeper-server.ts); the txn annotations are zab-trace.ts.
 *
 * Discovery: every learner sends FOLLOWERINFO(acceptedEpoch); once the leader and a quorum of
 * voters have reported, the new epoch is max(acceptedEpoch)+1, persisted as the leader's
 * acceptedEpoch, and sent as LEADERINFO. ACKEPOCHs from a quorum end discovery; the leader
 * persists currentEpoch before synchronising anyone.
 * Synchronisation, per learner: DIFF, TRUNC or SNAP chosen from the committed log, or for a
 * learner older than it the on-disk txn log, as 3.8 does (`chooseSyncMode`, sync-mode.ts), the
 * txns as PROPOSAL+COMMIT pairs, then forwarding of live traffic starts, then NEWLEADER. When
 * a quorum has ACKed NEWLEADER the leader is established and serves; each learner then gets
 * UPTODATE.
 * Broadcast: PROPOSAL to forwarding followers, the leader's own log write acks for itself, a
 * quorum of ACKs commits in zxid order: COMMIT to followers, INFORM to observers, apply locally.
 * Reconfiguration (§7.10): a reconfig proposal makes its config the last seen one, and from then
 * every proposal, the NEWLEADER quorum and the synced-quorum check need a quorum of the old and
 * of the new config. Its commit activates the new config (COMMITANDACTIVATE to followers,
 * INFORMANDACTIVATE to observers, naming the designated leader); a leader that is not a voter of
 * the new config stops committing (`allowedToCommit`) and steps down once its followers leave.
 * Liveness: PING every tickTime/2; a leader without a synced quorum for syncLimit ticks, or any
 * discovery/sync wait longer than initLimit ticks, abandons leadership.
 */
import type { Endpoint, TimerHandle } from "../../../world/index.js";
import { invariant } from "../../../base/errors.js";
import { makeZxid, zxidCounter, zxidEpoch, zxidHex, type SessionId, type Zxid } from "../../proto/records.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { QuorumPeer } from "./quorum-peer.js";
import { epochZxid, type QuorumPacket } from "./quorum-packet.js";
import { SyncRequestProcessor } from "./sync-request-processor.js";
import { chooseSyncMode } from "./sync-mode.js";
import { txnDigest } from "./zab-trace.js";
import { LearnerHandler } from "./learner-handler.js";
import { LeaderZooKeeperServer } from "./leader-zoo-keeper-server.js";
import type { QuorumVerifier } from "./quorum-verifier.js";
import { getDesignatedLeader, reconfigTarget } from "./leader-reconfig.js";

interface Proposal {
  zxid: Zxid;
  entry: TxnEntry;
  acks: Set<number>;
  /** The configurations it needs a quorum of (`qvAcksetPairs`): the committed one, and a pending one. */
  qvs: QuorumVerifier[];
  /** The config a reconfig proposal installs. */
  reconfig: QuorumVerifier | undefined;
}

export class Leader {
  readonly zks: LeaderZooKeeperServer;
  readonly handlers = new Set<LearnerHandler>();
  tick = 0;
  epoch = -1;
  private epochDecided = false;
  /** acceptedEpoch / currentEpoch have been persisted (fsynced) for the new epoch. */
  private acceptedEpochDurable = false;
  private currentEpochDurable = false;
  private readonly connectingFollowers = new Set<number>();
  private readonly electingFollowers = new Set<number>();
  private readonly newLeaderAcks = new Set<number>();
  private discoveryOver = false;
  established = false;
  /**
   * `outstandingProposals`, in zxid order (proposed in order, committed from the head). Only a
   * few at a time: a scan costs less than a Map keyed by bigint, which hashes it in the runtime.
   */
  private readonly outstanding: Proposal[] = [];
  lastProposed: Zxid;
  private lastCommitted: Zxid;
  private readonly timers: TimerHandle[] = [];
  private running = true;
  private readonly pendingSyncs: { sid: number; sessionId: SessionId; cxid: number; after: Zxid }[] = [];
  private maxAcceptedEpoch: number;
  /** False once this leader committed a reconfig that designated another leader (`allowedToCommit`). */
  private allowedToCommit = true;

  /**
   * The leader's log: its own ACK follows the group fsync. At shutdown it flushes what it was
   * given, announced as logged even though leadership has ended (`QuorumPeer.roleEnded` waits
   * for that flush before reloading the tree, which then includes those txns).
   */
  private readonly sync: SyncRequestProcessor;

  constructor(readonly peer: QuorumPeer) {
    const ctx = peer.ctx;
    this.sync = new SyncRequestProcessor(
      peer,
      (zxid) => this.running && this.processAck(this.myid, zxid),
      (err) => this.abandon(`txn log write failed: ${err}`),
    );
    this.lastProposed = peer.zkDb.lastProcessedZxid;
    this.lastCommitted = this.lastProposed;
    this.zks = new LeaderZooKeeperServer(ctx, { ...peer.config.server, tickTimeMs: peer.config.tickTimeMs, serverId: peer.myid }, peer.zkDb, this);
    this.maxAcceptedEpoch = peer.acceptedEpoch;
  }

  /**
   * `Leader.lead()` up to discovery: `zk.loadData()`, which ends with a clean snapshot of the tree
   * (`takeSnapshot()`: written, its fsync not waited for), then the `LearnerCnxAcceptor` starts
   * and the leader counts itself toward the epoch (`getEpochToPropose`). 3.8 binds the quorum
   * port in Leader's constructor, so a learner that connects before the acceptor runs waits in
   * the socket's backlog rather than being refused; here no simulated time passes between the
   * two (the write waits for no fsync), so listening after the snapshot is the same. A failed
   * write ends the role (3.8 exits the process: `TXNLOG_ERROR_TAKING_SNAPSHOT`).
   *
   * Before all that, 3.8 builds the LeaderZooKeeperServer and the Leader, whose constructor binds
   * the quorum port: `leaderStartupMs` of the peer's timing (0 unless a deployment's cost was
   * measured, quorum-timing.ts), during which a learner's connect is refused. The election ends
   * (`end_fle`, the `DISCOVERY` phase) when `lead()` begins, after it.
   */
  lead(): void {
    const startupMs = this.peer.timing.leaderStartupMs;
    if (startupMs === 0) return this.discover();
    this.timers.push(this.peer.ctx.setTimerMs(startupMs, () => this.running && this.discover(), "leader-startup"));
  }

  private discover(): void {
    const peer = this.peer;
    const ctx = peer.ctx;
    peer.phase("DISCOVERY", peer.acceptedEpoch);
    if (!peer.zkDb.takeSnapshotNow()) return this.abandon("snapshot write failed in loadData");
    ctx.listen(peer.config.quorumPort, (ep) => this.accept(ep));
    this.connectingFollowers.add(peer.myid);
    this.checkEpochQuorum();
    const initLimitMs = peer.config.initLimitTicks * peer.config.tickTimeMs;
    this.timers.push(ctx.setTimerMs(initLimitMs, () => !this.discoveryOver && this.abandon("no quorum of FOLLOWERINFO/ACKEPOCH within initLimit"), "leader-discovery-timeout"));
    this.timers.push(ctx.setTimerMs(peer.config.tickTimeMs / 2, () => this.halfTick(), "leader-tick"));
  }

  get myid(): number {
    return this.peer.myid;
  }

  private accept(ep: Endpoint) {
    const h = new LearnerHandler(this, ep);
    this.handlers.add(h);
    return {
      onMessage: (_e: Endpoint, m: unknown) => this.running && this.onPacket(h, m as QuorumPacket),
      onClose: () => this.handlers.delete(h),
    };
  }

  private flag(flag: string, detail: string): void {
    this.peer.ctx.annotate("zab.flag", { sid: this.myid, flag, detail });
  }

  private onPacket(h: LearnerHandler, p: QuorumPacket): void {
    h.tickOfNextAckDeadline = this.tick + this.peer.config.syncLimitTicks;
    switch (p.kind) {
      case "FOLLOWERINFO":
      case "OBSERVERINFO":
        return this.onFollowerInfo(h, p.sid, zxidEpoch(p.zxid), p.kind === "OBSERVERINFO");
      case "ACKEPOCH":
        return this.onAckEpoch(h, p.zxid, p.epoch);
      case "ACK":
        return this.onAck(h, p.zxid);
      case "PING":
        for (const [id, timeoutMs] of p.touches ?? []) this.zks.sessionTracker.touchSession(id, timeoutMs);
        return;
      case "REQUEST":
        return this.zks.submitForwarded(h, p);
      case "REVALIDATE":
        return h.send({ kind: "REVALIDATE", sessionId: p.sessionId, timeoutMs: p.timeoutMs, valid: this.zks.revalidateFor(h, p.sessionId, p.timeoutMs) });
      default:
        this.flag("messageIllegal", `leader got ${p.kind} from sid ${h.sid}`);
    }
  }

  // ---- discovery -----------------------------------------------------------------------

  private onFollowerInfo(h: LearnerHandler, sid: number, acceptedEpoch: number, isObserver: boolean): void {
    if (h.stage !== "FOLLOWERINFO") return this.flag("stateInconsistent", `second FOLLOWERINFO from sid ${sid}`);
    h.sid = sid;
    h.isObserver = isObserver;
    h.learnerAcceptedEpoch = acceptedEpoch;
    h.stage = "EPOCH";
    if (this.epochDecided) return this.sendLeaderInfo(h);
    // getEpochToPropose: max(acceptedEpoch)+1 over the leader and the learners that reported.
    if (acceptedEpoch > this.maxAcceptedEpoch) this.maxAcceptedEpoch = acceptedEpoch;
    if (!isObserver) this.connectingFollowers.add(sid);
    this.checkEpochQuorum();
  }

  private checkEpochQuorum(): void {
    if (this.epochDecided || !this.peer.qv.containsQuorum(this.connectingFollowers)) return;
    this.epochDecided = true;
    // Before Zab 1.0 (ZOOKEEPER-335) the leader took the epoch of its own last zxid plus one, and
    // persisted it nowhere (the peer's epoch setters write nothing with that bug).
    this.epoch = this.peer.hasBug("ZK-335") ? zxidEpoch(this.lastProposed) + 1 : this.maxAcceptedEpoch + 1;
    this.versionInitialConfig();
    this.peer.setAcceptedEpoch(this.epoch, () => {
      this.acceptedEpochDurable = true;
      this.electingFollowers.add(this.myid);
      for (const h of this.handlers) if (h.stage === "EPOCH") this.sendLeaderInfo(h);
    });
  }

  private sendLeaderInfo(h: LearnerHandler): void {
    if (!this.acceptedEpochDurable) return; // sent once the leader's acceptedEpoch is durable
    h.stage = "ACKEPOCH";
    h.send({ kind: "LEADERINFO", zxid: epochZxid(this.epoch) });
  }

  private onAckEpoch(h: LearnerHandler, zxid: Zxid, learnerEpoch: number): void {
    if (h.stage !== "ACKEPOCH") return this.flag("stateInconsistent", `ACKEPOCH from sid ${h.sid} in stage ${h.stage}`);
    h.peerLastZxid = zxid;
    // A learner strictly more recent than the leader must not be synchronised by it.
    const mine = { epoch: this.peer.currentEpoch, zxid: this.peer.zkDb.lastProcessedZxid };
    if (learnerEpoch > mine.epoch || (learnerEpoch === mine.epoch && zxid > mine.zxid)) {
      this.peer.ctx.annotate("zab.learner.rejected", { sid: this.myid, learner: h.sid, reason: "learner is more recent" });
      h.ep.close();
      return;
    }
    h.stage = "SYNC";
    if (learnerEpoch !== -1 && !h.isObserver) this.electingFollowers.add(h.sid);
    if (this.discoveryOver) return this.syncFollower(h);
    if (!this.peer.qv.containsQuorum(this.electingFollowers)) return;
    this.discoveryOver = true;
    this.peer.setCurrentEpoch(this.epoch, () => {
      this.currentEpochDurable = true;
      this.peer.phase("SYNCHRONIZATION", this.epoch);
      this.newLeaderAcks.add(this.myid);
      const initLimitMs = this.peer.config.initLimitTicks * this.peer.config.tickTimeMs;
      this.timers.push(this.peer.ctx.setTimerMs(initLimitMs, () => !this.newLeaderQuorum && this.abandon("no quorum of NEWLEADER ACKs within initLimit"), "leader-newleader-timeout"));
      for (const other of this.handlers) if (other.stage === "SYNC") this.syncFollower(other);
    });
  }

  // ---- synchronisation ------------------------------------------------------------------

  /** `LearnerHandler.syncFollower`: DIFF / TRUNC / SNAP (`chooseSyncMode`), then forwarding, then NEWLEADER. */
  private syncFollower(h: LearnerHandler): void {
    if (!this.currentEpochDurable) return; // synced once the leader's currentEpoch is durable
    const db = this.peer.zkDb;
    const peerZxid = h.peerLastZxid;
    const last = db.lastProcessedZxid;
    const choice = chooseSyncMode(peerZxid, db, this.peer.hasBug("ZK-1154"));
    const { mode: chosen, zxid: modeZxid } = choice;
    this.peer.ctx.annotate("zab.sync", { sid: this.myid, learner: h.sid, mode: chosen, peerLastZxid: zxidHex(peerZxid), zxid: zxidHex(modeZxid), txnLog: choice.fromTxnLog || undefined });
    // The canary ships a SNAP whatever it chose (and announced).
    const mode = this.peer.config.server.canary === "sync-always-snap" ? "SNAP" : chosen;
    if (mode === "SNAP") {
      h.send({ kind: "SNAP", zxid: last, snapshot: db.dataTree.serialize() });
    } else {
      h.send({ kind: mode, zxid: modeZxid });
      // The canary breaks the txn-log catch-up on purpose: the learner misses one committed txn.
      const proposals = choice.fromTxnLog && this.peer.config.server.canary === "txnlog-diff-gap" ? choice.proposals.slice(1) : choice.proposals;
      for (const e of proposals) {
        h.send({ kind: "PROPOSAL", zxid: e.header.zxid, entry: e });
        h.send({ kind: "COMMIT", zxid: e.header.zxid });
      }
    }
    // startForwarding: outstanding proposals above the sync point, then live traffic.
    h.forwarding = true;
    if (!h.isObserver) for (const p of this.outstanding) if (p.zxid > last) h.send({ kind: "PROPOSAL", zxid: p.zxid, entry: p.entry });
    h.stage = "NEWLEADER";
    // 3.5+: NEWLEADER carries the leader's last seen config, which the learner activates at UPTODATE.
    const config = this.peer.reconfigEnabled ? { config: this.peer.lastSeenQuorumVerifier.toString() } : {};
    h.send({ kind: "NEWLEADER", zxid: epochZxid(this.epoch), ...config });
  }

  private onAck(h: LearnerHandler, zxid: Zxid): void {
    if (h.stage === "NEWLEADER") {
      // The handler reads exactly one packet as the NEWLEADER ACK (`waitForNewLeaderAck`). One
      // with another zxid is logged "from a different epoch" and not counted, and the handler
      // goes on to wait for the leader to start as if it had been acked: that learner never
      // counts toward the NEWLEADER quorum (the ZOOKEEPER-4685 symptom).
      h.stage = "BROADCAST";
      if (zxid !== epochZxid(this.epoch)) {
        this.flag("ackInconsistent", `sid ${h.sid} sent ACK ${zxidHex(zxid)} while the NEWLEADER ACK ${zxidHex(epochZxid(this.epoch))} was expected`);
      } else if (!h.isObserver) {
        this.newLeaderAcks.add(h.sid);
      }
      if (this.established) h.send({ kind: "UPTODATE" });
      else this.checkEstablished();
      return;
    }
    if (zxidCounter(zxid) === 0) return; // ACK of UPTODATE
    if (h.isObserver) return;
    this.processAck(h.sid, zxid);
  }

  /** A quorum ACKed NEWLEADER (`waitForNewLeaderAck` returned); `startZkServer` runs, then the leader is established. */
  private newLeaderQuorum = false;

  private checkEstablished(): void {
    // The canary does not wait for a quorum: the first learner's NEWLEADER ACK, with its own, establishes it.
    if (this.newLeaderQuorum || !(this.hasAllQuorums(this.newLeaderAcks) || this.peer.config.server.canary === "established-without-quorum")) return;
    this.newLeaderQuorum = true;
    // `Leader.startZkServer`: building and starting the LeaderZooKeeperServer's processors takes
    // 3.8's JVM `leaderServingStartupMs` (0 unless a deployment's cost was measured,
    // quorum-timing.ts); every LearnerHandler waits for it (`waitForStartup`) before its UPTODATE.
    const startupMs = this.peer.timing.leaderServingStartupMs;
    if (startupMs === 0) return this.startZkServer();
    this.timers.push(this.peer.ctx.setTimerMs(startupMs, () => this.running && this.startZkServer(), "leader-serving-startup"));
  }

  private startZkServer(): void {
    this.established = true;
    this.activatePendingConfig();
    this.lastCommitted = this.peer.zkDb.lastProcessedZxid;
    this.peer.ctx.annotate("zab.leader.established", { sid: this.myid, epoch: this.epoch, lastZxid: zxidHex(this.peer.zkDb.lastProcessedZxid) });
    this.peer.phase("BROADCAST", this.epoch);
    this.peer.startedServers.push("leader"); // `startZkServer()`
    this.peer.fle.updateElectionVote(this.epoch);
    this.zks.startLeading(makeZxid(this.epoch, 0));
    for (const h of this.handlers) if (h.stage === "BROADCAST") h.send({ kind: "UPTODATE" });
  }

  /**
   * ZOOKEEPER-1783: an initial config (version 0, as a config file without `version=` gives) is
   * given the version of this epoch's NEWLEADER zxid, so that it wins over the partial configs of
   * servers about to join. It becomes the last seen config, agreed on through NEWLEADER and
   * activated when the leader is established, as a pending reconfig is (`activatePendingConfig`).
   * With reconfig disabled nothing changes (3.8 keeps no last seen config then): version stays 0.
   */
  private versionInitialConfig(): void {
    const qv = this.peer.qv;
    if (qv.version === 0n && this.peer.lastSeenQuorumVerifier.version === 0n) this.peer.setLastSeenQuorumVerifier(qv.withVersion(makeZxid(this.epoch, 0)));
  }

  /** `SyncedLearnerTracker.hasAllQuorums`: a quorum of every configuration in force. */
  private hasAllQuorums(sids: ReadonlySet<number>): boolean {
    return this.peer.quorumVerifiers.every((qv) => qv.containsQuorum(sids));
  }

  /**
   * ZOOKEEPER-1324: a config proposed under an earlier leader (and in this leader's log) is
   * activated once a quorum of both configs ACKed NEWLEADER; the learners activate it at UPTODATE.
   */
  private activatePendingConfig(): void {
    const next = this.peer.lastSeenQuorumVerifier;
    if (!this.peer.reconfigEnabled || next.version <= this.peer.qv.version) return;
    const designated = this.designatedLeader(next, this.newLeaderAcks, []);
    this.peer.processReconfig(next, designated, this.myid);
    if (designated !== this.myid) this.allowedToCommit = false;
  }

  /** The designated leader; the canary `removed-leader-keeps-leading` always names itself. */
  private designatedLeader(next: QuorumVerifier, acks: ReadonlySet<number>, after: readonly Proposal[]): number {
    if (this.peer.config.server.canary === "removed-leader-keeps-leading") return this.myid;
    return getDesignatedLeader(this.myid, next, acks, after);
  }

  /** `isQuorumSynced(qv)`: the voters of `qv` among us and our synced followers are a quorum of it. */
  isQuorumSynced(qv: QuorumVerifier): boolean {
    const ids = new Set<number>();
    if (qv.isVoter(this.myid)) ids.add(this.myid);
    for (const h of this.handlers) if (h.forwarding && !h.isObserver && h.synced && qv.isVoter(h.sid)) ids.add(h.sid);
    return qv.containsQuorum(ids);
  }

  // ---- broadcast -------------------------------------------------------------------------

  /** ProposalRequestProcessor: send to forwarding followers, log locally (the self-ACK follows the fsync). */
  propose(entry: TxnEntry): void {
    const zxid = entry.header.zxid;
    if (zxidCounter(zxid) === 0xffffffff) {
      this.abandon("zxid counter exhausted (ZOOKEEPER-1277)");
      return;
    }
    invariant(zxid > this.lastProposed && zxidEpoch(zxid) === this.epoch, () => `leader ${this.myid} proposes ${zxidHex(zxid)} after ${zxidHex(this.lastProposed)} in epoch ${this.epoch}`);
    const reconfig = this.peer.reconfigEnabled ? reconfigTarget(entry, this.peer.addressing) : undefined;
    if (reconfig !== undefined) this.peer.setLastSeenQuorumVerifier(reconfig);
    this.outstanding.push({ zxid, entry, acks: new Set(), qvs: this.peer.quorumVerifiers, reconfig });
    this.lastProposed = zxid;
    this.peer.ctx.annotate("zab.propose", { sid: this.myid, epoch: this.epoch, zxid: zxidHex(zxid), txn: txnDigest(entry) });
    for (const h of this.handlers) if (h.forwarding && !h.isObserver) h.send({ kind: "PROPOSAL", zxid, entry });
    this.sync.logRequest(entry, true);
  }

  private processAck(sid: number, zxid: Zxid): void {
    if (!this.allowedToCommit) return; // the last commit handed leadership to another server
    let p: Proposal | undefined;
    for (const o of this.outstanding) {
      if (o.zxid === zxid) {
        p = o;
        break;
      }
    }
    if (p === undefined) return; // already committed, or unknown
    this.peer.ctx.annotate("zab.ack", { sid: this.myid, from: sid, zxid: zxidHex(zxid) });
    p.acks.add(sid);
    this.tryToCommit();
  }

  /** Commits, in zxid order, every head proposal acknowledged by a quorum. */
  private tryToCommit(): void {
    while (this.outstanding.length > 0) {
      const p = this.outstanding[0]!;
      const zxid = p.zxid;
      // containsQuorum counts only voters' ACKs (observers do not ack). The canary commits on
      // any single voter's ACK (its own): a minority. Checkers must catch it.
      if (!this.allowedToCommit) return;
      if (!this.enoughAcks(p)) return;
      invariant(zxid > this.lastCommitted, () => `leader ${this.myid} commits ${zxidHex(zxid)} after ${zxidHex(this.lastCommitted)}`);
      this.outstanding.shift();
      this.lastCommitted = zxid;
      this.peer.ctx.annotate("zab.commit", { sid: this.myid, zxid: zxidHex(zxid) });
      if (p.reconfig !== undefined) this.commitAndActivate(p, p.reconfig);
      else this.commit(p);
      this.zks.commitTxn(p.entry);
      this.releaseSyncs();
    }
  }

  /**
   * Whether `p` may commit: a quorum of every config it was proposed under. Canaries: any single
   * voter's ACK (`minority-commit`); a reconfig on the old config's quorum alone, its new
   * config's members unheard (`reconfig-activates-early`).
   */
  private enoughAcks(p: Proposal): boolean {
    const canary = this.peer.config.server.canary;
    if (canary === "minority-commit") return [...p.acks].some((s) => this.peer.qv.isVoter(s));
    if (canary === "reconfig-activates-early" && p.reconfig !== undefined) return p.qvs[0]!.containsQuorum(p.acks);
    return p.qvs.every((qv) => qv.containsQuorum(p.acks));
  }

  private commit(p: Proposal): void {
    for (const h of this.handlers) {
      if (!h.forwarding) continue;
      if (h.isObserver) h.send({ kind: "INFORM", zxid: p.zxid, entry: p.entry });
      else h.send({ kind: "COMMIT", zxid: p.zxid });
    }
  }

  /**
   * A reconfig committed: activate it here, then tell the learners with the designated leader.
   * Not a voter of it any more, this leader commits nothing else; its followers, seeing another
   * designated leader, leave, and it steps down when it no longer has a synced quorum.
   */
  private commitAndActivate(p: Proposal, next: QuorumVerifier): void {
    const designated = this.designatedLeader(next, p.acks, this.outstanding);
    this.peer.processReconfig(next, designated, this.myid);
    if (designated !== this.myid) this.allowedToCommit = false;
    for (const h of this.handlers) {
      if (!h.forwarding) continue;
      if (h.isObserver) h.send({ kind: "INFORMANDACTIVATE", zxid: p.zxid, entry: p.entry, designatedLeader: designated });
      else h.send({ kind: "COMMITANDACTIVATE", zxid: p.zxid, designatedLeader: designated });
    }
  }

  /** A forwarded sync is answered once everything proposed before it is committed. */
  queueSync(sid: number, sessionId: SessionId, cxid: number): void {
    this.pendingSyncs.push({ sid, sessionId, cxid, after: this.lastProposed });
    this.releaseSyncs();
  }

  private releaseSyncs(): void {
    while (this.pendingSyncs.length > 0 && this.pendingSyncs[0]!.after <= this.lastCommitted) {
      const s = this.pendingSyncs.shift()!;
      for (const h of this.handlers) if (h.sid === s.sid) h.send({ kind: "SYNC", sessionId: s.sessionId, cxid: s.cxid });
    }
  }

  // ---- liveness --------------------------------------------------------------------------

  /** `Leader.lead()` loop: PING every tickTime/2; every tick, check that a quorum is synced. */
  private halfTick(): void {
    if (!this.running) return;
    const half = this.tickHalf = !this.tickHalf;
    for (const h of this.handlers) if (h.stage !== "FOLLOWERINFO") h.send({ kind: "PING", zxid: this.lastProposed });
    if (!half) {
      this.tick++;
      if (this.established) {
        const synced = new Set([this.myid]);
        for (const h of this.handlers) if (h.synced && !h.isObserver && h.stage === "BROADCAST") synced.add(h.sid);
        // The canary keeps leading (and serving its clients) without a quorum.
        if (!this.hasAllQuorums(synced) && this.peer.config.server.canary !== "leader-ignores-quorum-loss") return this.abandon("Not sufficient followers synced, only synced with sids: [" + [...synced].join(",") + "]");
      }
    }
    this.timers.push(this.peer.ctx.setTimerMs(this.peer.config.tickTimeMs / 2, () => this.halfTick(), "leader-tick"));
  }
  private tickHalf = false;

  private abandon(reason: string): void {
    if (!this.running) return;
    this.peer.roleEnded(reason);
  }

  shutdown(): void {
    this.running = false;
    for (const t of this.timers) this.peer.ctx.cancelTimer(t);
    for (const h of this.handlers) h.ep.close();
    this.handlers.clear();
    this.zks.shutdown();
    this.sync.shutdown();
  }
}
