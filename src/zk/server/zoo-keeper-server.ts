/**
 * `ZooKeeperServer` — a standalone ZooKeeper 3.8 server as a simulated process.
 *
 * The request pipeline has ZooKeeper's standalone shape:
 *   PrepRequestProcessor  → validates, assigns the zxid, turns the request into a txn (a failed
 *                           write still becomes an error txn and consumes a zxid);
 *   SyncRequestProcessor  → appends the txn to the log; group commit: one fsync covers every txn
 *                           appended before it; reads behind a pending write wait for it;
 *   FinalRequestProcessor → applies the txn to the DataTree (firing watches), then replies.
 * Requests leave the pipeline in arrival order, so per-session FIFO holds and a write is
 * acknowledged only after its txn is durable.
 *
 * Sessions: the SessionTracker's expiry buckets; every packet touches its session; expiry is a
 * closeSession txn that deletes the session's ephemerals. A restart rebuilds the tree from the
 * snapshot and the log, and gives every recovered session a fresh timeout.
 */
import type { NodeContext, TimerHandle, Endpoint, RandomStream } from "../../world/index.js";
import { JuteReader, isJuteError } from "../proto/jute.js";
import { decodeConnectRequest, decodeRequestHeader, decodeRequestRecord } from "../proto/codec.js";
import { Code, codeName } from "../proto/error-code.js";
import { OpCode, Xid, opName } from "../proto/op-code.js";
import { JUTE_MAX_BUFFER_BYTES, eventTypeName, zxidHex, type Id, type SessionId, type WatcherEvent, type Zxid } from "../proto/records.js";
import type { RequestRecord } from "../proto/packets.js";
import type { TxnEntry } from "../proto/txn.js";
import { sessionPassword, isValidSessionPassword } from "../proto/session-id.js";
import { CLIENT_PORT } from "../proto/wire.js";
import { authenticate, type AuthProviders } from "./acl.js";
import { PrepRequestProcessor, type PrepCanary, type PrepRequest } from "./prep-request-processor.js";

/** The server canaries the prep processor implements. */
const PREP_CANARIES: ReadonlySet<string> = new Set<PrepCanary>(["multi-misanswered", "sequence-from-child-count", "delete-checks-node-acl"]);
import { processRead, replyForTxn, type FinalReply, type ReadOptions } from "./final-request-processor.js";
import { DigestMd5Server, NONCE_BYTES } from "./digest-md5.js";
import { SessionTrackerImpl, type SessionImpl, type SessionTracker } from "./session-tracker.js";
import { ServerCnxn, lastOpName, replyLabel, type CnxnHost } from "./server-cnxn.js";
import type { SessionDump, WatchesReport, ZooKeeperServerBean } from "./zoo-keeper-server-bean.js";
import { DEFAULT_SNAPSHOT_SIZE_FACTOR, ZKDatabase } from "./zk-database.js";
import { ContainerManager } from "./container-manager.js";
import { addInJavaConcurrentSetOrder, javaIdHashCode } from "./java-hash-set.js";

export interface ZooKeeperServerConfig {
  /** `myid` (standalone uses 1); the top byte of session ids. */
  serverId: number;
  tickTimeMs: number;
  /** Defaults: 2 × tickTime and 20 × tickTime. */
  minSessionTimeoutMs?: number;
  maxSessionTimeoutMs?: number;
  /** `snapCount`: a fuzzy snapshot starts after snapCount/2 + [0, snapCount/2) logged txns. */
  snapCount: number;
  /** The snapshot activity serializes this many nodes per step… */
  snapChunkNodes: number;
  /** …one step every this many µs, while txns go on being applied in between. */
  snapChunkIntervalUs: number;
  /** `zookeeper.snapshotSizeFactor` (leader): txn-log sync limit as a fraction of the snapshot size; < 0 disables. */
  snapshotSizeFactor: number;
  /** `autopurge.snapRetainCount` (purge after each snapshot); 0: autopurge off, ZooKeeper's default. */
  purgeSnapRetainCount: number;
  clientPort: number;
  extendedTypesEnabled: boolean;
  enforceQuota: boolean;
  skipACL: boolean;
  /** `reconfigEnabled` (3.8 default false): dynamic reconfiguration allowed (docs/zookeeper.md §7.10). */
  reconfigEnabled?: boolean;
  /** `zookeeper.DigestAuthenticationProvider.superDigest`: `super:<base64 sha1>`; its digest grants `super`. */
  superDigest?: string;
  /** Registered auth providers (`authProvider.N`); default ip and digest. */
  authProviders?: AuthProviders;
  /** The JAAS `Server` section's `user_<name>="password"` table: SASL DIGEST-MD5 logins; absent = no SASL login. */
  saslUsers?: ReadonlyMap<string, string>;
  /** `zookeeper.superUser` (and `zookeeper.superUser.*`): SASL users that also get `super`. */
  saslSuperUsers?: readonly string[];
  maxBufferBytes: number;
  /**
   * `localSessionsEnabled` (default false). zksim models its effect on a read-only server only
   * (docs/zookeeper.md §3.7): with it, that server's sessions are local; without it, 3.8's
   * read-only server cannot create a session at all. Leaders and followers keep global sessions.
   */
  localSessionsEnabled?: boolean;
  /** `znode.container.checkIntervalMs` (0 disables the ContainerManager). */
  containerCheckIntervalMs: number;
  /** A deliberately broken server, to prove checkers catch it (never in normal runs). */
  canary?: ServerCanary;
}

