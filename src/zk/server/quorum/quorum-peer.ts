/**
 * `QuorumPeer`: one ensemble member as a simulated process. It owns the ZKDatabase and the
 * epoch files, runs FastLeaderElection while LOOKING, and becomes a `Leader`, a `Follower` or
 * an `Observer` when the election decides; when that role ends (quorum lost, leader gone, a
 * protocol error) it goes back to LOOKING.
 *
 * Persistence (docs/zookeeper.md §7.7): `acceptedEpoch` and `currentEpoch` are files written
 * atomically and fsynced before the protocol goes on; the txn log and snapshots are the
 * ZKDatabase's. Going back to LOOKING reloads the tree from disk, so the in-memory state never
 * lags what is logged (the ZOOKEEPER-2845 fix; see `recoverTreeAfterRole` for how this relates
 * to 3.8's fast-forward).
 *
 * Every protocol step is annotated (`zab.*`) for the ZAB checkers and the teaching UI.
 */
import type { NodeContext, RandomStream, TimerHandle } from "../../../world/index.js";
import { zxidEpoch, zxidHex, type Zxid } from "../../proto/records.js";
import type { ZKDatabase } from "../zk-database.js";
import { DEFAULT_SERVER_CONFIG, newZKDatabase, type ZooKeeperServer, type ZooKeeperServerConfig } from "../zoo-keeper-server.js";
import { QuorumVerifier, type QuorumServer } from "./quorum-verifier.js";
import { QuorumCnxManager } from "./quorum-cnx-manager.js";
import { FastLeaderElection } from "./fast-leader-election.js";
import type { ServerState, Vote } from "./vote.js";
import { Leader } from "./leader.js";
import { Learner } from "./learner.js";
import { QUORUM_PORT } from "./quorum-packet.js";
import type { ZabState } from "./zab-vocabulary.js";
import type { BugId } from "../bug-id.js";
import { ReadOnlyZooKeeperServer } from "./read-only-zoo-keeper-server.js";
import { resolveQuorumTiming, type QuorumTimingChoice, type ResolvedQuorumTiming } from "./quorum-timing.js";
import { invariant } from "../../../base/errors.js";
import { CONFIG_PATH } from "../../proto/path-utils.js";
import { WALL_CLOCK_BASE_MS } from "../zoo-keeper-server.js";
import { parseConfigText, type ServerAddressing } from "./quorum-server-spec.js";
import { FailoverMetrics } from "./failover-metrics.js";

export interface QuorumPeerConfig {
  myid: number;
  members: QuorumServer[];
  tickTimeMs: number;
  initLimitTicks: number;
  syncLimitTicks: number;
  quorumPort: number;
  /** Client-facing server settings. */
  server: Partial<ZooKeeperServerConfig>;
  /** Historical defects re-injected on purpose (the bug zoo). */
  bugs: ReadonlySet<BugId>;
  /** `readonlymode.enabled`: while LOOKING, serve read-only clients (ReadOnlyZooKeeperServer). Off by default, as in 3.8. */
  readOnlyModeEnabled?: boolean;
  /** Election and leader-connect timings: a profile and settings over it (quorum-timing.ts); absent = the "zksim-classic" profile. */
  timing?: QuorumTimingChoice;
  /**
   * `reconfigEnabled` (3.8 default false): dynamic reconfiguration (docs/zookeeper.md §7.10). With
   * it, /zookeeper/config holds the configuration, the last seen and committed configs are kept
   * and persisted, and reconfig requests are accepted (subject to the ACL gate).
   */
  reconfigEnabled?: boolean;
  /** `standaloneEnabled` (3.8 default true): a reconfig must then leave at least 2 voters. */
  standaloneEnabled?: boolean;
  /** How config text names servers (quorum-server-spec.ts): "real" under `zksim serve`; default "simulated". */
  addressing?: ServerAddressing;
}

/** QuorumPeer.run's grace period before a LOOKING peer starts its read-only server: max(2 s, tickTime). */
export function readOnlyGraceMs(tickTimeMs: number): number {
  return Math.max(2000, tickTimeMs);
}

