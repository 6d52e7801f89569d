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
import type { NodeContext, TimerHandle } from "../../sim/node-context.js";
import type { Endpoint } from "../../sim/network.js";
import { JuteReader, isJuteError } from "../proto/jute.js";
import { decodeConnectRequest, decodeRequestHeader, decodeRequestRecord } from "../proto/codec.js";
import { Code, codeName } from "../proto/error-code.js";
import { OpCode, Xid, opName } from "../proto/op-code.js";
import { JUTE_MAX_BUFFER_BYTES, zxidHex, type SessionId, type Zxid } from "../proto/records.js";
import type { ConnectRequest, RequestRecord } from "../proto/packets.js";
import type { TxnEntry } from "../proto/txn.js";
import { sessionPassword, isValidSessionPassword } from "../proto/session-id.js";
import { CLIENT_PORT } from "../proto/wire.js";
import { authenticate } from "./acl.js";
import { PrepRequestProcessor } from "./prep-request-processor.js";
import { processRead, replyForTxn, type FinalReply } from "./final-request-processor.js";
import { SessionTrackerImpl, type SessionImpl } from "./session-tracker.js";
import { ServerCnxn, replyLabel, type CnxnHost } from "./server-cnxn.js";
import { ZKDatabase } from "./zk-database.js";
import { ContainerManager } from "./container-manager.js";

export interface ZooKeeperServerConfig {
  /** `myid` (standalone uses 1); the top byte of session ids. */
  serverId: number;
  tickTimeMs: number;
  /** Defaults: 2 × tickTime and 20 × tickTime. */
  minSessionTimeoutMs?: number;
  maxSessionTimeoutMs?: number;
  /** Snapshot after this many logged txns. */
  snapCount: number;
  clientPort: number;
  extendedTypesEnabled: boolean;
  enforceQuota: boolean;
  skipACL: boolean;
  superDigest?: string;
  maxBufferBytes: number;
  /** `znode.container.checkIntervalMs` (0 disables the ContainerManager). */
  containerCheckIntervalMs: number;
  /** A deliberately broken server, to prove checkers catch it (never in normal runs). */
  canary?: ServerCanary;
}

export type ServerCanary = "ack-before-fsync" | "no-ephemeral-cleanup" | "watch-not-fired";

export const DEFAULT_SERVER_CONFIG: ZooKeeperServerConfig = {
  serverId: 1,
  tickTimeMs: 2000,
  snapCount: 10_000,
  clientPort: CLIENT_PORT,
  extendedTypesEnabled: false,
  enforceQuota: false,
  skipACL: false,
  maxBufferBytes: JUTE_MAX_BUFFER_BYTES,
  containerCheckIntervalMs: 60_000,
};

/** Java's `System.currentTimeMillis()` at virtual time 0: 2026-01-01T00:00:00Z. */
export const WALL_CLOCK_BASE_MS = 1_767_225_600_000;

/** The owner token of sessions attached to this server itself (`ServerCnxn.me`). */
const LOCAL_OWNER = Object.freeze({ owner: "local" });

/** A request travelling through the pipeline. */
interface Request {
  cnxn: ServerCnxn | null;
  sessionId: SessionId;
  xid: number;
  type: number;
  record: RequestRecord;
  /** The txn, for writes; null for reads, pings, sync… */
  entry: TxnEntry | null;
  /** Prep's result code for requests without a txn (the session check). */
  err: number;
  /** Sync stage: the log position after appending this txn (0 for non-txn requests). */
  logSeq: number;
}

export class ZooKeeperServer implements CnxnHost {
  readonly config: ZooKeeperServerConfig;
  readonly zkDb: ZKDatabase;
  readonly sessionTracker: SessionTrackerImpl;
  private prep: PrepRequestProcessor;
  /** The highest zxid handed out by prep. */
  private hzxid: Zxid;
  private readonly pipeline: Request[] = [];
  private appended = 0;
  private synced = 0;
  private flushing = false;
  private readonly cnxns = new Set<ServerCnxn>();
  private readonly cnxnBySession = new Map<SessionId, ServerCnxn>();
  private nextWatcherId = 0;
  private running = true;
  private readonly containers: ContainerManager | undefined;

