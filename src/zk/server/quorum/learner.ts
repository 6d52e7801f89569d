/**
 * `Learner` — `Follower` and `Observer` (docs/zookeeper.md §7.3–7.6) — with the
 * `LearnerZooKeeperServer` that serves clients once synchronised (learner-zoo-keeper-server.ts,
 * its session tracker in learner-session-tracker.ts).
 *
 * Discovery: FOLLOWERINFO(acceptedEpoch) → LEADERINFO(e): a higher epoch is persisted as
 * acceptedEpoch before ACKEPOCH; an equal one answers ACKEPOCH with epoch −1; a lower one
 * aborts. Synchronisation: DIFF (keep the state), TRUNC (cut the log back and reload), SNAP
 * (replace the tree); PROPOSALs before NEWLEADER are buffered and COMMITs remembered. At
 * NEWLEADER, in the fixed (3.9.3) order: snapshot if SNAP/TRUNC (after a SNAP the main thread
 * waits for its fsync, `takeSnapshot(true)`; after a TRUNC it does not, `takeSnapshot(false)` —
 * the same in 3.8.0); log and apply the buffered proposals already committed and fsync; persist
 * currentEpoch; then ACK. UPTODATE starts
 * serving, then the rest of the buffer is logged and the remembered commits applied.
 * Broadcast: PROPOSAL → SyncRequestProcessor (log, fsync, ACK) (followers); COMMIT must match
 * the head of the pending queue; observers apply INFORMs. A leader silent for syncLimit ticks
 * ends the role.
 *
 * Two activities, as in Java: the main thread (`onPacket`), which blocks while it waits for a
 * synchronous disk write at NEWLEADER (packets arriving meanwhile wait in `inbox`, as they
 * would in the socket), and the `SyncRequestProcessor`, which logs proposals in the background.
 *
 * The older behaviours behind the bug zoo are switched on by `peer.hasBug(...)`:
 * - ZK-3911 (3.5.8): NEWLEADER persists currentEpoch and ACKs; the diff txns are logged only at
 *   UPTODATE.
 * - ZK-4394, ZK-4643, ZK-4646, ZK-4685, ZK-4785 (3.8.0, docs/zookeeper.md §7.4 "3.8.0 learner
 *   algorithm"): NEWLEADER persists currentEpoch, hands the whole buffer to the sync processor
 *   (asynchronous: it fsyncs and ACKs each proposal whenever it gets to it), clears the buffer
 *   and ACKs at once. The same code is behind all five: 4643 is a crash after the currentEpoch
 *   write, 4646/4785 a crash after the ACK, before the sync processor's fsync; 4394 is a COMMIT
 *   that then finds the cleared buffer; 4685 is the sync thread winning the race, its proposal
 *   ACKs on the wire before the main thread's ACK(NEWLEADER) — with that bug on, the simulator
 *   takes that interleaving.
 * - ZK-4712: the sync processor is not stopped when the role ends.
 * - ZK-2355: the DIFF packet's zxid is taken as processed before the diff is applied.
 */
import type { Endpoint, TimerHandle } from "../../../world/index.js";
import { DataTree } from "../data-tree.js";
import { zxidEpoch, zxidHex, type Zxid } from "../../proto/records.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { Request } from "../zoo-keeper-server.js";
import type { ServerCnxn } from "../server-cnxn.js";
import type { QuorumPeer } from "./quorum-peer.js";
import { loggedAnnouncer } from "./zab-trace.js";
import { epochZxid, type QuorumPacket } from "./quorum-packet.js";
import { SyncRequestProcessor } from "./sync-request-processor.js";
import type { BugId } from "../bug-id.js";
import { LearnerZooKeeperServer } from "./learner-zoo-keeper-server.js";
import type { QuorumVerifier } from "./quorum-verifier.js";
import { parseConfigText } from "./quorum-server-spec.js";
import { reconfigTarget } from "./leader-reconfig.js";

