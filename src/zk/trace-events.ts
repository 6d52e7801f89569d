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

/** `client.invoke`: an operation submitted. Its arguments follow, flat (data, version, mode, ops…). */
export interface ClientInvokeFields {
  client: string;
  /** The session at invocation ("0x0" before the first handshake). */
  session: string;
  /** Unique per client node within a simulation: (client, opId) names one operation. */
  opId: number;
  op: string;
  /** The server the client is connected to, when it is. */
  server?: string;
  /** The handle's chroot, when it has one: `path` (and the paths of `ops`) are relative to it. */
  chroot?: string;
  path?: string;
  [arg: string]: unknown;
}

/** `client.complete`: how an operation ended. */
export interface ClientCompleteFields {
  client: string;
  session: string;
  opId: number;
  outcome?: "ok" | "fail" | "unknown";
  /** The error code's name (absent on ok). */
  err?: string;
  /** The reply header's zxid. */
  zxid?: string;
  /** false: a client-produced error for a request that never left the client. */
  sent?: boolean;
  /** The request's xid, for an "unknown" op that was sent. */
  xid?: number;
  /** Answered without the server (an empty multi). */
  local?: boolean;
  /** What the call returned, as plain JSON (see check/history). */
  result?: Record<string, unknown>;
  [more: string]: unknown;
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
    "client.disconnect": { client: string; session: string; reason: string; conn: number | undefined };
    "client.watch": { client: string; session: string; type: string; path: string | null; watchers: number };
    "client.watcher-error": { client: string; type: string; state: string; error: string };
  }
}
