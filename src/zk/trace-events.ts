/**
 * The trace annotations of the ZooKeeper layer (servers, quorum, client library), as types: the
 * contract between `zk/` and whatever reads its trace (the checkers parse these fields
 * themselves; nothing here runs). Added to the kernel's schema by module augmentation, see
 * `sim/trace-schema.ts`; `docs/trace.md` says who emits and who reads each kind.
 *
 * Conventions: zxids and session ids are hex text ("0x100000003"), never numbers (a zxid does not
 * fit a double); `sid` is the ZooKeeper server id of the server that annotates; `client` is the
 * client's node id; txn contents travel as a short digest (`txn`), so two txns minted with one
 * zxid stay distinguishable.
 */
import "../sim/trace-schema.js";

/** ZooKeeper's `QuorumPeer.ServerState`. */
export type ZabServerState = "LOOKING" | "FOLLOWING" | "LEADING" | "OBSERVING";
/** ZooKeeper's `QuorumPeer.ZabState`. */
export type ZabPhaseName = "ELECTION" | "DISCOVERY" | "SYNCHRONIZATION" | "BROADCAST";
export type ZabSyncMode = "DIFF" | "TRUNC" | "SNAP";

/**
 * A Stat in a client result (`zk/client/history.ts` `statJson`): ZooKeeper's Stat with zxids and
 * the owner session as hex text.
 */
export interface StatJson {
  czxid: string;
  mzxid: string;
  pzxid: string;
  ctime: number;
  mtime: number;
  version: number;
  cversion: number;
  aversion: number;
  ephemeralOwner: string;
  dataLength: number;
  numChildren: number;
}

/**
 * Node data as the history records it: short printable text as itself; binary or long data as a
 * content digest `\u0001<bytes>:<fnv32 hex>` with its length in `dataBytes`; ZooKeeper's null data
 * as null.
 */
export interface DataJson {
  data: string | null;
  dataBytes?: number;
}

/** A list of names (children, ephemerals): listed when at most 32, else only counted. */
export interface NamesJson {
  children?: string[];
  count?: number;
}

/** A sub-operation of multi / multiRead, as the history records it (`Op`, zk/client/op.ts). */
export type SubOpJson =
  | ({ op: "create"; path: string; mode: number } & DataJson & { ttl?: number; acl?: string[] })
  | { op: "delete"; path: string; version: number }
  | ({ op: "setData"; path: string } & DataJson & { version: number })
  | { op: "check"; path: string; version: number }
  | { op: "getData"; path: string }
  | { op: "getChildren"; path: string };

export type SubOpName = SubOpJson["op"];

/**
 * A sub-result of multi / multiRead: `err` "OK" for one that succeeded (with the created path,
 * the Stat; a getData's data, a getChildren's names), else its code.
 */
export interface SubResultJson extends NamesJson, Partial<DataJson> {
  err: string;
  path?: string;
  stat?: StatJson;
}

/**
 * Every client operation the history records, by the name it is recorded under (`op` of
 * `client.invoke`): its arguments (after the head, flat), the `result` of its `client.complete`
 * when it succeeded (`undefined`: none), and the `failedResult` a failure carries (`undefined`:
 * none but the code). create2 is recorded as create, getChildren2 as getChildren. The error of a
 * failed operation is its code's name (`err`, zk/proto/error-code.ts).
 */
export interface ClientOps {
  /** `acl`: `scheme:id:perms` per entry, left out when it is OPEN_ACL_UNSAFE (world:anyone, ALL). */
  create: { args: { path: string; mode: number; ttl?: number } & DataJson & { acl?: string[] }; result: { path: string; stat?: StatJson }; failedResult: undefined };
  delete: { args: { path: string; version: number }; result: undefined; failedResult: undefined };
  setData: { args: { path: string; version: number } & DataJson; result: { stat: StatJson }; failedResult: undefined };
  setACL: { args: { path: string; aversion: number; acl?: string[] }; result: { stat: StatJson }; failedResult: undefined };
  /** `stat` null: no such node (and a watch, if asked for, waits for its creation). */
  exists: { args: { path: string; watch: boolean }; result: { stat: StatJson | null }; failedResult: undefined };
  getData: { args: { path: string; watch: boolean }; result: DataJson & { stat: StatJson }; failedResult: undefined };
  /** `stat` for getChildren2 only. */
  getChildren: { args: { path: string; watch: boolean }; result: { stat?: StatJson } & NamesJson; failedResult: undefined };
  /** `acl`: `scheme:id:perms` per entry. */
  getACL: { args: { path: string }; result: { stat: StatJson; acl: string[] }; failedResult: undefined };
  sync: { args: { path: string }; result: undefined; failedResult: undefined };
  getEphemerals: { args: { path: string }; result: NamesJson; failedResult: undefined };
  getAllChildrenNumber: { args: { path: string }; result: { total: number }; failedResult: undefined };
  /** `ids`: `scheme:user` per identity. */
  whoAmI: { args: Record<never, never>; result: { ids: string[] }; failedResult: undefined };
  /** A failed multi carries every sub-result (the first non-OK one is the code). */
  multi: { args: { ops: SubOpJson[] }; result: { results: SubResultJson[] }; failedResult: { results: SubResultJson[] } };
  multiRead: { args: { ops: SubOpJson[] }; result: { results: SubResultJson[] }; failedResult: undefined };
  /** `mode`: AddWatchMode (0 PERSISTENT, 1 PERSISTENT_RECURSIVE). */
  addWatch: { args: { path: string; mode: number }; result: undefined; failedResult: undefined };
  /** `type`: WatcherType (1 Children, 2 Data, 3 Any); `local`: removed here even if the server cannot be reached. */
  removeWatches: { args: { path: string; type: number; local: boolean }; result: undefined; failedResult: undefined };
  removeAllWatches: { args: { path: string; type: number; local: boolean }; result: undefined; failedResult: undefined };
  /**
   * `ZooKeeperAdmin.reconfigure` (3.5+): incremental (joining / leaving) or whole (newMembers);
   * `fromConfig` the config version it applies to (hex zxid, or "-1"). The answer is the new
   * config (data of /zookeeper/config) and that node's stat.
   */
  reconfig: { args: { joiningServers?: string; leavingServers?: string; newMembers?: string; fromConfig: string }; result: DataJson & { stat: StatJson }; failedResult: undefined };
  /** The session's end: its ephemerals vanish. */
  closeSession: { args: Record<never, never>; result: undefined; failedResult: undefined };
}