type Stage = "CONNECTING" | "DISCOVERY" | "SYNC" | "NEWLEADER" | "BROADCAST";
type SyncMode = "DIFF" | "TRUNC" | "SNAP";

const CONNECT_ATTEMPTS = 5;

/** Bug ids whose defect lives in 3.8.0's NEWLEADER handling (see the header). */
const SYNC_WITH_LEADER_380: readonly BugId[] = ["ZK-4394", "ZK-4643", "ZK-4646", "ZK-4685", "ZK-4785"];

export class Learner {
  private ep: Endpoint | undefined;
  private stage: Stage = "CONNECTING";
  private attempts = 0;
  /** When the first connect try began (the tries share one time limit). */
  private connectStartMs = 0;
  private newEpoch = -1;
  private syncMode: SyncMode = "DIFF";
  /** Proposals received before being logged (sync phase), in zxid order. */
  private notLogged: TxnEntry[] = [];
  /** Zxids committed by the leader that are not applied yet (sync phase). */
  private readonly committed = new Set<Zxid>();
  /** Logged (or queued for logging) proposals waiting for their COMMIT (`pendingTxns`). */
  private readonly pendingTxns: TxnEntry[] = [];
  /** Packets that arrived while the main thread was blocked, read afterwards in order. */
  private readonly inbox: QuorumPacket[] = [];
  private blocked = false;
  private readonly sync: SyncRequestProcessor;
  private lastHeardMs = 0;
  private readonly timers: TimerHandle[] = [];
  private running = true;
  readonly zks: LearnerZooKeeperServer;
  /** Until UPTODATE, applied txns are held back from the "zab.deliver" announcements. */
  deliveriesDeferred = true;
  readonly deferredDeliveries: TxnEntry[] = [];

  constructor(
    readonly peer: QuorumPeer,
    readonly leaderSid: number,
    readonly isObserver: boolean,
  ) {
    this.zks = new LearnerZooKeeperServer(peer.ctx, { ...peer.config.server, tickTimeMs: peer.config.tickTimeMs, serverId: peer.myid }, peer.zkDb, this);
    this.sync = new SyncRequestProcessor(
      peer,
      (zxid) => this.ackProposal(zxid),
      (err) => this.running && this.peer.roleEnded(`txn log write failed: ${err}`),
      peer.hasBug("ZK-4712"),
      peer.config.server.canary === "follower-ack-before-fsync",
    );
    const startupMs = peer.timing.learnerStartupMs;
    if (startupMs === 0) this.discover();
    else this.timers.push(peer.ctx.setTimerMs(startupMs, () => this.running && this.discover(), "learner-startup"));
    this.watchdog();
  }

  /** `Follower.followLeader` / `Observer.observeLeader` after the learner's start-up (`learnerStartupMs`, 0 unless measured): the election ends, the connect tries begin. */
  private discover(): void {
    this.peer.phase("DISCOVERY", this.peer.acceptedEpoch);
    this.connect();
  }

  get myid(): number {
    return this.peer.myid;
  }

  /** A SNAP was loaded into memory but NEWLEADER (which persists it) was not processed yet. */
  get unpersistedSnap(): boolean {
    return this.syncMode === "SNAP" && this.stage === "SYNC";
  }

  /** 3.8.0's NEWLEADER handling is re-injected (followers only: observers never took that path). */
  private get syncWithLeader380(): boolean {
    return !this.isObserver && SYNC_WITH_LEADER_380.some((b) => this.peer.hasBug(b));
  }

  /** 3.5.8's NEWLEADER handling (ZOOKEEPER-3911) is re-injected. */
  private get syncWithLeaderPre3911(): boolean {
    return !this.isObserver && this.peer.hasBug("ZK-3911");
  }

  private flag(flag: string, detail: string): void {
    this.peer.ctx.annotate("zab.flag", { sid: this.myid, flag, detail });
  }

  send(p: QuorumPacket): void {
    if (this.ep?.open) this.ep.send(p);
  }