export type ServerCanary =
  | "ack-before-fsync"
  /** A fuzzy snapshot reports a failed write once its end record is written, though nothing failed. */
  | "snapshot-done-reported-failed"
  /** Every snapshot trigger is skipped as if a valid snapshot of the current zxid existed: no periodic snapshot is ever written. */
  | "snapshot-never-taken"
  /** A closed connection's watches stay registered (DataTree.removeCnxn forgets nothing). */
  | "watches-outlive-connection"
  | "no-ephemeral-cleanup"
  | "watch-not-fired"
  | "minority-commit"
  /** Recovery stops at the first logged txn a fuzzy snapshot already holds (NODEEXISTS/NONODE). */
  | "fuzzy-replay-strict"
  /** Parent cversion/pzxid move unconditionally on create/delete, no NODEEXISTS fixup (pre ZOOKEEPER-1046). */
  | "fuzzy-replay-no-fixup"
  /** A leader's DIFF from its on-disk txn log leaves out the first txn it read there. */
  | "txnlog-diff-gap"
  /** A leader sends every learner a SNAP, whatever sync it chose and announced (zab.sync). */
  | "sync-always-snap"
  /** A new leader keeps each session's old deadline (its last txn's time + timeout) instead of a fresh timeout. */
  | "stale-session-deadlines"
  /** A standard watch is not removed when it fires: the next change notifies it again. */
  | "standard-watch-kept"
  /** A delete fires NodeDataChanged at the node's data watches instead of NodeDeleted. */
  | "delete-fires-data-changed"
  /** A leader that loses its quorum keeps leading (and serving) instead of giving up after syncLimit ticks. */
  | "leader-ignores-quorum-loss"
  /** A reconfig commits and its config is activated on the old config's quorum alone, before the new config's members ACKed. */
  | "reconfig-activates-early"
  /** A leader that a reconfig removed names itself the designated leader and keeps leading and committing. */
  | "removed-leader-keeps-leading"
  /** A follower ACKs a proposal as soon as it is appended to its log, before the fsync covering it. */
  | "follower-ack-before-fsync"
  /** A learner synced by SNAP ACKs NEWLEADER as soon as its snapshot is written, before the snapshot's fsync. */
  | "learner-acks-before-snapshot"
  /** FastLeaderElection compares votes by epoch and sid only: a higher sid with a shorter log wins. */
  | "fle-ignores-zxid"
  /** FastLeaderElection lets a LOOKING vote of an older round move the proposal instead of dropping it. */
  | "fle-counts-old-rounds"
  /** A leader is established (and serves) on the first learner's NEWLEADER ACK, without a quorum's. */
  | "established-without-quorum"
  /** A read-only server applies and acknowledges writes instead of answering NOTREADONLY. */
  | "read-only-accepts-writes"
  /** A read-only server accepts a client whose ConnectRequest did not ask for read-only. */
  | "read-only-serves-any-client"
  /** A read-only server's local sessions never expire (a tracker that tracks no deadlines). */
  | "read-only-sessions-never-expire"
  /** A quota root's own node is left out of its count: a hard count limit lets one node too many in. */
  | "quota-root-uncounted"
  /** getEphemerals ignores its prefix: every ephemeral of the session comes back. */
  | "ephemerals-prefix-ignored"
  /** Broken preps (prep-request-processor.ts `PrepCanary`): a multi's answers, sequence numbers, a delete's ACL check. */
  | PrepCanary;

export const DEFAULT_SERVER_CONFIG: ZooKeeperServerConfig = {
  serverId: 1,
  tickTimeMs: 2000,
  snapCount: 10_000,
  snapChunkNodes: 500,
  snapChunkIntervalUs: 1_000,
  snapshotSizeFactor: DEFAULT_SNAPSHOT_SIZE_FACTOR,
  purgeSnapRetainCount: 0,
  clientPort: CLIENT_PORT,
  extendedTypesEnabled: false,
  enforceQuota: false,
  skipACL: false,
  maxBufferBytes: JUTE_MAX_BUFFER_BYTES,
  containerCheckIntervalMs: 60_000,
};

/** The database a server (standalone or quorum peer) loads from its disk, configured from `config`. */
export function newZKDatabase(ctx: NodeContext, config: ZooKeeperServerConfig): ZKDatabase {
  const { extendedTypesEnabled, snapCount, snapChunkNodes, snapChunkIntervalUs, snapshotSizeFactor, purgeSnapRetainCount, canary } = config;
  const treeOptions = {
    extendedTypesEnabled,
    ...(canary === "fuzzy-replay-no-fixup" ? { fuzzyReplayFixups: false } : {}),
    ...(canary === "standard-watch-kept" ? { keepStandardWatches: true } : {}),
    ...(canary === "delete-fires-data-changed" ? { deleteFiresDataChanged: true } : {}),
    ...(canary === "watches-outlive-connection" ? { watchLeakCanary: true } : {}),
    ...(canary === "ephemerals-prefix-ignored" ? { ephemeralsPrefixIgnored: true } : {}),
  };
  const replay = canary === "fuzzy-replay-strict" ? "strict" : "tolerant";
  const snapshotCanary = canary === "snapshot-done-reported-failed" ? "done-reported-failed" : canary === "snapshot-never-taken" ? "never-taken" : undefined;
  return new ZKDatabase(ctx, treeOptions, { snapCount, chunkNodes: snapChunkNodes, chunkIntervalUs: snapChunkIntervalUs, replay, snapshotSizeFactor, purgeSnapRetainCount, ...(snapshotCanary ? { snapshotCanary } : {}) });
}