  constructor(
    readonly ctx: NodeContext,
    config: Partial<ZooKeeperServerConfig> = {},
  ) {
    this.config = { ...DEFAULT_SERVER_CONFIG, ...config };
    this.zkDb = new ZKDatabase(ctx.disk, { extendedTypesEnabled: this.config.extendedTypesEnabled }, this.config.snapCount);
    const replayed = this.zkDb.loadDataBase();
    this.hzxid = this.zkDb.lastProcessedZxid;
    this.sessionTracker = new SessionTrackerImpl(
      {
        nowMs: () => this.currentTimeMillis(),
        setTimerMs: (d, fn, label) => ctx.setTimerMs(d, fn, label),
        cancelTimer: (t) => ctx.cancelTimer(t as TimerHandle | undefined),
        expire: (s) => this.expire(s),
      },
      this.config.tickTimeMs,
      this.config.serverId,
    );
    // Recovered sessions each get a fresh, full timeout from now.
    for (const [id, timeoutMs] of this.zkDb.dataTree.sessionsWithTimeouts) this.sessionTracker.addSession(id, timeoutMs);
    this.prep = this.newPrep();
    ctx.listen(this.config.clientPort, (ep) => this.accept(ep));
    ctx.annotate("zk.server.start", { serverId: this.config.serverId, lastZxid: zxidHex(this.hzxid), replayed, sessions: this.zkDb.dataTree.sessionsWithTimeouts.size });
    this.containers =
      this.config.containerCheckIntervalMs > 0
        ? new ContainerManager(ctx, this.config.containerCheckIntervalMs, () => this.zkDb.dataTree, (path) => this.submitInternalDelete(path), () => this.currentTimeMillis())
        : undefined;
  }

  private newPrep(): PrepRequestProcessor {
    const { extendedTypesEnabled, enforceQuota, skipACL, superDigest } = this.config;
    return new PrepRequestProcessor(this.zkDb.dataTree, this.sessionTracker, {
      extendedTypesEnabled,
      enforceQuota,
      skipACL,
      ...(superDigest !== undefined ? { superDigest } : {}),
    });
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

  // ---- connections -----------------------------------------------------------------------

  private accept(ep: Endpoint) {
    if (!this.running) ep.close();
    const cnxn = new ServerCnxn(++this.nextWatcherId, ep, this.ctx.addressOf(ep.remoteId), this, this.config.maxBufferBytes, this.config.canary === "watch-not-fired");
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
      // "connecting": a request before the session is established is dropped, as in 3.8.
    } catch (err) {
      if (!isJuteError(err)) throw err;
      this.ctx.annotate("zk.cnxn.malformed", { client: cnxn.endpoint.remoteId, reason: err.message });
      cnxn.close();
    }
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
    if (request.lastZxidSeen > this.zkDb.lastProcessedZxid) {
      // The client has seen a newer state than ours: refuse, it will try another server.
      this.ctx.annotate("zk.cnxn.refused", { client: cnxn.endpoint.remoteId, reason: "client zxid ahead", clientZxid: zxidHex(request.lastZxidSeen), serverZxid: zxidHex(this.zkDb.lastProcessedZxid) });
      cnxn.close();
      return;
    }
    const timeoutMs = Math.min(Math.max(request.timeOut, this.minSessionTimeoutMs), this.maxSessionTimeoutMs);
    cnxn.sessionTimeoutMs = timeoutMs;
    if (request.sessionId === 0n) this.createSession(cnxn, timeoutMs);
    else this.reopenSession(cnxn, request, timeoutMs);
  }

  private createSession(cnxn: ServerCnxn, timeoutMs: number): void {
    const sessionId = this.sessionTracker.createSession(timeoutMs, LOCAL_OWNER);
    cnxn.sessionId = sessionId;
    cnxn.state = "connecting";
    this.cnxnBySession.set(sessionId, cnxn);
    this.submit({ cnxn, sessionId, xid: 0, type: OpCode.createSession, record: { kind: "Empty" }, entry: null, err: 0, logSeq: 0 }, timeoutMs);
  }