  /** The sync processor's ACK of a logged proposal, announced as this server's own (`zab.ack` with from = sid). */
  private ackProposal(zxid: Zxid): void {
    if (!this.ep?.open) return;
    this.peer.ctx.annotate("zab.ack", { sid: this.myid, from: this.myid, zxid: zxidHex(zxid) });
    this.ep.send({ kind: "ACK", zxid });
  }

  /**
   * `Learner.connectToLeader`: up to 5 tries, each with a connect timeout of what is left of
   * `connectToLearnerMasterLimit` ticks (initLimit's when 0) since the first; after a failed try,
   * `leaderConnectDelayDuringRetryMs` and the next, unless that pause would use up the time left
   * or this was the fifth. Then the role ends (the follower goes back to LOOKING). In the
   * "zksim-classic" timing profile the tries share no limit: each gets the whole one.
   */
  private connect(): void {
    if (!this.running) return;
    const timing = this.peer.timing;
    const connectTimeoutMs = this.peer.config.tickTimeMs * (timing.connectToLearnerMasterLimitTicks > 0 ? timing.connectToLearnerMasterLimitTicks : this.peer.config.initLimitTicks);
    if (this.attempts === 0) this.connectStartMs = this.peer.ctx.nowMs();
    const remainingMs = (): number => connectTimeoutMs - (this.peer.ctx.nowMs() - this.connectStartMs);
    const tryTimeoutMs = timing.connectTriesShareLimit ? Math.min(connectTimeoutMs, remainingMs()) : connectTimeoutMs;
    if (timing.connectTriesShareLimit && remainingMs() <= 0) return this.peer.roleEnded(`connectToLeader ${this.leaderSid} exceeded on retries`);
    this.attempts++;
    this.ep = this.peer.ctx.connect(this.peer.hostOf(this.leaderSid), this.peer.config.quorumPort, {
      onOpen: () => {
        this.stage = "DISCOVERY";
        this.lastHeardMs = this.peer.ctx.nowMs();
        this.send({ kind: this.isObserver ? "OBSERVERINFO" : "FOLLOWERINFO", sid: this.myid, zxid: epochZxid(this.peer.acceptedEpoch) });
      },
      onMessage: (_e, m) => this.running && this.receive(m as QuorumPacket),
      onClose: (_e, reason) => {
        if (!this.running) return;
        const timeLeft = !timing.connectTriesShareLimit || remainingMs() > timing.leaderConnectDelayDuringRetryMs;
        if (this.stage === "CONNECTING" && this.attempts < CONNECT_ATTEMPTS && timeLeft) {
          this.timers.push(this.peer.ctx.setTimerMs(timing.leaderConnectDelayDuringRetryMs, () => this.connect(), "learner-connect-retry"));
          return;
        }
        this.peer.roleEnded(`connection to leader ${this.leaderSid} ${reason}`);
      },
    }, { timeoutUs: tryTimeoutMs * 1000 });
  }

  /** A leader silent for syncLimit ticks (initLimit while syncing) ends the role. */
  private watchdog(): void {
    const tickMs = this.peer.config.tickTimeMs;
    this.timers.push(
      this.peer.ctx.setTimerMs(tickMs, () => {
        if (!this.running) return;
        if (this.stage !== "CONNECTING") {
          const limitTicks = this.stage === "BROADCAST" ? this.peer.config.syncLimitTicks : this.peer.config.initLimitTicks;
          if (this.peer.ctx.nowMs() - this.lastHeardMs > limitTicks * tickMs) return this.peer.roleEnded(`leader ${this.leaderSid} silent for ${limitTicks} ticks`);
        }
        this.watchdog();
      }, "learner-watchdog"),
    );
  }

  /** A packet from the leader: read now, or after the main thread is done with its disk write. */
  private receive(p: QuorumPacket): void {
    this.lastHeardMs = this.peer.ctx.nowMs();
    if (this.blocked) {
      this.inbox.push(p);
      return;
    }
    this.onPacket(p);
  }