export const DEFAULT_QUORUM_CONFIG = {
  tickTimeMs: 2000,
  initLimitTicks: 10,
  syncLimitTicks: 5,
  quorumPort: QUORUM_PORT,
};

const ACCEPTED_EPOCH_FILE = "acceptedEpoch";
// One stateless encoder and decoder (non-streaming calls keep no state): constructing them at
// every peer start and sync costs more than the config text they convert.
const configEncoder = new TextEncoder();
const configDecoder = new TextDecoder();
/** The committed configuration as 3.8's dynamic config file holds it (`zoo.cfg.dynamic.<version>`). */
const DYNAMIC_CONFIG_FILE = "zoo.cfg.dynamic";
const CURRENT_EPOCH_FILE = "currentEpoch";

export class QuorumPeer {
  readonly config: QuorumPeerConfig;
  readonly timing: ResolvedQuorumTiming;
  /** The committed configuration (`getQuorumVerifier`). */
  private committedQv: QuorumVerifier;
  /** The last configuration proposed or seen (`getLastSeenQuorumVerifier`); the committed one when none is pending. */
  private lastSeenQv: QuorumVerifier;
  readonly zkDb: ZKDatabase;
  readonly fle: FastLeaderElection;
  private readonly qcm: QuorumCnxManager;
  acceptedEpoch: number;
  currentEpoch: number;
  state: ServerState = "LOOKING";
  /** 3.8's failover summaries (mntr's election, unavailable and sync times) of this incarnation. */
  readonly failoverMetrics = new FailoverMetrics();
  /**
   * The ZooKeeperServers this incarnation started, in order (a learner's at NEWLEADER, the
   * leader's once established): 3.8 registers their metrics then, and the order `mntr` prints
   * them in depends on that history (src/serve/mntr-keys.ts). A plain field: no trace.
   */
  readonly startedServers: ("leader" | "follower" | "observer")[] = [];
  private role: Leader | Learner | undefined;
  /** Read-only mode: the grace timer of this LOOKING round, then the read-only server it started. */
  private roGrace: TimerHandle | undefined;
  private roZk: ReadOnlyZooKeeperServer | undefined;
  /** Draws an observer's wait before it elects again (`Observer.waitForObserverElectionDelay`). */
  private observerDelayRng: RandomStream | undefined;

  constructor(
    readonly ctx: NodeContext,
    config: QuorumPeerConfig,
  ) {
    this.config = config;
    this.timing = resolveQuorumTiming(config.timing ?? { profile: "zksim-classic" });
    this.committedQv = this.loadQuorumVerifier(config.members);
    this.lastSeenQv = this.committedQv;
    const serverConfig = { ...DEFAULT_SERVER_CONFIG, ...config.server };
    this.zkDb = newZKDatabase(ctx, serverConfig);
    this.zkDb.loadDataBase();
    if (this.reconfigEnabled) {
      this.adoptConfigFromTree();
      this.ctx.annotate("zab.config.activated", { sid: this.myid, version: zxidHex(this.committedQv.version), config: this.committedQv.toString() });
    } else {
      // QuorumPeerMain fills /zookeeper/config whether or not reconfig is enabled.
      this.initConfigInZKDatabase();
    }
    const fromLog = zxidEpoch(this.zkDb.lastProcessedZxid);
    this.currentEpoch = this.readEpoch(CURRENT_EPOCH_FILE) ?? fromLog;
    this.acceptedEpoch = this.readEpoch(ACCEPTED_EPOCH_FILE) ?? this.currentEpoch;
    this.announceRecovered();
    this.qcm = new QuorumCnxManager(ctx, config.myid, this.committedQv, { cnxTimeoutMs: this.timing.cnxTimeoutMs, lastSeenView: () => this.lastSeenQv });
    this.fle = new FastLeaderElection({
      ctx,
      myid: config.myid,
      qv: this.committedQv,
      manager: this.qcm,
      getLastLoggedZxid: () => this.zkDb.lastProcessedZxid,
      getCurrentEpoch: () => this.currentEpoch,
      onElected: (vote, state) => this.onElected(vote, state),
      onNewerConfig: (text) => this.onNewerConfigGossip(text),
      onElectionRestart: () => this.phase("ELECTION", this.currentEpoch),
      nonMemberAllowed: this.reconfigEnabled,
      zk1419: this.hasBug("ZK-1419"),
      ignoreZxid: config.server.canary === "fle-ignores-zxid",
      countOldRounds: config.server.canary === "fle-counts-old-rounds",
      minNotificationIntervalMs: this.timing.minNotificationIntervalMs,
      maxNotificationIntervalMs: this.timing.maxNotificationIntervalMs,
    });
    if (this.lastSeenQv !== this.committedQv) this.fle.setQuorumVerifiers(this.committedQv, this.lastSeenQv);
    this.fle.start();
    this.lookForLeader();
  }