export type ClientOpName = keyof ClientOps & string;
export type ClientOpArgs<O extends ClientOpName = ClientOpName> = ClientOps[O]["args"];
/** What an operation of O returned (what `client.complete` carries as `result`, when anything). */
export type ClientOpResult<O extends ClientOpName = ClientOpName> = Exclude<ClientOps[O]["result"] | ClientOps[O]["failedResult"], undefined>;

/** The first fields of `client.invoke`, before the operation's arguments. */
export interface ClientInvokeHead<O extends ClientOpName = ClientOpName> {
  client: string;
  /** The session at invocation ("0x0" before the first handshake). */
  session: string;
  /** Unique per client node within a simulation: (client, opId) names one operation. */
  opId: number;
  op: O;
  /** The server the client is connected to, when it is. */
  server?: string;
  /** The handle's chroot, when it has one: `path` (and the paths of `ops`) are relative to it. */
  chroot?: string;
}

/** `client.invoke`: an operation submitted: the head, then its arguments flat (`ClientOps`). */
export type ClientInvokeFields = { [O in ClientOpName]: ClientInvokeHead<O> & ClientOpArgs<O> }[ClientOpName];

/** `client.complete`: how an operation ended. */
export interface ClientCompleteFields {
  client: string;
  session: string;
  opId: number;
  outcome?: "ok" | "fail" | "unknown";
  /** The error code's name (`CodeName`; `CODE(n)` for a code ZooKeeper does not name), absent on ok. */
  err?: string;
  /** The reply header's zxid. */
  zxid?: string;
  /** false: a client-produced error for a request that never left the client. */
  sent?: boolean;
  /** The request's xid, for an "unknown" op that was sent. */
  xid?: number;
  /** Answered without the server (an empty multi). */
  local?: boolean;
  /** What the call returned (`ClientOps[op]`: the op is its invocation's). */
  result?: ClientOpResult;
}

/** `client.state`: the handle's state changed (`cause` says why, when known). */
export interface ClientStateFields {
  client: string;
  state: string;
  session: string;
  conn: number | undefined;
  cause?: string;
}