  /** The main thread waits for a synchronous disk write (Java blocks in it). */
  private block(): void {
    this.blocked = true;
  }

  private unblock(): void {
    this.blocked = false;
    while (!this.blocked && this.running && this.inbox.length > 0) this.onPacket(this.inbox.shift()!);
  }

  private onPacket(p: QuorumPacket): void {
    switch (p.kind) {
      case "LEADERINFO":
        return this.onLeaderInfo(zxidEpoch(p.zxid));
      case "DIFF":
      case "TRUNC":
      case "SNAP":
        return this.onSyncStart(p);
      case "PROPOSAL":
        this.noteReconfigProposal(p.entry);
        return this.onProposal(p.entry);
      case "COMMITANDACTIVATE":
        return this.onCommitAndActivate(p.zxid, p.designatedLeader);
      case "INFORMANDACTIVATE":
        return this.onInformAndActivate(p.entry, p.designatedLeader);
      case "COMMIT":
        return this.onCommit(p.zxid);
      case "INFORM":
        return this.onInform(p.entry);
      case "NEWLEADER":
        this.noteNewLeaderConfig(p.config);
        return this.onNewLeader(p.zxid);
      case "UPTODATE":
        return this.onUpToDate();
      case "PING":
        return this.send({ kind: "PING", zxid: p.zxid, touches: this.zks.drainTouches() });
      case "REVALIDATE":
        return this.zks.revalidated(p.sessionId, p.valid === true);
      case "SYNC":
        return this.zks.syncAnswered(p.sessionId, p.cxid);
      default:
        this.flag("messageIllegal", `learner got ${p.kind}`);
    }
  }

  // ---- discovery -------------------------------------------------------------------------

  private onLeaderInfo(epoch: number): void {
    if (this.stage !== "DISCOVERY") return this.flag("stateInconsistent", `LEADERINFO in stage ${this.stage}`);
    const lastZxid = this.peer.zkDb.lastProcessedZxid;
    if (epoch > this.peer.acceptedEpoch) {
      this.newEpoch = epoch;
      this.stage = "SYNC";
      this.peer.setAcceptedEpoch(epoch, () => this.send({ kind: "ACKEPOCH", zxid: lastZxid, epoch: this.peer.currentEpoch }));
    } else if (epoch === this.peer.acceptedEpoch) {
      this.newEpoch = epoch;
      this.stage = "SYNC";
      this.send({ kind: "ACKEPOCH", zxid: lastZxid, epoch: -1 });
    } else {
      this.peer.roleEnded(`leader epoch ${epoch} is below my acceptedEpoch ${this.peer.acceptedEpoch}`);
    }
  }

  // ---- synchronisation -------------------------------------------------------------------