  get myid(): number {
    return this.config.myid;
  }

  get reconfigEnabled(): boolean {
    return this.config.reconfigEnabled === true;
  }

  /** How this ensemble's config text names servers (quorum-server-spec.ts). */
  get addressing(): ServerAddressing {
    return this.config.addressing ?? "simulated";
  }

  /** The committed configuration. */
  get qv(): QuorumVerifier {
    return this.committedQv;
  }

  /** The last configuration seen: a proposed reconfig's while it is pending, else the committed one. */
  get lastSeenQuorumVerifier(): QuorumVerifier {
    return this.lastSeenQv;
  }

  /** The configurations a quorum must come from: the committed one, and the pending one if any. */
  get quorumVerifiers(): QuorumVerifier[] {
    return this.lastSeenQv.version > this.committedQv.version ? [this.committedQv, this.lastSeenQv] : [this.committedQv];
  }

  // ---- dynamic reconfiguration (docs/zookeeper.md §7.10) -----------------------------------

  /** The committed config from the dynamic config file, else the static one. */
  private loadQuorumVerifier(members: QuorumServer[]): QuorumVerifier {
    const recs = this.ctx.disk.read(DYNAMIC_CONFIG_FILE);
    const last = recs[recs.length - 1];
    if (typeof last === "string") {
      const parsed = parseConfigText(last, 0n, this.addressing);
      if (parsed.ok) return parsed.value;
    }
    return new QuorumVerifier(members);
  }

  /** The config text in /zookeeper/config, if it parses. */
  private configInTree(): QuorumVerifier | undefined {
    const data = this.zkDb.dataTree.getNode(CONFIG_PATH)?.data;
    if (data === undefined || data === null || data.length === 0) return undefined;
    const parsed = parseConfigText(configDecoder.decode(data), 0n, this.addressing);
    return parsed.ok ? parsed.value : undefined;
  }

  /**
   * After loading the tree: a reconfig logged but not known committed (its version above the
   * dynamic file's) is the last seen config — 3.8 keeps it in `zoo.cfg.dynamic.next`; here the
   * txn log is that record. Otherwise /zookeeper/config gets the committed config.
   */
  private adoptConfigFromTree(): void {
    const inTree = this.configInTree();
    if (inTree !== undefined && inTree.version > this.lastSeenQv.version) {
      this.lastSeenQv = inTree;
      this.ctx.annotate("zab.config.next", { sid: this.myid, version: zxidHex(inTree.version), config: inTree.toString() });
    } else {
      this.initConfigInZKDatabase();
    }
  }

  /**
   * `ZKDatabase.initConfigInZKDatabase`: the committed config into /zookeeper/config (version −1,
   * mzxid = its version). 3.8 does it at start and after every sync with a leader, reconfig
   * enabled or not (Learner.syncWithLeader; with it disabled a leader's snapshot must not
   * bring another config in, ZOOKEEPER-2819).
   */
  initConfigInZKDatabase(): void {
    const qv = this.committedQv;
    const text = qv.toString();
    const node = this.zkDb.dataTree.getNode(CONFIG_PATH);
    if (node !== undefined && node.data !== null && node.stat.mzxid === qv.version && configDecoder.decode(node.data) === text) return;
    this.zkDb.dataTree.setData(CONFIG_PATH, configEncoder.encode(text), -1, qv.version, WALL_CLOCK_BASE_MS + this.ctx.nowMs());
  }