/** Java's `System.currentTimeMillis()` at virtual time 0: 2026-01-01T00:00:00Z. */
export const WALL_CLOCK_BASE_MS = 1_767_225_600_000;

/** The owner token of sessions attached to this server itself (`ServerCnxn.me`). */
export const LOCAL_OWNER = Object.freeze({ owner: "local" });

/** A client (or internal) request travelling through the server. */
export interface Request {
  cnxn: ServerCnxn | null;
  sessionId: SessionId;
  xid: number;
  type: number;
  record: RequestRecord;
  /** The txn, once prepped (standalone/leader); learners never prep. */
  entry: TxnEntry | null;
  /** Prep's result code for requests without a txn (the session check). */
  err: number;
  /** Set when the request's txn was applied (writes) — what to answer. */
  reply: FinalReply | null;
  /** A write (goes through the txn pipeline / the leader) rather than a local read. */
  isWrite: boolean;
  /** The server's elapsed ms when the request arrived (for the connection's latency figures). */
  createdMs: number;
  /** createSession only: the negotiated timeout. */
  sessionTimeoutMs?: number;
  /** A request forwarded by a learner: the client's ids and the learner that owns the session. */
  authInfo?: Id[];
  owner?: unknown;
  /**
   * Leader only: a local request of a session whose write, forwarded by a learner, is still in
   * flight waits until that txn (this zxid) is applied — CommitProcessor keeps each session's
   * requests in order, whichever server they came through.
   */
  after?: Zxid;
}

/** Ops that change state (or, for sync, need the leader): they go through the txn pipeline. */
export const WRITE_OPS: ReadonlySet<number> = new Set([
  OpCode.create, OpCode.create2, OpCode.createContainer, OpCode.createTTL, OpCode.delete, OpCode.deleteContainer,
  OpCode.setData, OpCode.setACL, OpCode.check, OpCode.multi, OpCode.createSession, OpCode.closeSession, OpCode.reconfig,
]);

/** What PrepRequestProcessor needs of a request. */
function prepInput(req: Request): PrepRequest {
  const input: PrepRequest = {
    sessionId: req.sessionId,
    cxid: req.xid,
    type: req.type,
    request: req.record,
    authInfo: req.authInfo ?? req.cnxn?.authInfo ?? [],
    owner: req.owner ?? LOCAL_OWNER,
  };
  if (req.sessionTimeoutMs !== undefined) input.sessionTimeoutMs = req.sessionTimeoutMs;
  return input;
}

/**
 * Local requests waiting for their txn (or a forwarded sync's answer), by cxid and then session:
 * keyed by the cxid (a number), each key holding its few waiting requests of any session in
 * arrival order, so no lookup hashes a 64-bit session id (a bigint Map key is hashed in the
 * runtime, several times the cost of a number's). One (session, cxid) may wait more than once:
 * the server's own requests (container and TTL deletes) all use session 0 and cxid 0, as Java's
 * ContainerManager does; txns commit in order, so the oldest request of a key takes the first
 * txn with it.
 */
class AwaitingRequests {
  private readonly byCxid = new Map<number, Request[]>();

  add(req: Request): void {
    const waiting = this.byCxid.get(req.xid);
    if (waiting === undefined) this.byCxid.set(req.xid, [req]);
    else waiting.push(req);
  }

  /** The oldest request waiting for (session, cxid), removed; undefined if none. */
  take(sessionId: SessionId, cxid: number): Request | undefined {
    const waiting = this.byCxid.get(cxid);
    if (waiting === undefined) return undefined;
    for (let i = 0; i < waiting.length; i++) {
      const req = waiting[i]!;
      if (req.sessionId !== sessionId) continue;
      if (waiting.length === 1) this.byCxid.delete(cxid);
      else waiting.splice(i, 1);
      return req;
    }
    return undefined;
  }
}

/**
 * The client-facing server. As a standalone server it runs the whole pipeline itself; the
 * quorum servers (`LeaderZooKeeperServer`, `LearnerZooKeeperServer`) override the hooks marked
 * `protected` — how a request is submitted, how sessions are created, touched and revalidated —
 * and deliver committed txns through `commitTxn`, as ZooKeeper's class hierarchy does.
 */
export class ZooKeeperServer implements CnxnHost, ZooKeeperServerBean {
  readonly config: ZooKeeperServerConfig;
  readonly zkDb: ZKDatabase;
  readonly sessionTracker: SessionTracker;
  protected prep: PrepRequestProcessor;
  /** The highest zxid handed out by prep. */
  protected hzxid: Zxid;
  /** Local requests in arrival order: the FinalRequestProcessor answers strictly in this order. */
  private readonly queue: Request[] = [];
  /** Local writes waiting for their txn to be applied, by (session, cxid). */
  private readonly awaiting = new AwaitingRequests();
  /** Standalone sync stage: logged txns not yet covered by a completed fsync. */
  private readonly unsynced: TxnEntry[] = [];
  private flushing = false;
  private readonly cnxns = new Set<ServerCnxn>();
  private readonly cnxnBySession = new Map<SessionId, ServerCnxn>();
  private nextWatcherId = 0;
  protected running = true;
  protected serving = false;
  /** When it last started serving (its clock, ms): what `mntr`'s zk_uptime counts from. */
  private servingSinceMs: number | undefined;
  private containers: ContainerManager | undefined;
  /** The DIGEST-MD5 nonces' stream (forked on first use, so runs without SASL draw nothing). */
  private saslRng: RandomStream | undefined;
  /** What reads check ACLs and whoAmI with. */
  private readonly readOptions: ReadOptions;