  private onSyncStart(p: Extract<QuorumPacket, { kind: "DIFF" | "TRUNC" | "SNAP" }>): void {
    if (this.stage !== "SYNC") return this.flag("stateInconsistent", `${p.kind} in stage ${this.stage}`);
    this.syncMode = p.kind;
    this.peer.phase("SYNCHRONIZATION", this.newEpoch);
    const db = this.peer.zkDb;
    if (p.kind === "TRUNC") {
      // ZK-1549: 3.8.0 keeps the snapshots above the TRUNC zxid, reloads the newest and takes
      // the TRUNC zxid as processed (`setlastProcessedZxid`): a snapshot's txns above it stay.
      const dirtyReload = this.peer.hasBug("ZK-1549");
      db.truncateLog(p.zxid, dirtyReload);
      db.loadDataBase();
      if (dirtyReload) db.dataTree.lastProcessedZxid = p.zxid;
      if (db.lastProcessedZxid > p.zxid) {
        // A snapshot newer than the truncation point: Java exits ("Not able to truncate the log").
        this.flag("proposalInconsistent", `TRUNC to ${zxidHex(p.zxid)} below a snapshot at ${zxidHex(db.lastProcessedZxid)}`);
        return this.peer.roleEnded("cannot truncate below a snapshot");
      }
      if (db.lastProcessedZxid < p.zxid) {
        // The snapshots removed above the TRUNC zxid held the only copy of the txns up to it: a
        // learner synced by SNAP keeps its older log, which stops below. 3.8 keeps the snapshot
        // (ZK-1549) and never gets here; claiming the TRUNC zxid from a shorter tree would lose
        // the gap for good. Say where the tree stands and sync again from there (DIFF or SNAP).
        this.peer.announceRecovered();
        return this.peer.roleEnded(`TRUNC to ${zxidHex(p.zxid)}: the disk reaches only ${zxidHex(db.lastProcessedZxid)} without the snapshots above it`);
      }
      this.peer.ctx.annotate("zab.truncate", { sid: this.myid, zxid: zxidHex(p.zxid) });
    } else if (p.kind === "SNAP") {
      const tree = DataTree.deserialize(p.snapshot, { extendedTypesEnabled: db.dataTree.extendedTypesEnabled });
      tree.lastProcessedZxid = p.zxid;
      db.setTree(tree);
      this.peer.ctx.annotate("zab.snap.load", { sid: this.myid, zxid: zxidHex(p.zxid) });
    } else if (this.peer.hasBug("ZK-2355")) {
      db.dataTree.lastProcessedZxid = p.zxid; // before 3.4.11/3.5.4: the DIFF zxid was taken as processed before the diff was applied
    }
    this.peer.initConfigInZKDatabase();
  }

  private onProposal(entry: TxnEntry): void {
    if (this.stage === "SYNC" || this.stage === "NEWLEADER") {
      const last = this.notLogged[this.notLogged.length - 1];
      if (last !== undefined && entry.header.zxid <= last.header.zxid) this.flag("proposalInconsistent", `PROPOSAL ${zxidHex(entry.header.zxid)} after ${zxidHex(last.header.zxid)}`);
      this.notLogged.push(entry);
      return;
    }
    if (this.stage !== "BROADCAST") return this.flag("stateInconsistent", `PROPOSAL in stage ${this.stage}`);
    this.logRequest(entry);
  }

  private onCommit(zxid: Zxid): void {
    if (this.stage === "SYNC" || this.stage === "NEWLEADER") {
      const head = this.notLogged[0];
      if (head === undefined && this.syncWithLeader380) {
        // 3.8.0 reads the head of the buffer without checking it is there; NEWLEADER cleared it.
        this.flag("commitInconsistent", `COMMIT ${zxidHex(zxid)} in stage ${this.stage} found an empty buffer (NullPointerException in 3.8.0)`);
        return this.peer.roleEnded(`NullPointerException on COMMIT ${zxidHex(zxid)} before UPTODATE`);
      }
      if (this.syncMode !== "DIFF" && this.stage === "SYNC") {
        // SNAP/TRUNC: committed txns are applied directly while syncing.
        if (head === undefined || head.header.zxid !== zxid) return this.flag("commitInconsistent", `COMMIT ${zxidHex(zxid)} does not match the head of the sync buffer`);
        this.notLogged.shift();
        this.logTxn(head);
        this.deliver(head);
        return;
      }
      this.committed.add(zxid);
      return;
    }
    if (this.stage !== "BROADCAST") return this.flag("stateInconsistent", `COMMIT in stage ${this.stage}`);
    this.commitPending(zxid);
  }

  /** `FollowerZooKeeperServer.commit`: the COMMIT must match the head of pendingTxns. */
  private commitPending(zxid: Zxid): void {
    const head = this.pendingTxns[0];
    if (head === undefined || head.header.zxid !== zxid) return this.flag("commitInconsistent", `COMMIT ${zxidHex(zxid)} does not match the head of pendingTxns ${head ? zxidHex(head.header.zxid) : "(empty)"}`);
    this.pendingTxns.shift();
    this.deliver(head);
  }