  /** `setLastSeenQuorumVerifier`: a newer config was proposed (or logged); quorums now need it too. */
  setLastSeenQuorumVerifier(qv: QuorumVerifier): void {
    if (!this.reconfigEnabled || qv.version <= this.lastSeenQv.version) return;
    this.lastSeenQv = qv;
    this.fle.setQuorumVerifiers(this.committedQv, this.lastSeenQv);
    this.ctx.annotate("zab.config.next", { sid: this.myid, version: zxidHex(qv.version), config: qv.toString() });
  }

  /**
   * `QuorumPeer.processReconfig`: `qv` is now the committed configuration — persisted, put in
   * /zookeeper/config, used by the election. True when the change is major for this server: its
   * learner type changes (participant, observer, or not a member), or its leader does (the
   * designated one differs, or, with none designated, its leader is no longer a voter); the
   * caller then leaves its role and elects again.
   */
  processReconfig(qv: QuorumVerifier, designatedLeader: number | undefined, currentLeader: number): boolean {
    if (!this.reconfigEnabled || qv.version <= this.committedQv.version) return false;
    const prev = this.committedQv;
    this.committedQv = qv;
    if (qv.version > this.lastSeenQv.version) this.lastSeenQv = qv;
    this.persistQuorumVerifier(qv);
    this.initConfigInZKDatabase();
    this.fle.setQuorumVerifiers(this.committedQv, this.lastSeenQv);
    this.qcm.setView(qv);
    this.ctx.annotate("zab.config.activated", { sid: this.myid, version: zxidHex(qv.version), config: qv.toString(), ...(designatedLeader !== undefined ? { designatedLeader } : {}) });
    const roleChange = learnerTypeOf(prev, this.myid) !== learnerTypeOf(qv, this.myid);
    const leaderChange = designatedLeader !== undefined ? designatedLeader !== currentLeader : !qv.isVoter(currentLeader);
    return roleChange || leaderChange;
  }

  /**
   * The dynamic config file. A write that fails (a full disk) leaves the old file and the server
   * goes on, as 3.8's `setQuorumVerifier` logs the IOException and goes on: after a restart the
   * server starts from the older config and learns the new one from its leader or by gossip.
   */
  private persistQuorumVerifier(qv: QuorumVerifier): void {
    const text = qv.toString();
    if (this.ctx.disk.replace(DYNAMIC_CONFIG_FILE, [text], [text.length]).ok) this.ctx.disk.fsync(DYNAMIC_CONFIG_FILE, () => undefined);
  }

  /**
   * FastLeaderElection gossip: a notification carried a newer config. A LOOKING peer takes it
   * as committed (3.8's `processReconfig(rqv, null, null, false)` from the receiver thread) and
   * its election restarts under it; a peer with a role learns it from its leader instead.
   */
  private onNewerConfigGossip(text: string): boolean {
    if (!this.reconfigEnabled || this.state !== "LOOKING") return false;
    const parsed = parseConfigText(text, 0n, this.addressing);
    if (!parsed.ok || parsed.value.version <= this.committedQv.version) return false;
    this.processReconfig(parsed.value, undefined, -1);
    return true;
  }

  hasBug(id: BugId): boolean {
    return this.config.bugs.has(id);
  }

  get lastLoggedZxid(): Zxid {
    return this.zkDb.lastProcessedZxid;
  }

  private readEpoch(file: string): number | undefined {
    const recs = this.ctx.disk.read(file);
    const last = recs[recs.length - 1];
    return typeof last === "number" ? last : undefined;
  }

  /** Atomically replaces an epoch file and fsyncs it; `then` runs once it is durable. */
  /**
   * Writes an epoch file and fsyncs it, then `then`. A write that fails (a full disk) ends the
   * server's role instead, as Java's `writeLongToFile` throws an IOException out of
   * `setAcceptedEpoch`/`setCurrentEpoch` and the follower or leader goes back to LOOKING: the
   * epoch is neither taken in memory nor acknowledged (an ACKEPOCH over an acceptedEpoch that is
   * not on disk lets a restarted server propose an epoch already handed out).
   */
  private writeEpoch(file: string, epoch: number, then: () => void): boolean {
    const written = this.ctx.disk.replace(file, [epoch], [8]);
    if (!written.ok) {
      this.roleEnded(`${file} write failed: ${written.err}`);
      return false;
    }
    this.ctx.disk.fsync(file, then);
    return true;
  }

