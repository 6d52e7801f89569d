/**
 * `ReadOnlyZooKeeperServer`: what a quorum member partitioned from the majority serves when
 * read-only mode is on (3.8's `readonlymode.enabled`; docs/zookeeper.md §3.7). The QuorumPeer
 * starts it after a grace period of LOOKING and shuts it down the moment an election decides.
 *
 * As 3.8 (ReadOnlyZooKeeperServer, ReadOnlyRequestProcessor):
 * - only clients whose ConnectRequest says `readOnly` are accepted; any other is closed before
 *   anything is answered (DisconnectReason NOT_READ_ONLY_CLIENT);
 * - a session the tree knows as global may not re-attach here (closed: RENEW_GLOBAL_SESSION_IN_RO_MODE);
 * - reads are answered from the local tree (the peer's ZKDatabase, frozen: no txn is applied
 *   while LOOKING); sync and every state-changing op are answered NOTREADONLY (−119) at once,
 *   with the tree's last zxid, and go no further;
 * - with `localSessionsEnabled`, sessions are local (3.8's LocalSessionTracker: ids from
 *   `initializeNextSessionId(myid)`, expired by this server alone, no txn, nothing persisted),
 *   created and closed without a zxid;
 * - the ConnectResponse's `readOnly` flag is true; `isro` answers "ro", `srvr` says
 *   "Mode: read-only";
 * - no ContainerManager runs (only a leader's or a standalone server's does).
 *
 * Sessions, as 3.8's LearnerSessionTracker under `localSessionsEnabled` (docs/zookeeper.md §3.7):
 * - true (3.8's own read-only tests set it): new sessions are local, as above;
 * - false (3.8's default): nothing is tracked; a createSession is refused NOTREADONLY, the bare
 *   ReplyHeader going out where the ConnectResponse should (no client can parse it: read-only
 *   mode gives no new session), and a session id this server does not know as global re-attaches
 *   untracked and unexpired (every touch succeeds).
 * Leaders and followers keep global sessions either way (local sessions there are not modelled).
 *
 * Invariants: no request reaches the txn pipeline (nothing here has a zxid of its own); every
 * session this server holds is one it created; once shut down it never answers again.
 */
import { Code } from "../../proto/error-code.js";
import { OpCode } from "../../proto/op-code.js";
import type { SessionId } from "../../proto/records.js";
import { SessionTrackerImpl, type SessionTracker } from "../session-tracker.js";
import { LearnerSessionTracker } from "./learner-session-tracker.js";
import { ZooKeeperServer, hexId, type Request } from "../zoo-keeper-server.js";
import type { ServerCnxn } from "../server-cnxn.js";

/** `ReadOnlyRequestProcessor`'s list: answered NOTREADONLY, never passed on. */
export const NOT_READ_ONLY_OPS: ReadonlySet<number> = new Set([
  OpCode.sync, OpCode.create, OpCode.create2, OpCode.createTTL, OpCode.createContainer, OpCode.delete, OpCode.deleteContainer,
  OpCode.setData, OpCode.reconfig, OpCode.setACL, OpCode.multi, OpCode.check,
]);

/** Trace label of a NOTREADONLY answer (a checker tells it from an acknowledged write by it). */
export const NOT_READ_ONLY_LABEL = "notReadOnly";

/** The client-facing server of a LOOKING peer in read-only mode. */
export class ReadOnlyZooKeeperServer extends ZooKeeperServer {
  /** The tree's global sessions when this server was made: those may not re-attach here. */
  private get globalSessions(): ReadonlyMap<SessionId, number> {
    return this.zkDb.dataTree.sessionsWithTimeouts;
  }

  /**
   * `LearnerSessionTracker`: with local sessions, its `LocalSessionTracker` (empty at start,
   * expires what it creates); without, one that tracks nothing and hands out ids.
   */
  protected override createSessionTracker(): SessionTracker {
    // The canary hands local sessions to a tracker that never expires them.
    if (this.config.canary === "read-only-sessions-never-expire") return new LearnerSessionTracker(this.config.serverId, this.currentTimeMillis());
    if (this.config.localSessionsEnabled !== true) return new LearnerSessionTracker(this.config.serverId, this.currentTimeMillis());
    return new SessionTrackerImpl(this.trackerHost(), this.config.tickTimeMs, this.config.serverId, Code.SESSIONEXPIRED);
  }

  /** `UpgradeableSessionTracker.isLocalSession`. */
  private isLocalSession(sessionId: SessionId): boolean {
    return this.config.localSessionsEnabled === true && this.sessionTracker.sessionsById.has(sessionId);
  }

  protected override get isReadOnly(): boolean {
    return true;
  }

  /** No ContainerManager here; the local tracker still expires its sessions (started below). */
  protected override expiresSessions(): boolean {
    return false;
  }

  override startServing(): void {
    if (this.isServing || !this.running) return;
    super.startServing();
    this.sessionTracker.start();
  }

  protected override acceptsConnect(cnxn: ServerCnxn, clientReadOnly: boolean): boolean {
    if (clientReadOnly) return true;
    if (this.config.canary === "read-only-serves-any-client") return true; // broken on purpose
    this.ctx.annotate("zk.cnxn.refused", { client: cnxn.endpoint.remoteId, reason: "not a read-only client" });
    cnxn.close();
    return false;
  }

  protected override validateSession(cnxn: ServerCnxn, sessionId: SessionId): boolean {
    if (!this.globalSessions.has(sessionId)) return true;
    this.ctx.annotate("zk.cnxn.refused", { client: cnxn.endpoint.remoteId, reason: "global session in read-only mode", session: hexId(sessionId) });
    cnxn.close();
    return false;
  }

  /**
   * `ReadOnlyRequestProcessor` in front of prep: state changes are refused; the local session's
   * createSession/closeSession need no txn; reads take the standalone path (prep's session
   * check, then the final stage in arrival order).
   */
  protected override submitRequest(req: Request): void {
    if (NOT_READ_ONLY_OPS.has(req.type) && this.config.canary !== "read-only-accepts-writes") return this.refuse(req);
    if (req.type === OpCode.createSession || req.type === OpCode.closeSession) {
      // setLocalSessionFlag, then the processor: a session that is not local is refused here.
      if (this.isLocalSession(req.sessionId)) return this.localSessionRequest(req);
      return this.refuse(req);
    }
    if (NOT_READ_ONLY_OPS.has(req.type)) return this.applyLocally(req); // canary: a write applied without a quorum
    super.submitRequest(req);
  }

  private refuse(req: Request): void {
    const cnxn = req.cnxn;
    if (cnxn === null || !cnxn.isOpen) return;
    cnxn.sendReply(req.xid, this.zkDb.lastProcessedZxid, Code.NOTREADONLY, null, NOT_READ_ONLY_LABEL);
  }

  /** A local session's create or close: no txn (prep and FinalRequestProcessor's session events). */
  private localSessionRequest(req: Request): void {
    if (req.type === OpCode.closeSession) {
      this.sessionTracker.removeSession(req.sessionId);
      // An expiry has no connection: close the session's, if this server holds it.
      if (req.cnxn === null) this.closeSessionCnxn(req.sessionId);
    }
    req.isWrite = true;
    req.reply = { err: Code.OK, response: null, disposition: "reply" };
    this.enqueue(req);
  }

  /** Canary `read-only-accepts-writes`: the write is prepped and applied here, acknowledged without a quorum. */
  private applyLocally(req: Request): void {
    const entry = this.prepRequest(req);
    this.enqueue(req);
    if (entry !== null) this.commitTxn(entry);
  }
}