  private onInform(entry: TxnEntry): void {
    if (this.stage !== "BROADCAST") {
      this.notLogged.push(entry);
      this.committed.add(entry.header.zxid);
      return;
    }
    this.logTxn(entry);
    this.deliver(entry);
  }

  private onNewLeader(zxid: Zxid): void {
    if (this.stage !== "SYNC") return this.flag("stateInconsistent", `NEWLEADER in stage ${this.stage}`);
    if (zxidEpoch(zxid) !== this.newEpoch) return this.flag("stateInconsistent", `NEWLEADER of epoch ${zxidEpoch(zxid)} while syncing for ${this.newEpoch}`);
    this.stage = "NEWLEADER";
    this.block();
    if (this.syncMode === "DIFF") return this.afterNewLeaderSnapshot();
    // `takeSnapshot(syncSnapshot)`: after a SNAP the main thread waits until the snapshot is
    // durable (the leader's history is then on this disk alone); after a TRUNC it is written
    // without waiting for its fsync (`syncSnapshot` false: the truncated log already holds it).
    const waitForIt = this.syncMode === "SNAP" && this.peer.config.server.canary !== "learner-acks-before-snapshot";
    const written = this.peer.zkDb.takeSnapshotNow(waitForIt ? () => this.running && this.afterNewLeaderSnapshot() : undefined);
    if (!written) return this.peer.roleEnded("snapshot write failed at NEWLEADER");
    if (waitForIt) return;
    // The canary ACKs NEWLEADER before its SNAP's snapshot is durable (then goes on as usual).
    if (this.syncMode === "SNAP") this.sendNewLeaderAck();
    this.afterNewLeaderSnapshot();
  }

  /** NEWLEADER once its snapshot (if any) is taken: the buffer, currentEpoch, then the ACK. */
  private afterNewLeaderSnapshot(): void {
    const db = this.peer.zkDb;
    if (this.syncWithLeaderPre3911) return this.newLeaderPre3911();
    if (this.syncWithLeader380) return this.newLeader380();
    // Fixed order: log and apply the committed part of the buffer, fsync, currentEpoch, ACK.
    const ready: TxnEntry[] = [];
    while (this.notLogged.length > 0 && this.committed.has(this.notLogged[0]!.header.zxid)) ready.push(this.notLogged.shift()!);
    for (const e of ready) {
      this.committed.delete(e.header.zxid);
      if (!this.appendTxn(e)) return;
      this.deliver(e);
    }
    const announce = loggedAnnouncer(this.peer.ctx, this.myid, ready);
    db.commit(() => {
      announce();
      if (!this.running) return;
      this.peer.setCurrentEpoch(this.newEpoch, () => this.ackNewLeader());
    }, announce);
  }

  /** ZK-3911 (3.5.8 and before): currentEpoch, then ACK; the buffer waits for UPTODATE. */
  private newLeaderPre3911(): void {
    this.peer.setCurrentEpoch(this.newEpoch, () => this.ackNewLeader());
  }

  /** 3.8.0: currentEpoch; the buffer to the sync processor (async) and cleared; ACK at once. */
  private newLeader380(): void {
    this.peer.setCurrentEpoch(this.newEpoch, () => {
      if (!this.running) return;
      const buffered = this.notLogged;
      this.notLogged = [];
      for (const e of buffered) this.logRequest(e);
      // ZK-4685: the sync thread wins the race and its ACKs overtake ACK(NEWLEADER).
      if (this.peer.hasBug("ZK-4685")) this.sync.afterFlush(() => this.ackNewLeader());
      else this.ackNewLeader();
    });
  }

  /** ACK(NEWLEADER) went out (the canary sends it before NEWLEADER's work is done). */
  private newLeaderAcked = false;