  constructor(
    readonly ctx: NodeContext,
    config: Partial<ZooKeeperServerConfig> = {},
    /** Quorum servers share the peer's database; a standalone server loads its own. */
    zkDb?: ZKDatabase,
  ) {
    this.config = { ...DEFAULT_SERVER_CONFIG, ...config };
    let replayed = 0;
    if (zkDb === undefined) {
      this.zkDb = newZKDatabase(ctx, this.config);
      replayed = this.zkDb.loadDataBase();
    } else {
      this.zkDb = zkDb;
    }
    this.hzxid = this.zkDb.lastProcessedZxid;
    this.sessionTracker = this.createSessionTracker();
    this.prep = this.newPrep();
    this.readOptions = { skipACL: this.config.skipACL, ...(this.config.authProviders !== undefined ? { authProviders: this.config.authProviders } : {}) };
    if (zkDb === undefined) {
      ctx.annotate("zk.server.start", { serverId: this.config.serverId, lastZxid: zxidHex(this.hzxid), replayed, sessions: this.zkDb.dataTree.sessionsWithTimeouts.size });
      this.startServing();
    }
  }

  /** The standalone tracker: expiry on; an unknown session is UNKNOWNSESSION. */
  protected createSessionTracker(): SessionTracker {
    const tracker = new SessionTrackerImpl(this.trackerHost(), this.config.tickTimeMs, this.config.serverId);
    for (const [id, timeoutMs] of this.zkDb.dataTree.sessionsWithTimeouts) tracker.addSession(id, timeoutMs);
    tracker.start(); // recovered sessions each get a fresh, full timeout from now
    return tracker;
  }

  protected trackerHost() {
    return {
      nowMs: () => this.currentTimeMillis(),
      setTimerMs: (d: number, fn: () => void, label: string) => this.ctx.setTimerMs(d, fn, label),
      cancelTimer: (t: { cancelled: boolean } | undefined) => this.ctx.cancelTimer(t as TimerHandle | undefined),
      expire: (s: SessionImpl) => this.expire(s),
    };
  }

  private newPrep(): PrepRequestProcessor {
    const { extendedTypesEnabled, enforceQuota, skipACL, superDigest, authProviders, canary, reconfigEnabled } = this.config;
    return new PrepRequestProcessor(this.zkDb.dataTree, this.sessionTracker, {
      extendedTypesEnabled,
      enforceQuota,
      ...(canary === "quota-root-uncounted" ? { quotaRootUncounted: true } : {}),
      skipACL,
      ...(superDigest !== undefined ? { superDigest } : {}),
      ...(authProviders !== undefined ? { authProviders } : {}),
      ...(canary !== undefined && PREP_CANARIES.has(canary) ? { canary: canary as PrepCanary } : {}),
      ...(reconfigEnabled === true ? { reconfigEnabled: true } : {}),
    });
  }

  /** Starts accepting clients (a quorum server does so once it is synchronised). */
  startServing(): void {
    if (this.serving || !this.running) return;
    this.serving = true;
    this.servingSinceMs = this.currentTimeMillis();
    this.ctx.listen(this.config.clientPort, (ep) => this.accept(ep));
    if (this.config.containerCheckIntervalMs > 0 && this.expiresSessions()) {
      this.containers = new ContainerManager(this.ctx, this.config.containerCheckIntervalMs, () => this.zkDb.dataTree, (path) => this.submitInternalDelete(path), () => this.currentTimeMillis());
    }
  }

  /** Stops serving: no new clients, every client connection closed, timers stopped. */
  shutdown(): void {
    if (!this.running) return;
    this.running = false;
    this.serving = false;
    this.ctx.unlisten(this.config.clientPort);
    this.sessionTracker.shutdown();
    this.containers?.shutdown();
    for (const c of [...this.cnxns]) c.close();
  }

  /** Accepting and serving clients now. */
  get isServing(): boolean {
    return this.serving && this.running;
  }

  /** Only the standalone server and the leader expire sessions and collect containers. */
  protected expiresSessions(): boolean {
    return true;
  }

  /** The server's wall clock as Java would read it (ms since the Unix epoch). */
  currentTimeMillis(): number {
    return WALL_CLOCK_BASE_MS + this.ctx.nowMs();
  }

  get minSessionTimeoutMs(): number {
    return this.config.minSessionTimeoutMs ?? 2 * this.config.tickTimeMs;
  }
  get maxSessionTimeoutMs(): number {
    return this.config.maxSessionTimeoutMs ?? 20 * this.config.tickTimeMs;
  }

  get lastProcessedZxid(): Zxid {
    return this.zkDb.lastProcessedZxid;
  }

  get connectionCount(): number {
    return this.cnxns.size;
  }

  /** The open client connections. */
  get connections(): ReadonlySet<ServerCnxn> {
    return this.cnxns;
  }

  // ---- ZooKeeperServerBean: what the four-letter words read (zoo-keeper-server-bean.ts) ----

  nodeCount(): number {
    return this.zkDb.dataTree.nodeCount();
  }

  approximateDataSize(): number {
    return this.zkDb.dataTree.approximateDataSize();
  }

  sessionDump(): SessionDump {
    return this.sessionTracker.dump();
  }

  ephemerals(): [SessionId, string[]][] {
    return this.zkDb.dataTree.ephemeralsBySession();
  }

  dataWatches(): WatchesReport {
    return this.zkDb.dataTree.watches.dataWatches;
  }

  watchCount(): number {
    const pairs = (w: WatchesReport) => [...w.watchedPaths().values()].reduce((n, watchers) => n + watchers.size, 0);
    return pairs(this.zkDb.dataTree.watches.dataWatches) + pairs(this.zkDb.dataTree.watches.childWatches);
  }