  /**
   * Bug zoo, ZOOKEEPER-335: before Zab 1.0 (3.4.0) there were no epoch files at all; a server's
   * epoch was the epoch of its last logged zxid, so nothing records that an epoch was handed out
   * until its first txn is logged. With the bug, the two setters below persist nothing and the
   * epochs are re-derived from the log whenever the tree is (re)loaded.
   */
  private get preZab10(): boolean {
    return this.hasBug("ZK-335");
  }

  setAcceptedEpoch(epoch: number, then: () => void): void {
    if (this.preZab10) return then();
    invariant(epoch >= this.acceptedEpoch, () => `server ${this.myid} accepts epoch ${epoch} after ${this.acceptedEpoch}: the accepted epoch never goes back`);
    const written = this.writeEpoch(ACCEPTED_EPOCH_FILE, epoch, () => {
      this.ctx.annotate("zab.epoch.accepted", { sid: this.myid, epoch });
      then();
    });
    if (written) this.acceptedEpoch = epoch;
  }

  setCurrentEpoch(epoch: number, then: () => void): void {
    if (this.preZab10) return then();
    invariant(epoch >= this.currentEpoch && epoch <= this.acceptedEpoch, () => `server ${this.myid} takes epoch ${epoch} as current after ${this.currentEpoch}, having accepted ${this.acceptedEpoch}: the current epoch never goes back nor passes the accepted one`);
    const written = this.writeEpoch(CURRENT_EPOCH_FILE, epoch, () => {
      this.ctx.annotate("zab.epoch.current", { sid: this.myid, epoch });
      then();
    });
    if (written) this.currentEpoch = epoch;
  }

  setState(state: ServerState): void {
    if (this.state === state) return;
    this.state = state;
    this.ctx.annotate("zab.state", { sid: this.myid, state });
  }

  /** "zab.phase": ZooKeeper's `ZabState` names; `ZAB_STATE_BOOK_PHASE` gives the book's. */
  phase(phase: ZabState, epoch: number): void {
    this.ctx.annotate("zab.phase", { sid: this.myid, phase, epoch });
    this.failoverMetrics.onPhase(phase, this.state, Math.floor(this.ctx.nowUs() / 1000));
  }

  private lookForLeader(): void {
    this.setState("LOOKING");
    this.phase("ELECTION", this.currentEpoch);
    if (this.config.readOnlyModeEnabled === true) this.startReadOnlyGrace();
    this.fle.lookForLeader();
  }

  /**
   * QuorumPeer.run's LOOKING branch with read-only mode on: a thread sleeps max(2 s, tickTime)
   * and, if the peer is still LOOKING, starts a ReadOnlyZooKeeperServer on the peer's database;
   * when the election returns, the thread is interrupted and that server shut down.
   */
  private startReadOnlyGrace(): void {
    this.ctx.cancelTimer(this.roGrace);
    this.roGrace = this.ctx.setTimerMs(
      readOnlyGraceMs(this.config.tickTimeMs),
      () => {
        this.roGrace = undefined;
        if (this.state !== "LOOKING") return;
        const server = { ...this.config.server, tickTimeMs: this.config.tickTimeMs, serverId: this.myid };
        this.roZk = new ReadOnlyZooKeeperServer(this.ctx, server, this.zkDb);
        this.roZk.startServing();
        this.ctx.annotate("zk.readonly.start", { sid: this.myid, lastZxid: zxidHex(this.zkDb.lastProcessedZxid) });
      },
      "read-only-grace",
    );
  }