  private sendNewLeaderAck(): void {
    if (!this.newLeaderAcked) this.send({ kind: "ACK", zxid: epochZxid(this.newEpoch) });
    this.newLeaderAcked = true;
  }

  /**
   * The end of NEWLEADER: the ACK, and the main thread reads on. 3.8's JVM spends
   * `learnerSyncMs` (0 unless a deployment's cost was measured, quorum-timing.ts) of
   * `Learner.syncWithLeader` before it: the leader's LearnerHandler serializing the DIFF or SNAP,
   * this learner loading it, and `zk.startupWithoutServing()` building its processors.
   */
  private ackNewLeader(): void {
    if (!this.running) return;
    const syncMs = this.peer.timing.learnerSyncMs;
    if (syncMs === 0) return this.syncedWithLeader();
    this.timers.push(this.peer.ctx.setTimerMs(syncMs, () => this.syncedWithLeader(), "learner-sync"));
  }

  private syncedWithLeader(): void {
    if (!this.running) return;
    this.peer.startedServers.push(this.isObserver ? "observer" : "follower"); // `zk.startupWithoutServing()` before the ACK
    this.sendNewLeaderAck();
    this.unblock();
  }

  private onUpToDate(): void {
    if (this.stage !== "NEWLEADER") return this.flag("stateInconsistent", `UPTODATE in stage ${this.stage}`);
    const leaderQv = this.newLeaderQv;
    if (leaderQv !== undefined && this.peer.processReconfig(leaderQv, undefined, this.leaderSid)) return this.peer.roleEnded("changes proposed in reconfig");
    this.stage = "BROADCAST";
    this.deliveriesDeferred = false;
    this.zks.deliverSynced();
    this.peer.phase("BROADCAST", this.newEpoch);
    this.peer.fle.updateElectionVote(this.newEpoch);
    this.zks.startServing();
    this.send({ kind: "ACK", zxid: epochZxid(this.newEpoch) });
    const buffered = this.notLogged;
    this.notLogged = [];
    if (this.syncWithLeader380 || this.syncWithLeaderPre3911) {
      // Log everything still buffered, then apply the remembered commits in order.
      for (const e of buffered) this.logRequest(e);
      const commits = [...this.committed];
      this.committed.clear();
      for (const zxid of commits) this.commitPending(zxid);
      return;
    }
    for (const e of buffered) {
      if (this.isObserver || this.committed.has(e.header.zxid)) {
        this.committed.delete(e.header.zxid);
        this.logTxn(e);
        this.deliver(e);
      } else {
        this.logRequest(e);
      }
    }
  }

  // ---- reconfiguration (docs/zookeeper.md §7.10) -------------------------------------------

  /** The config the leader's NEWLEADER carried: the last seen one now, activated at UPTODATE. */
  private newLeaderQv: QuorumVerifier | undefined;

  private noteNewLeaderConfig(config: string | undefined): void {
    if (config === undefined || !this.peer.reconfigEnabled) return;
    const parsed = parseConfigText(config, 0n, this.peer.addressing);
    if (!parsed.ok) return this.flag("messageIllegal", `NEWLEADER carried an unreadable config: ${parsed.error}`);
    this.newLeaderQv = parsed.value;
    this.peer.setLastSeenQuorumVerifier(parsed.value);
  }

  /** A reconfig PROPOSAL (while syncing or broadcasting): its config is the last seen one. */
  private noteReconfigProposal(entry: TxnEntry): void {
    if (!this.peer.reconfigEnabled) return;
    const qv = reconfigTarget(entry, this.peer.addressing);
    if (qv !== undefined) this.peer.setLastSeenQuorumVerifier(qv);
  }