  uptimeMs(): number {
    return this.servingSinceMs === undefined ? 0 : this.currentTimeMillis() - this.servingSinceMs;
  }

  connection(id: number): ServerCnxn | undefined {
    for (const c of this.cnxns) if (c.endpoint.id === id) return c;
    return undefined;
  }

  // ---- connections -----------------------------------------------------------------------

  private accept(ep: Endpoint) {
    if (!this.running) ep.close();
    const cnxn = new ServerCnxn(++this.nextWatcherId, ep, ep.remoteAddress ?? this.ctx.addressOf(ep.remoteId), this, this.config.maxBufferBytes, this.config.canary === "watch-not-fired");
    cnxn.establishedMs = this.currentTimeMillis();
    this.cnxns.add(cnxn);
    return {
      onMessage: (_e: Endpoint, m: unknown) => cnxn.onMessage(m),
      onClose: () => cnxn.onClose(),
    };
  }

  /** CnxnHost: a frame arrived. */
  receive(cnxn: ServerCnxn, bytes: Uint8Array): void {
    if (!this.running) return;
    try {
      if (cnxn.state === "awaitingConnect") this.processConnectRequest(cnxn, bytes);
      else if (cnxn.state === "connected") this.processPacket(cnxn, bytes);
      else if (cnxn.state === "connecting") cnxn.heldFrames.push(bytes); // read once the session is established
    } catch (err) {
      if (!isJuteError(err)) throw err;
      this.ctx.annotate("zk.cnxn.malformed", { client: cnxn.endpoint.remoteId, reason: err.message });
      cnxn.close();
    }
  }

  /**
   * CnxnHost: a four-letter word on a simulated connection. Inside the simulation only `isro` is
   * answered (what a read-only client's search for a read/write server asks, and which read-only
   * mode whitelists); `zksim serve` answers every word at its gateway.
   */
  fourLetterWord(word: string): string {
    if (word === "isro") return this.isReadOnly ? "ro" : "rw";
    return "";
  }

  /** CnxnHost: a watch of a closed connection fired: its close should have dropped it. */
  closedCnxnWatchFired(cnxn: ServerCnxn, event: WatcherEvent): void {
    this.ctx.annotate("zk.watch.closed-cnxn", { client: cnxn.endpoint.remoteId, session: hexId(cnxn.sessionId), type: eventTypeName(event.type), path: event.path });
  }

  /** CnxnHost: the connection is gone. Its watches go; its session stays until expiry. */
  closed(cnxn: ServerCnxn): void {
    this.cnxns.delete(cnxn);
    if (this.cnxnBySession.get(cnxn.sessionId) === cnxn) this.cnxnBySession.delete(cnxn.sessionId);
    this.zkDb.dataTree.removeCnxn(cnxn);
  }

  private processConnectRequest(cnxn: ServerCnxn, bytes: Uint8Array): void {
    const { request, readOnlyFieldPresent } = decodeConnectRequest(bytes);
    cnxn.readOnlyField = readOnlyFieldPresent;
    if (!this.acceptsConnect(cnxn, request.readOnly)) return;
    if (request.lastZxidSeen > this.zkDb.lastProcessedZxid) {
      // The client has seen a newer state than ours: refuse, it will try another server.
      this.ctx.annotate("zk.cnxn.refused", { client: cnxn.endpoint.remoteId, reason: "client zxid ahead", clientZxid: zxidHex(request.lastZxidSeen), serverZxid: zxidHex(this.zkDb.lastProcessedZxid) });
      cnxn.close();
      return;
    }
    const timeoutMs = Math.min(Math.max(request.timeOut, this.minSessionTimeoutMs), this.maxSessionTimeoutMs);
    cnxn.sessionTimeoutMs = timeoutMs;
    if (request.sessionId === 0n) this.createSession(cnxn, timeoutMs);
    else if (!this.validateSession(cnxn, request.sessionId)) return;
    else {
      // Java closes the session's connection on this server before it looks at the password
      // (ZooKeeperServer.processConnectRequest: closeSession(…, CLIENT_RECONNECT)): even a wrong
      // password disconnects the session's holder here.
      const previous = this.cnxnBySession.get(request.sessionId);
      if (previous !== undefined && previous !== cnxn) previous.close();
      this.reopenSession(cnxn, request, timeoutMs);
    }
  }

  /** `reopenSession`: the password, then revalidation (locally, or by the leader from a learner). */
  private reopenSession(cnxn: ServerCnxn, request: { sessionId: SessionId; passwd: Uint8Array }, timeoutMs: number): void {
    if (!isValidSessionPassword(request.sessionId, request.passwd)) this.finishReopen(cnxn, request.sessionId, false);
    else {
      cnxn.state = "connecting";
      this.revalidateSession(cnxn, request.sessionId, timeoutMs);
    }
  }

  /**
   * Hook before a ConnectRequest is looked at further (the read-only server refuses clients
   * that did not ask for read-only); false: refused, the connection is closed.
   */
  protected acceptsConnect(_cnxn: ServerCnxn, _clientReadOnly: boolean): boolean {
    return true;
  }

  /** `validateSession`: may a session re-attach here at all? false: refused, the connection is closed. */
  protected validateSession(_cnxn: ServerCnxn, _sessionId: SessionId): boolean {
    return true;
  }

  /** The ConnectResponse's `readOnly` flag: true only on a ReadOnlyZooKeeperServer. */
  protected get isReadOnly(): boolean {
    return false;
  }