  /** The election returned: no read-only server any more (its connections close). */
  private stopReadOnly(): void {
    this.ctx.cancelTimer(this.roGrace);
    this.roGrace = undefined;
    const ro = this.roZk;
    if (ro === undefined) return;
    this.roZk = undefined;
    ro.shutdown();
    this.ctx.annotate("zk.readonly.stop", { sid: this.myid });
  }

  private onElected(vote: Vote, state: "LEADING" | "FOLLOWING" | "OBSERVING"): void {
    this.stopReadOnly();
    this.setState(state);
    if (state === "LEADING") {
      const leader = new Leader(this);
      this.role = leader;
      leader.lead();
    } else this.role = new Learner(this, vote.leader, state === "OBSERVING");
  }

  /**
   * The current role gave up: back to LOOKING with the tree reloaded from disk.
   *
   * Shutting the role down stops its `SyncRequestProcessor`, which first flushes: the txns it
   * was given are appended and fsynced (`SyncRequestProcessor.shutdown` joins the thread, then
   * `flush()`), and only then does the peer reload its tree and go LOOKING. So the peer waits
   * for the log fsyncs in flight: its election vote (its last logged zxid) never claims a txn
   * that a crash could still take back, and every txn in the reloaded tree has been announced
   * as logged. With ZK-4712 the learner's sync processor is not stopped and nothing waits.
   */
  roleEnded(reason: string): void {
    const role = this.role;
    if (role === undefined) return;
    this.role = undefined;
    const unpersistedSnap = role instanceof Learner && role.unpersistedSnap;
    role.shutdown();
    this.ctx.annotate("zab.role.ended", { sid: this.myid, state: this.state, reason });
    this.ctx.unlisten(this.config.quorumPort);
    const observer = role instanceof Learner && role.isObserver;
    const backToLooking = (): void => {
      this.recoverTreeAfterRole(unpersistedSnap);
      if (this.reconfigEnabled) this.adoptConfigFromTree();
      if (this.preZab10) this.acceptedEpoch = this.currentEpoch = zxidEpoch(this.zkDb.lastProcessedZxid);
      if (observer) this.waitForObserverElectionDelay();
      else this.lookForLeader();
    };
    if (role instanceof Learner && this.hasBug("ZK-4712")) backToLooking();
    else this.zkDb.flush(backToLooking);
  }

  /**
   * QuorumPeer.run's OBSERVING branch, once the observer has shut down: the peer is LOOKING
   * (`updateServerState`), and waits a random time in [0, observerElectionDelayMs) before it
   * elects, so that a fleet of observers does not flood the voters at once. Notifications that
   * arrive meanwhile wait in the election's queue, as in Java's.
   */
  private waitForObserverElectionDelay(): void {
    const bound = this.timing.observerElectionDelayMs;
    if (bound <= 0) return this.lookForLeader();
    this.setState("LOOKING");
    this.fle.setPeerState("LOOKING");
    this.observerDelayRng ??= this.ctx.rng.fork("observer-election-delay");
    const delayMs = this.observerDelayRng.int(0, bound - 1);
    this.ctx.setTimerMs(delayMs, () => this.lookForLeader(), "observer-election-delay");
  }