  private reopenSession(cnxn: ServerCnxn, request: ConnectRequest, timeoutMs: number): void {
    const { sessionId } = request;
    const valid = isValidSessionPassword(sessionId, request.passwd) && this.sessionTracker.touchSession(sessionId, timeoutMs);
    if (!valid) {
      this.ctx.annotate("zk.session.invalid", { client: cnxn.endpoint.remoteId, session: hexId(sessionId) });
      cnxn.sendInvalidSession();
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
      readOnly: false,
    });
    this.ctx.annotate("zk.session.established", { client: cnxn.endpoint.remoteId, session: hexId(cnxn.sessionId), timeoutMs: cnxn.sessionTimeoutMs });
  }

  private processPacket(cnxn: ServerCnxn, bytes: Uint8Array): void {
    const r = new JuteReader(bytes);
    const header = decodeRequestHeader(r);
    let record: RequestRecord;
    try {
      record = decodeRequestRecord(r, header);
    } catch (err) {
      if (!isJuteError(err) || err.reason !== "unsupported") throw err;
      cnxn.sendReply(header.xid, this.zkDb.lastProcessedZxid, Code.UNIMPLEMENTED, null, replyLabel(header.type, header.xid));
      cnxn.close();
      return;
    }
    if (header.type === OpCode.auth) return this.processAuth(cnxn, header.xid, record);
    // Every packet touches its session; a closing or unknown session's packet is dropped.
    if (!this.sessionTracker.touchSession(cnxn.sessionId, cnxn.sessionTimeoutMs)) return;
    this.submit({ cnxn, sessionId: cnxn.sessionId, xid: header.xid, type: header.type, record, entry: null, err: 0, logSeq: 0 });
  }

  private processAuth(cnxn: ServerCnxn, xid: number, record: RequestRecord): void {
    if (record.kind !== "AuthPacket") return cnxn.close();
    const r = authenticate(record.scheme, record.auth, cnxn.remoteAddress, this.config.superDigest);
    if (r.kind === "error") {
      cnxn.sendReply(xid, 0n, Code.AUTHFAILED, null, "auth");
      cnxn.close();
      return;
    }
    for (const id of r.ids) if (!cnxn.authInfo.some((a) => a.scheme === id.scheme && a.id === id.id)) cnxn.authInfo.push(id);
    cnxn.sendReply(xid, 0n, Code.OK, null, "auth");
  }

  // ---- the pipeline ----------------------------------------------------------------------

  /** PrepRequestProcessor: assign a zxid to writes, log them, queue everything in order. */
  private submit(req: Request, sessionTimeoutMs?: number): void {
    const zxid = this.hzxid + 1n;
    const r = this.prep.prep(
      {
        sessionId: req.sessionId,
        cxid: req.xid,
        type: req.type,
        request: req.record,
        authInfo: req.cnxn?.authInfo ?? [],
        owner: LOCAL_OWNER,
        ...(sessionTimeoutMs !== undefined ? { sessionTimeoutMs } : {}),
      },
      zxid,
      this.currentTimeMillis(),
    );
    if (r.kind === "txn") {
      this.hzxid = zxid;
      req.entry = r.entry;
      if (this.config.canary === "no-ephemeral-cleanup" && r.entry.txn.kind === "CloseSessionTxn") {
        // Broken on purpose: the closeSession never reaches the tree, so ephemerals outlive it.
        r.entry.header.type = OpCode.error;
        r.entry.txn = { kind: "ErrorTxn", err: Code.OK };
      }
      const written = this.zkDb.append(r.entry);
      if (!written.ok) return this.fatal(`txn log write failed: ${written.err}`);
      req.logSeq = ++this.appended;
      this.flush();
    } else {
      req.err = r.err;
    }
    this.pipeline.push(req);
    this.drain();
  }

  /** SyncRequestProcessor: one fsync at a time covers everything appended before it. */
  private flush(): void {
    if (this.flushing || this.synced === this.appended) return;
    this.flushing = true;
    const mark = this.appended;
    this.zkDb.commit(() => {
      this.flushing = false;
      this.synced = mark;
      this.drain();
      this.flush();
    });
  }

  /** FinalRequestProcessor: apply and reply, strictly in pipeline order. */
  private drain(): void {
    while (this.pipeline.length > 0 && this.running) {
      const head = this.pipeline[0]!;
      const ackEarly = this.config.canary === "ack-before-fsync";
      if (head.entry !== null && head.logSeq > this.synced && !ackEarly) return;
      // A read waits behind any earlier write still being synced (it is behind it in the queue).
      this.pipeline.shift();
      if (head.entry !== null) this.applyTxn(head, head.entry);
      else this.serveRead(head);
    }
  }

  private applyTxn(req: Request, entry: TxnEntry): void {
    const result = this.zkDb.processTxn(entry);
    this.prep.applied(entry.header.zxid);
    this.ctx.annotate("zk.apply", { zxid: zxidHex(entry.header.zxid), op: opName(entry.header.type), session: hexId(entry.header.clientId), err: result.err === 0 ? undefined : codeName(result.err) });
    switch (req.type) {
      case OpCode.createSession:
        if (req.cnxn !== null && req.cnxn.state === "connecting") this.finishSessionInit(req.cnxn);
        break;
      case OpCode.closeSession:
        this.sessionTracker.removeSession(req.sessionId);
        this.closeSessionCnxn(req);
        break;
      default:
        this.respond(req, replyForTxn(req.type, result));
    }
    this.zkDb.maybeSnapshot();
  }

  private closeSessionCnxn(req: Request): void {
    const cnxn = req.cnxn ?? this.cnxnBySession.get(req.sessionId) ?? null;
    if (cnxn === null) return;
    if (req.cnxn !== null) cnxn.sendReply(req.xid, this.zkDb.lastProcessedZxid, Code.OK, null, "reply:closeSession");
    cnxn.close();
  }

  private serveRead(req: Request): void {
    const cnxn = req.cnxn;
    if (cnxn === null || !cnxn.isOpen) return;
    if (req.err !== Code.OK) return this.respond(req, { err: req.err, response: null, disposition: req.err === Code.SESSIONMOVED ? "closeWithoutReply" : "reply" });
    const reply = processRead(this.zkDb.dataTree, req.type, req.record, cnxn, cnxn.authInfo, req.sessionId, { skipACL: this.config.skipACL });
    this.respond(req, reply);
  }

  private respond(req: Request, reply: FinalReply): void {
    const cnxn = req.cnxn;
    if (cnxn === null || !cnxn.isOpen || cnxn.sessionId !== req.sessionId) return;
    if (reply.disposition !== "closeWithoutReply") {
      const xid = req.type === OpCode.ping ? Xid.ping : req.xid;
      cnxn.sendReply(xid, this.zkDb.lastProcessedZxid, reply.err, reply.response, replyLabel(req.type, xid));
    }
    if (reply.disposition !== "reply") cnxn.close();
  }

  // ---- sessions --------------------------------------------------------------------------

  /** The tracker expired a session: submit its closeSession (no connection attached). */
  private expire(s: SessionImpl): void {
    this.ctx.annotate("zk.session.expire", { session: hexId(s.sessionId), timeoutMs: s.timeoutMs });
    this.submit({ cnxn: null, sessionId: s.sessionId, xid: 0, type: OpCode.closeSession, record: { kind: "Empty" }, entry: null, err: 0, logSeq: 0 });
  }

  /** ContainerManager: an internal deleteContainer request (session 0, no ACL check). */
  private submitInternalDelete(path: string): void {
    this.submit({ cnxn: null, sessionId: 0n, xid: 0, type: OpCode.deleteContainer, record: { kind: "DeleteContainerRequest", path }, entry: null, err: 0, logSeq: 0 });
  }

  /** An unrecoverable server error (e.g. the txn log cannot be written): stop serving. */
  private fatal(reason: string): void {
    if (!this.running) return;
    this.running = false;
    this.ctx.annotate("zk.server.fatal", { reason });
    this.sessionTracker.shutdown();
    this.containers?.shutdown();
    for (const c of [...this.cnxns]) c.close();
  }
}

export function hexId(id: SessionId): string {
  return `0x${BigInt.asUintN(64, id).toString(16)}`;
}