  /**
   * COMMITANDACTIVATE: activate the reconfig's config, then commit it as a COMMIT. When this
   * server's role or its leader changes (another designated leader), it leaves and elects again.
   */
  private onCommitAndActivate(zxid: Zxid, designatedLeader: number): void {
    const entry = [...this.pendingTxns, ...this.notLogged].find((e) => e.header.zxid === zxid);
    const qv = entry === undefined ? undefined : reconfigTarget(entry, this.peer.addressing);
    if (qv === undefined) return this.flag("commitInconsistent", `COMMITANDACTIVATE ${zxidHex(zxid)} of no pending reconfig`);
    const major = this.peer.processReconfig(qv, designatedLeader, this.leaderSid);
    this.onCommit(zxid);
    if (major && this.running) this.peer.roleEnded("changes proposed in reconfig");
  }

  /** INFORMANDACTIVATE: an observer's COMMITANDACTIVATE, with the txn. */
  private onInformAndActivate(entry: TxnEntry, designatedLeader: number): void {
    const qv = reconfigTarget(entry, this.peer.addressing);
    if (qv === undefined) return this.flag("commitInconsistent", `INFORMANDACTIVATE ${zxidHex(entry.header.zxid)} carries no reconfig`);
    const major = this.peer.processReconfig(qv, designatedLeader, this.leaderSid);
    this.onInform(entry);
    if (major && this.running) this.peer.roleEnded("changes proposed in reconfig");
  }

  // ---- logging and delivery --------------------------------------------------------------

  /** Appends a txn to the log (not yet durable); false if the write failed (the role ends). */
  private appendTxn(entry: TxnEntry): boolean {
    const r = this.peer.zkDb.append(entry);
    if (!r.ok) this.peer.roleEnded(`txn log write failed: ${r.err}`);
    return r.ok;
  }

  /**
   * Logs a txn outside the sync processor (SNAP/TRUNC commits, INFORM, UPTODATE): appended now,
   * announced as logged ("zab.log") once an fsync covers it — every log write must reach the
   * checkers, or a txn really on disk looks missing after a restart. One fsync covers everything
   * appended by the current event (issued right after it), not one fsync per txn.
   */
  private logTxn(entry: TxnEntry): void {
    if (!this.appendTxn(entry)) return;
    this.unannounced.push(entry);
    if (this.announceTimer === undefined) this.announceTimer = this.peer.ctx.setTimer(0, () => this.announceLogged(), "learner-log-fsync");
  }

  private readonly unannounced: TxnEntry[] = [];
  private announceTimer: TimerHandle | undefined;
  private announceInFlight = false;

  /**
   * Group commit, as SyncRequestProcessor does: while one fsync is in flight, later writes wait
   * and the next single fsync covers them all (one fsync per txn queues up behind a slow disk).
   */
  private announceLogged(): void {
    this.announceTimer = undefined;
    if (this.announceInFlight || this.unannounced.length === 0) return;
    const batch = this.unannounced.splice(0);
    this.announceInFlight = true;
    const announce = loggedAnnouncer(this.peer.ctx, this.myid, batch);
    this.peer.zkDb.commit(() => {
      this.announceInFlight = false;
      announce();
      this.announceLogged();
    }, announce);
  }

  /** `FollowerZooKeeperServer.logRequest`: pending its COMMIT, and to the sync processor. */
  private logRequest(entry: TxnEntry): void {
    this.pendingTxns.push(entry);
    this.sync.logRequest(entry, !this.isObserver);
  }

  private deliver(entry: TxnEntry): void {
    this.zks.commitTxn(entry);
  }

  /** Forwards a client request to the leader. */
  forward(req: Request, authInfo: ServerCnxn["authInfo"]): void {
    const packet: QuorumPacket & { kind: "REQUEST" } = { kind: "REQUEST", sessionId: req.sessionId, cxid: req.xid, type: req.type, record: req.record, authInfo };
    if (req.sessionTimeoutMs !== undefined) packet.sessionTimeoutMs = req.sessionTimeoutMs;
    this.send(packet);
  }

  shutdown(): void {
    this.running = false;
    for (const t of this.timers) this.peer.ctx.cancelTimer(t);
    this.ep?.close();
    this.zks.shutdown();
    this.sync.shutdown();
  }
}