  /**
   * The in-memory database when a role ends. 3.8 (`Learner.shutdown` →
   * `ZooKeeperServer.shutdown(fullyShutDown)`) clears it after an incomplete SNAP sync, so that
   * it is reloaded from disk (the ZOOKEEPER-3642 fix), and otherwise replays the txn log onto
   * the tree it has (`fastForwardDataBase`, the ZOOKEEPER-2845 fix), keeping its committed log.
   * The simulator reloads in both cases (after a fast-forward the committed log is kept:
   * `reloadAfterRole`). That is the same tree whenever the tree is a prefix of the log, which the
   * learner's sync processor draining into the log before this point guarantees — unless the log
   * refused a write (a full disk): a follower applies a txn when the leader commits it, whether
   * or not its own log holds it yet, so its tree can be ahead of its log. 3.8.0 keeps that tree,
   * votes and syncs from its last applied zxid and never logs the txns its log lacks; the next
   * restart loses them (ZOOKEEPER-4882, open upstream). The simulator does what the fix does:
   * it reloads the disk's database, so the learner syncs the missing txns from the leader, and it
   * says that the tree went back, as a restart does. Re-injected bugs break the premise, so with
   * them the peer does what the real code did:
   * - ZK-2845 (3.4): the tree is kept as it is, no fast-forward;
   * - ZK-3642: the unpersisted SNAP tree is not cleared, only fast-forwarded (a no-op: the log
   *   is older than the snapshot);
   * - ZK-2355: the tree whose lastProcessedZxid was taken from the DIFF packet is fast-forwarded
   *   from that inflated zxid, so the diff txns it never applied are never replayed;
   * - ZK-4882 (3.8.0): the tree ahead of its log is kept, only fast-forwarded.
   */
  private recoverTreeAfterRole(unpersistedSnap: boolean): void {
    if (this.hasBug("ZK-2845")) return;
    if (unpersistedSnap ? this.hasBug("ZK-3642") : this.hasBug("ZK-2355") || this.hasBug("ZK-4882")) return this.fastForwardDataBase();
    const appliedZxid = this.zkDb.lastProcessedZxid;
    const aheadOfLog = !unpersistedSnap && appliedZxid > this.zkDb.snapLog.lastLoggedZxid();
    if (unpersistedSnap) this.zkDb.loadDataBase();
    else this.zkDb.reloadAfterRole();
    // Dropping an unpersisted SNAP, or txns the log never got, takes the tree back to what the
    // disk holds: say so, as a restart does, so observers of the trace know where it stands.
    // (A reload that falls short of the log itself is a defect, left for the checkers to see.)
    if (unpersistedSnap || (aheadOfLog && this.zkDb.lastProcessedZxid < appliedZxid)) this.announceRecovered();
  }

  /** "zab.recovered": the tree now holds what the disk holds (at start, after dropping a SNAP, or a TRUNC that fell short). */
  announceRecovered(): void {
    this.ctx.annotate("zab.recovered", {
      sid: this.myid,
      lastZxid: zxidHex(this.zkDb.lastProcessedZxid),
      currentEpoch: this.currentEpoch,
      acceptedEpoch: this.acceptedEpoch,
    });
  }

  /** `ZKDatabase.fastForwardDataBase`: applies the logged txns above the tree's lastProcessedZxid. */
  private fastForwardDataBase(): void {
    const from = this.zkDb.lastProcessedZxid;
    for (const entry of this.zkDb.snapLog.loggedTxns()) if (entry.header.zxid > from) this.zkDb.processTxn(entry);
  }

  /** True once this peer serves clients (leader established / learner up to date). */
  get serving(): boolean {
    return this.role?.zks.isServing ?? false;
  }

  /** The client-facing server of the current role, if any (for `zksim serve`'s four-letter words). */
  get activeServer(): ZooKeeperServer | undefined {
    return this.role?.zks ?? this.roZk;
  }

  /** A leader's learners: connected, and synced followers and observers (`mntr`); undefined when not leading. */
  learnerCounts(): { learners: number; syncedFollowers: number; syncedObservers: number } | undefined {
    if (!(this.role instanceof Leader)) return undefined;
    const handlers = [...this.role.handlers];
    const synced = handlers.filter((h) => h.synced);
    return { learners: handlers.length, syncedFollowers: synced.filter((h) => !h.isObserver).length, syncedObservers: synced.filter((h) => h.isObserver).length };
  }

  /** The read-only server, while this LOOKING peer runs one. */
  get readOnlyServer(): ReadOnlyZooKeeperServer | undefined {
    return this.roZk;
  }

  /** Nodes of the voting members other than me (for learners to find the leader). */
  hostOf(sid: number): string {
    const m = this.lastSeenQv.allMembers.get(sid) ?? this.committedQv.allMembers.get(sid);
    if (m === undefined) throw new Error(`no member with sid ${sid}`);
    return m.host;
  }
}

/** A server's learner type in a config: a voter, an observer, or not a member (3.8's non-voting participant). */
function learnerTypeOf(qv: QuorumVerifier, sid: number): "participant" | "observer" | "none" {
  return qv.allMembers.get(sid)?.role ?? "none";
}