  private createSession(cnxn: ServerCnxn, timeoutMs: number): void {
    const sessionId = this.sessionTracker.createSession(timeoutMs, LOCAL_OWNER);
    cnxn.sessionId = sessionId;
    cnxn.state = "connecting";
    this.cnxnBySession.set(sessionId, cnxn);
    this.submitRequest(this.newRequest(cnxn, sessionId, 0, OpCode.createSession, { kind: "Empty" }, timeoutMs));
  }

  /** Is this re-attaching session still valid? Standalone/leader: touch it here. */
  protected revalidateSession(cnxn: ServerCnxn, sessionId: SessionId, timeoutMs: number): void {
    this.finishReopen(cnxn, sessionId, this.sessionTracker.touchSession(sessionId, timeoutMs));
  }

  protected finishReopen(cnxn: ServerCnxn, sessionId: SessionId, valid: boolean): void {
    if (!cnxn.isOpen) return;
    if (!valid) {
      this.ctx.annotate("zk.session.invalid", { client: cnxn.endpoint.remoteId, session: hexId(sessionId) });
      cnxn.sendInvalidSession(this.isReadOnly);
      cnxn.close();
      return;
    }
    const previous = this.cnxnBySession.get(sessionId);
    if (previous !== undefined && previous !== cnxn) previous.close();
    this.sessionTracker.setOwner(sessionId, LOCAL_OWNER);
    cnxn.sessionId = sessionId;
    this.cnxnBySession.set(sessionId, cnxn);
    this.finishSessionInit(cnxn);
  }

  private finishSessionInit(cnxn: ServerCnxn): void {
    cnxn.state = "connected";
    cnxn.sendConnectResponse({
      kind: "ConnectResponse",
      protocolVersion: 0,
      timeOut: cnxn.sessionTimeoutMs,
      sessionId: cnxn.sessionId,
      passwd: sessionPassword(cnxn.sessionId),
      readOnly: this.isReadOnly,
    });
    this.ctx.annotate("zk.session.established", { client: cnxn.endpoint.remoteId, session: hexId(cnxn.sessionId), timeoutMs: cnxn.sessionTimeoutMs });
    // `enableRecv`: the frames a client sent behind its ConnectRequest are read now.
    for (const bytes of cnxn.heldFrames.splice(0)) this.receive(cnxn, bytes);
  }

  private processPacket(cnxn: ServerCnxn, bytes: Uint8Array): void {
    const r = new JuteReader(bytes);
    const header = decodeRequestHeader(r);
    let record: RequestRecord;
    try {
      record = decodeRequestRecord(r, header);
    } catch (err) {
      if (!isJuteError(err)) throw err;
      if (err.reason === "unsupported") {
        // UnimplementedRequestProcessor: the request never got a zxid (−1); then the connection closes.
        cnxn.sendReply(header.xid, -1n, Code.UNIMPLEMENTED, null, replyLabel(header.type, header.xid));
        cnxn.close();
        return;
      }
      // A body that does not parse inside a well-formed frame: 3.8 reads it only in the request
      // processors, whose failure to deserialise answers MARSHALLINGERROR (a write's as an error
      // txn); the connection stays. Auth and SASL packets are read here and close it.
      // (zk.cnxn.malformed is for the connections it closes.)
      if (header.type === OpCode.auth || header.type === OpCode.sasl) throw err;
      record = { kind: "Empty" };
    }
    if (header.type === OpCode.auth) return this.processAuth(cnxn, header.xid, record);
    if (header.type === OpCode.sasl) return this.processSasl(cnxn, header.xid, record);
    // Every packet touches its session; a closing or unknown session's packet is dropped.
    if (!this.touch(cnxn)) return;
    this.submitRequest(this.newRequest(cnxn, cnxn.sessionId, header.xid, header.type, record));
  }

  /** Records client activity for the session (standalone/leader: the tracker itself). */
  protected touch(cnxn: ServerCnxn): boolean {
    return this.sessionTracker.touchSession(cnxn.sessionId, cnxn.sessionTimeoutMs);
  }

  private processAuth(cnxn: ServerCnxn, xid: number, record: RequestRecord): void {
    if (record.kind !== "AuthPacket") return cnxn.close();
    const r = authenticate(record.scheme, record.auth, cnxn.remoteAddress, this.config.superDigest);
    if (r.kind === "error") {
      cnxn.sendReply(xid, 0n, Code.AUTHFAILED, null, "auth");
      cnxn.close();
      return;
    }
    this.addAuthIds(cnxn, r.ids);
    cnxn.sendReply(xid, 0n, Code.OK, null, "auth");
  }

  /**
   * `processSasl`: one DIGEST-MD5 token, answered at once (no session touch, no pipeline). A
   * completed exchange adds `sasl:<user>` (and `super` for a `zookeeper.superUser`); a failed one
   * answers AUTHFAILED and closes. With no JAAS `Server` section there is no SASL server and
   * 3.8 answers OK with a null token (its NullPointerException is caught and logged).
   */
  private processSasl(cnxn: ServerCnxn, xid: number, record: RequestRecord): void {
    if (record.kind !== "GetSASLRequest") return cnxn.close();
    const users = this.config.saslUsers;
    if (users === undefined) return cnxn.sendSaslReply(xid, Code.OK, { kind: "SetSASLResponse", token: null });
    cnxn.saslServer ??= new DigestMd5Server(users, () => this.saslNonceBytes());
    const step = cnxn.saslServer.evaluateResponse(record.token);
    if (step.kind === "failed") {
      this.ctx.annotate("zk.sasl.failed", { client: cnxn.endpoint.remoteId, reason: step.reason });
      cnxn.sendSaslReply(xid, Code.AUTHFAILED, { kind: "SetSASLResponse", token: null });
      cnxn.close();
      return;
    }
    if (step.kind === "complete") {
      const ids: Id[] = [{ scheme: "sasl", id: step.authorizationId }];
      if (this.config.saslSuperUsers?.includes(step.authorizationId) === true) ids.push({ scheme: "super", id: "" });
      this.addAuthIds(cnxn, ids);
    }
    cnxn.sendSaslReply(xid, Code.OK, { kind: "SetSASLResponse", token: step.token });
  }