declare module "../sim/trace-schema.js" {
  interface TraceAnnotations {
    // ---- ZAB (quorum servers) ----
    "zab.state": { sid: number; state: ZabServerState };
    "zab.phase": { sid: number; phase: ZabPhaseName; epoch: number };
    "zab.role.ended": { sid: number; state: ZabServerState; reason: string };
    "zab.epoch.accepted": { sid: number; epoch: number };
    "zab.epoch.current": { sid: number; epoch: number };
    /** The tree was (re)loaded from disk: at a start, or when a role ends and the tree is reloaded. */
    "zab.recovered": { sid: number; lastZxid: string; currentEpoch: number; acceptedEpoch: number };
    "zab.leader.established": { sid: number; epoch: number; lastZxid: string };
    /** A leader rejected a learner (e.g. one more recent than itself). */
    "zab.learner.rejected": { sid: number; learner: number; reason: string };
    /**
     * A synchronisation chosen. From the leader: `learner` is the learner's sid; a learner-side
     * report would name the `leader` instead (checkers accept either).
     */
    "zab.sync": { sid: number; learner?: number; leader?: number; mode: ZabSyncMode; peerLastZxid: string; zxid: string; txnLog?: true };
    "zab.truncate": { sid: number; zxid: string };
    "zab.snap.load": { sid: number; zxid: string };
    "zab.propose": { sid: number; epoch: number; zxid: string; txn: string };
    /** A txn durably appended to this server's log (after its fsync). */
    "zab.log": { sid: number; zxid: string; txn: string };
    /**
     * `from` ≠ `sid`: the leader counts a learner's ACK. `from` = `sid`: the server's own ACK as it
     * goes out — a follower's sync processor sending it, or the leader counting its self-ACK.
     */
    "zab.ack": { sid: number; from: number; zxid: string };
    "zab.commit": { sid: number; zxid: string };
    /** A txn applied to this server's tree. */
    "zab.deliver": { sid: number; zxid: string; txn: string };
    /** The tree's digest right after applying `zxid` (sampled). */
    "zab.digest": { sid: number; zxid: string; digest: string };
    /** A reconfig's config became this server's last seen one (proposed, logged, or recovered from the log). `version` is a zxid. */
    "zab.config.next": { sid: number; version: string; config: string };
    /** A config became this server's committed one (`processReconfig`, or at a start with reconfigEnabled); the leader names the designated leader. */
    "zab.config.activated": { sid: number; version: string; config: string; designatedLeader?: number };
    /** A TLA+ "should not be triggered" assertion point fired. */
    "zab.flag": { sid: number; flag: string; detail: string };
    // ---- FastLeaderElection ----
    "fle.vote": { sid: number; proposedLeader: number; zxid: string; electionEpoch: number; state: ZabServerState };
    "fle.elected": { sid: number; leader: number; zxid: string; state: ZabServerState; electionEpoch: number };
    "fle.notification-timeout": { sid: number; nextTimeoutMs: number };
    // ---- QuorumCnxManager ----
    "qcm.invalid-sid": { sid: number; peer: number };
    "qcm.own-sid": { sid: number };
    // ---- ZooKeeperServer ----
    "zk.server.start": { serverId: number; lastZxid: string; replayed: number; sessions: number };
    "zk.server.fatal": { reason: string };
    "zk.apply": { zxid: string; op: string; session: string; cxid: number; err: string | undefined };
    "zk.cnxn.malformed": { client: string; reason: string };
    "zk.sasl.failed": { client: string; reason: string };
    /** The zxids only when the client was ahead; a read-only server's refusals name a session or nothing. */
    /** A watch of a closed connection fired: the server kept it past the close (never in a correct run). */
    "zk.watch.closed-cnxn": { client: string; session: string; type: string; path: string };
    "zk.cnxn.refused": { client: string; reason: string; clientZxid?: string; serverZxid?: string; session?: string };
    /** A LOOKING peer started / shut down its ReadOnlyZooKeeperServer (read-only mode only). */
    "zk.readonly.start": { sid: number; lastZxid: string };
    "zk.readonly.stop": { sid: number };
    "zk.session.established": { client: string; session: string; timeoutMs: number };
    "zk.session.invalid": { client: string; session: string };
    "zk.session.moved": { client: string; session: string; xid: number; op: string };
    "zk.session.expire": { session: string; timeoutMs: number };
    /**
     * The ContainerManager found a container or TTL node due and submits its deleteContainer:
     * the node (its path and czxid) and the server's wall clock (ms) it judged a TTL by.
     */
    "zk.container.reap": { path: string; czxid: string | undefined; nowMs: number };
    "zk.snapshot.start": { zxid: string };
    "zk.snapshot.done": { zxid: string; nodes: number | undefined; err: string | undefined };
    "zk.snapshot.skipped": { reason: string };
    // ---- client library ----
    "client.invoke": ClientInvokeFields;
    "client.complete": ClientCompleteFields;
    "client.state": ClientStateFields;
    /**
     * `addAuthInfo`: credentials added to the handle (sent now and after every reconnect). `auth`
     * is the payload as text (a digest `\u0001<bytes>:<hash>` when binary), like `data`.
     */
    "client.auth": { client: string; session: string; scheme: string; auth: string };
    /** `readOnly`: present (true) only for a handle made with canBeReadOnly, whose ConnectRequests ask for read-only. */
    "client.connect": { client: string; server: string; session: string; conn: number; readOnly?: true };
    /** A read-only handle's search for a read/write server (`pingRwServer`): what `isro` got from `server`. */
    "client.rw-probe": { client: string; server: string; result: string };
    /** The end of a connection's SASL exchange (a handle with a JAAS login): "authenticated", or "failed" and why. */
    "client.sasl": { client: string; session: string; result: "authenticated" | "failed"; reason?: string };
    "client.disconnect": { client: string; session: string; reason: string; conn: number | undefined };
    /**
     * An event the client handed to its watchers. `state`: only on the events a removal of watches
     * makes (ChildWatchRemoved, DataWatchRemoved, PersistentWatchRemoved): the KeeperState it
     * carries (SyncConnected, or Disconnected for a local removal whose server was not reached).
     */
    "client.watch": { client: string; session: string; type: string; path: string | null; watchers: number; state?: string };
    "client.watcher-error": { client: string; type: string; state: string; error: string };
  }
}