  /** The DIGEST-MD5 nonce's 30 random bytes, from this server's own rng stream. */
  private saslNonceBytes(): Uint8Array {
    this.saslRng ??= this.ctx.rng.fork("sasl-nonce");
    const rng = this.saslRng;
    return Uint8Array.from({ length: NONCE_BYTES }, () => rng.int(0, 255));
  }

  private addAuthIds(cnxn: ServerCnxn, ids: readonly Id[]): void {
    for (const id of ids) addInJavaConcurrentSetOrder(cnxn.authInfo, id, (x) => javaIdHashCode(x.scheme, x.id), (a, b) => a.scheme === b.scheme && a.id === b.id);
  }

  protected newRequest(cnxn: ServerCnxn | null, sessionId: SessionId, xid: number, type: number, record: RequestRecord, sessionTimeoutMs?: number): Request {
    const req: Request = { cnxn, sessionId, xid, type, record, entry: null, err: Code.OK, reply: null, isWrite: WRITE_OPS.has(type), createdMs: this.ctx.nowMs() };
    // Assigned, not spread: a conditional spread is slow on this per-request path.
    if (sessionTimeoutMs !== undefined) req.sessionTimeoutMs = sessionTimeoutMs;
    return req;
  }

  // ---- the pipeline ----------------------------------------------------------------------

  /**
   * Standalone: PrepRequestProcessor then SyncRequestProcessor. Writes get a txn that is logged
   * (group commit); everything queues, in order, for the final stage.
   */
  protected submitRequest(req: Request): void {
    const entry = this.prepRequest(req);
    if (entry !== null) {
      const written = this.zkDb.append(entry);
      if (!written.ok) return this.fatal(`txn log write failed: ${written.err}`);
      this.unsynced.push(entry);
      if (this.config.canary === "ack-before-fsync") {
        // Broken on purpose: applied and acknowledged before the fsync completes.
        this.unsynced.pop();
        this.enqueue(req);
        this.commitTxn(entry);
        this.flush();
        return;
      }
      this.flush();
    }
    this.enqueue(req);
  }

  /** PrepRequestProcessor: a txn for writes (consuming a zxid), the session check for reads. */
  protected prepRequest(req: Request): TxnEntry | null {
    const zxid = this.nextZxid();
    const r = this.prep.prep(prepInput(req), zxid, this.currentTimeMillis());
    if (r.kind !== "txn") {
      req.err = r.err;
      req.isWrite = false;
      return null;
    }
    this.hzxid = zxid;
    req.entry = r.entry;
    req.isWrite = true;
    if (this.config.canary === "no-ephemeral-cleanup" && r.entry.txn.kind === "CloseSessionTxn") {
      // Broken on purpose: the closeSession never reaches the tree, so ephemerals outlive it.
      r.entry.header.type = OpCode.error;
      r.entry.txn = { kind: "ErrorTxn", err: Code.OK };
    }
    return r.entry;
  }

  /** The zxid prep will use next (the leader puts its epoch in the high bits). */
  protected nextZxid(): Zxid {
    return this.hzxid + 1n;
  }

  /** SyncRequestProcessor: one fsync at a time covers everything appended before it. */
  private flush(): void {
    if (this.flushing || this.unsynced.length === 0) return;
    this.flushing = true;
    const batch = this.unsynced.length;
    this.zkDb.commit(() => {
      this.flushing = false;
      for (const entry of this.unsynced.splice(0, batch)) this.commitTxn(entry);
      this.flush();
    });
  }

  /** Queues a local request for the final stage (writes wait there for their txn). */
  protected enqueue(req: Request): void {
    if (req.isWrite) this.awaiting.add(req);
    this.queue.push(req);
    this.drain();
  }

  /**
   * A committed txn, in zxid order: apply it to the tree (firing watches), settle its session
   * side effects, and hand the reply to the local request that asked for it, if any.
   */
  commitTxn(entry: TxnEntry): void {
    const result = this.zkDb.processTxn(entry);
    this.prep.applied(entry.header.zxid);
    this.ctx.annotate("zk.apply", { zxid: zxidHex(entry.header.zxid), op: opName(entry.header.type), session: hexId(entry.header.clientId), cxid: entry.header.cxid, err: result.err === 0 ? undefined : codeName(result.err) });
    this.afterApply(entry);
    const req = this.awaiting.take(entry.header.clientId, entry.header.cxid);
    if (entry.header.type === OpCode.createSession) {
      this.sessionTracker.addSession(entry.header.clientId, (entry.txn as { timeOut: number }).timeOut, null);
    } else if (entry.header.type === OpCode.closeSession) {
      this.sessionTracker.removeSession(entry.header.clientId);
      // FinalRequestProcessor: a closeSession with no connection (an expiry, or one applied
      // from the leader) closes the session's connection here, if this server holds it.
      if (req === undefined || req.cnxn === null) this.closeSessionCnxn(entry.header.clientId);
    }
    if (req !== undefined) {
      req.reply = req.type === OpCode.createSession || req.type === OpCode.closeSession ? { err: Code.OK, response: null, disposition: "reply" } : replyForTxn(req.type, result, entry.txn);
    }
    this.drain();
  }

  /** A forwarded sync came back from the leader: answer it, in order, with its path. */
  protected syncCompleted(sessionId: SessionId, cxid: number): void {
    const req = this.awaiting.take(sessionId, cxid);
    if (req === undefined) return;
    const path = req.record.kind === "SyncRequest" ? req.record.path : "/";
    req.reply = { err: Code.OK, response: { kind: "SyncResponse", path }, disposition: "reply" };
    this.drain();
  }

  /** Hook for the quorum servers (committed-log bookkeeping, ZAB annotations). */
  protected afterApply(_entry: TxnEntry): void {}

  /** FinalRequestProcessor: answer local requests strictly in arrival order. */
  protected drain(): void {
    while (this.queue.length > 0 && this.running) {
      const head = this.queue[0]!;
      if (head.isWrite && head.reply === null) return; // its txn has not been applied yet
      if (head.after !== undefined && this.zkDb.lastProcessedZxid < head.after) return; // its session's earlier write has not
      this.queue.shift();
      if (head.isWrite) this.finishWrite(head);
      else this.serveRead(head);
    }
  }

  private finishWrite(req: Request): void {
    const cnxn = req.cnxn;
    if (req.type === OpCode.createSession) {
      if (cnxn !== null && cnxn.state === "connecting") {
        this.updateStats(cnxn, req, false);
        this.finishSessionInit(cnxn);
      }
      return;
    }
    if (req.type === OpCode.closeSession) {
      if (cnxn !== null) {
        this.updateStats(cnxn, req, false);
        cnxn.sendReply(req.xid, this.zkDb.lastProcessedZxid, Code.OK, null, "reply:closeSession");
        cnxn.close();
      }
      return;
    }
    this.respond(req, req.reply!);
  }

  protected closeSessionCnxn(sessionId: SessionId): void {
    this.cnxnBySession.get(sessionId)?.close();
  }

  protected serveRead(req: Request): void {
    const cnxn = req.cnxn;
    if (cnxn === null || !cnxn.isOpen) return;
    if (req.err !== Code.OK) return this.respond(req, { err: req.err, response: null, disposition: req.err === Code.SESSIONMOVED ? "closeWithoutReply" : "reply" });
    const reply = processRead(this.zkDb.dataTree, req.type, req.record, cnxn, cnxn.authInfo, req.sessionId, this.readOptions);
    this.respond(req, reply);
  }

  private respond(req: Request, reply: FinalReply): void {
    const cnxn = req.cnxn;
    if (cnxn === null || !cnxn.isOpen || cnxn.sessionId !== req.sessionId) return;
    if (reply.err === Code.SESSIONMOVED) {
      // The session now belongs to another server: 3.8 closes this (stale) connection without
      // an answer, so the client sees a connection loss, never −118 (docs/zookeeper.md §3.4).
      this.ctx.annotate("zk.session.moved", { client: cnxn.endpoint.remoteId, session: hexId(req.sessionId), xid: req.xid, op: opName(req.type) });
    }
    // Java throws before its op switch (lastOp stays "NA") on a failed txn or session check.
    this.updateStats(cnxn, req, req.isWrite ? reply.err !== Code.OK && req.type !== OpCode.multi : req.err !== Code.OK);
    if (reply.disposition !== "closeWithoutReply") {
      const xid = req.type === OpCode.ping ? Xid.ping : req.xid;
      cnxn.sendReply(xid, this.zkDb.lastProcessedZxid, reply.err, reply.response, replyLabel(req.type, xid));
    }
    if (reply.disposition !== "reply") cnxn.close();
  }

  /** FinalRequestProcessor.updateStats: the connection's last op, zxid and latency. */
  private updateStats(cnxn: ServerCnxn, req: Request, failedBeforeSwitch: boolean): void {
    cnxn.updateStatsForResponse(req.xid, this.zkDb.lastProcessedZxid, lastOpName(req.type, failedBeforeSwitch), req.createdMs, this.ctx.nowMs());
  }

  // ---- sessions --------------------------------------------------------------------------

  /** The tracker expired a session: submit its closeSession (no connection attached). */
  protected expire(s: SessionImpl): void {
    this.ctx.annotate("zk.session.expire", { session: hexId(s.sessionId), timeoutMs: s.timeoutMs });
    this.submitRequest(this.newRequest(null, s.sessionId, 0, OpCode.closeSession, { kind: "Empty" }));
  }

  /** ContainerManager: an internal deleteContainer request (session 0, no ACL check). */
  private submitInternalDelete(path: string): void {
    // For the history checkers: which node (by its czxid) was found due, by which clock reading.
    const node = this.zkDb.dataTree.getNode(path);
    this.ctx.annotate("zk.container.reap", { path, czxid: node === undefined ? undefined : zxidHex(node.stat.czxid), nowMs: this.currentTimeMillis() });
    this.submitRequest(this.newRequest(null, 0n, 0, OpCode.deleteContainer, { kind: "DeleteContainerRequest", path }));
  }

  /** An unrecoverable server error (e.g. the txn log cannot be written): stop serving. */
  protected fatal(reason: string): void {
    if (!this.running) return;
    this.ctx.annotate("zk.server.fatal", { reason });
    this.shutdown();
  }
}

export function hexId(id: SessionId): string {
  return zxidHex(id < 0n ? BigInt.asUintN(64, id) : id);
}
