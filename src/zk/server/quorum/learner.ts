/**
 * `Learner` — `Follower` and `Observer` (reference §7.3–7.6) — with the
 * `LearnerZooKeeperServer` that serves clients once synchronised.
 *
 * Discovery: FOLLOWERINFO(acceptedEpoch) → LEADERINFO(e): a higher epoch is persisted as
 * acceptedEpoch before ACKEPOCH; an equal one answers ACKEPOCH with epoch −1; a lower one
 * aborts. Synchronisation: DIFF (keep the state), TRUNC (cut the log back and reload), SNAP
 * (replace the tree); PROPOSALs before NEWLEADER are buffered and COMMITs remembered. At
 * NEWLEADER, in the fixed (3.9.3) order: snapshot if SNAP/TRUNC; log and apply the buffered
 * proposals already committed and fsync; persist currentEpoch; then ACK. UPTODATE starts
 * serving, then the rest of the buffer is logged and the remembered commits applied.
 * Broadcast: PROPOSAL → log → fsync → ACK (followers); COMMIT must match the head of the
 * pending queue; observers apply INFORMs. A leader silent for syncLimit ticks ends the role.
 *
 * The 3.8.0 behaviours behind the bug zoo are switched on by `peer.hasBug(...)`.
 */
import type { Endpoint } from "../../../sim/network.js";
import type { TimerHandle } from "../../../sim/node-context.js";
import { DataTree } from "../data-tree.js";
import { zxidEpoch, zxidHex, type SessionId, type Zxid } from "../../proto/records.js";
import { initialSessionId } from "../../proto/session-id.js";
import { OpCode } from "../../proto/op-code.js";
import { Code } from "../../proto/error-code.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { SessionTracker } from "../session-tracker.js";
import { ZooKeeperServer, type Request } from "../zoo-keeper-server.js";
import type { ServerCnxn } from "../server-cnxn.js";
import type { QuorumPeer } from "./quorum-peer.js";
import { isDigestSample, txnDigest } from "./leader.js";
import { epochZxid, type QuorumPacket } from "./quorum-packet.js";

type Stage = "CONNECTING" | "DISCOVERY" | "SYNC" | "NEWLEADER" | "BROADCAST";
type SyncMode = "DIFF" | "TRUNC" | "SNAP";

const CONNECT_ATTEMPTS = 5;

export class Learner {
  private ep: Endpoint | undefined;
  private stage: Stage = "CONNECTING";
  private attempts = 0;
  private newEpoch = -1;
  private syncMode: SyncMode = "DIFF";
  /** Proposals received before being logged (sync phase), in zxid order. */
  private notLogged: TxnEntry[] = [];
  /** Zxids committed by the leader that are not applied yet (sync phase). */
  private readonly committed = new Set<Zxid>();
  /** Broadcast: logged proposals waiting for their COMMIT (`pendingTxns`). */
  private readonly pendingTxns: TxnEntry[] = [];
  private lastHeardMs = 0;
  private readonly timers: TimerHandle[] = [];
  private running = true;
  readonly zks: LearnerZooKeeperServer;

  constructor(
    readonly peer: QuorumPeer,
    readonly leaderSid: number,
    readonly isObserver: boolean,
  ) {
    this.zks = new LearnerZooKeeperServer(peer.ctx, { ...peer.config.server, tickTimeMs: peer.config.tickTimeMs, serverId: peer.myid }, peer.zkDb, this);
    peer.phase("DISCOVERY", peer.acceptedEpoch);
    this.connect();
    this.watchdog();
  }

  get myid(): number {
    return this.peer.myid;
  }

  private flag(flag: string, detail: string): void {
    this.peer.ctx.annotate("zab.flag", { sid: this.myid, flag, detail });
  }

  send(p: QuorumPacket): void {
    if (this.ep?.open) this.ep.send(p);
  }

  private connect(): void {
    if (!this.running) return;
    this.attempts++;
    const tickMs = this.peer.config.tickTimeMs;
    this.ep = this.peer.ctx.connect(this.peer.hostOf(this.leaderSid), this.peer.config.quorumPort, {
      onOpen: () => {
        this.stage = "DISCOVERY";
        this.lastHeardMs = this.peer.ctx.nowMs();
        this.send({ kind: this.isObserver ? "OBSERVERINFO" : "FOLLOWERINFO", sid: this.myid, zxid: epochZxid(this.peer.acceptedEpoch) });
      },
      onMessage: (_e, m) => this.running && this.onPacket(m as QuorumPacket),
      onClose: (_e, reason) => {
        if (!this.running) return;
        if (this.stage === "CONNECTING" && this.attempts < CONNECT_ATTEMPTS) {
          this.timers.push(this.peer.ctx.setTimerMs(1000, () => this.connect(), "learner-connect-retry"));
          return;
        }
        this.peer.roleEnded(`connection to leader ${this.leaderSid} ${reason}`);
      },
    }, { timeoutUs: this.peer.config.initLimitTicks * tickMs * 1000 });
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

  private onPacket(p: QuorumPacket): void {
    this.lastHeardMs = this.peer.ctx.nowMs();
    switch (p.kind) {
      case "LEADERINFO":
        return this.onLeaderInfo(zxidEpoch(p.zxid));
      case "DIFF":
      case "TRUNC":
      case "SNAP":
        return this.onSyncStart(p);
      case "PROPOSAL":
        return this.onProposal(p.entry);
      case "COMMIT":
        return this.onCommit(p.zxid);
      case "INFORM":
        return this.onInform(p.entry);
      case "NEWLEADER":
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
      db.snapLog.truncateLog(p.zxid);
      db.loadDataBase();
      if (db.lastProcessedZxid > p.zxid) {
        // A snapshot newer than the truncation point: Java exits ("Not able to truncate the log").
        this.flag("proposalInconsistent", `TRUNC to ${zxidHex(p.zxid)} below a snapshot at ${zxidHex(db.lastProcessedZxid)}`);
        return this.peer.roleEnded("cannot truncate below a snapshot");
      }
      this.peer.ctx.annotate("zab.truncate", { sid: this.myid, zxid: zxidHex(p.zxid) });
    } else if (p.kind === "SNAP") {
      const tree = DataTree.deserialize(p.snapshot, { extendedTypesEnabled: db.dataTree.extendedTypesEnabled });
      tree.lastProcessedZxid = p.zxid;
      db.setTree(tree);
      this.peer.ctx.annotate("zab.snap.load", { sid: this.myid, zxid: zxidHex(p.zxid) });
    } else if (this.peer.hasBug("ZK-2355")) {
      db.dataTree.lastProcessedZxid = p.zxid; // 3.4: the DIFF zxid was taken as processed before applying the diff
    }
  }

  private onProposal(entry: TxnEntry): void {
    if (this.stage === "SYNC" || this.stage === "NEWLEADER") {
      const last = this.notLogged[this.notLogged.length - 1];
      if (last !== undefined && entry.header.zxid <= last.header.zxid) this.flag("proposalInconsistent", `PROPOSAL ${zxidHex(entry.header.zxid)} after ${zxidHex(last.header.zxid)}`);
      this.notLogged.push(entry);
      return;
    }
    if (this.stage !== "BROADCAST") return this.flag("stateInconsistent", `PROPOSAL in stage ${this.stage}`);
    this.logAndAck(entry);
  }

  private onCommit(zxid: Zxid): void {
    if (this.stage === "SYNC" || this.stage === "NEWLEADER") {
      if (this.syncMode !== "DIFF" && this.stage === "SYNC" && !this.peer.hasBug("ZK-4394")) {
        // SNAP/TRUNC: committed txns are applied directly while syncing.
        const head = this.notLogged[0];
        if (head === undefined || head.header.zxid !== zxid) return this.flag("commitInconsistent", `COMMIT ${zxidHex(zxid)} does not match the head of the sync buffer`);
        this.notLogged.shift();
        this.logTxn(head);
        this.deliver(head);
        return;
      }
      if (this.peer.hasBug("ZK-4394") && this.stage === "NEWLEADER" && this.notLogged.length === 0) {
        return this.flag("commitInconsistent", `COMMIT ${zxidHex(zxid)} between NEWLEADER and UPTODATE found an empty buffer (NullPointerException in 3.8.0)`);
      }
      this.committed.add(zxid);
      return;
    }
    if (this.stage !== "BROADCAST") return this.flag("stateInconsistent", `COMMIT in stage ${this.stage}`);
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

  /** NEWLEADER: (fixed order) snapshot if needed, log+apply committed buffered txns, fsync, currentEpoch, ACK. */
  private onNewLeader(zxid: Zxid): void {
    if (this.stage !== "SYNC") return this.flag("stateInconsistent", `NEWLEADER in stage ${this.stage}`);
    if (zxidEpoch(zxid) !== this.newEpoch) return this.flag("stateInconsistent", `NEWLEADER of epoch ${zxidEpoch(zxid)} while syncing for ${this.newEpoch}`);
    this.stage = "NEWLEADER";
    const db = this.peer.zkDb;
    if (this.syncMode !== "DIFF") db.snapLog.save(db.dataTree);
    const ack = () => this.send({ kind: "ACK", zxid: epochZxid(this.newEpoch) });
    if (this.peer.hasBug("ZK-4646") || this.peer.hasBug("ZK-4643") || this.peer.hasBug("ZK-4785")) {
      // 3.8.0: currentEpoch first, the buffered txns handed to the (asynchronous) sync thread, ACK at once.
      this.peer.setCurrentEpoch(this.newEpoch, () => {
        const buffered = this.notLogged;
        this.notLogged = [];
        for (const e of buffered) this.logTxn(e);
        ack();
        for (const e of buffered) if (this.committed.delete(e.header.zxid)) this.deliver(e);
        for (const e of buffered) if (!db.committedLog.includes(e)) this.pendingTxns.push(e);
        db.commit(() => undefined);
      });
      return;
    }
    const ready: TxnEntry[] = [];
    while (this.notLogged.length > 0 && this.committed.has(this.notLogged[0]!.header.zxid)) ready.push(this.notLogged.shift()!);
    for (const e of ready) {
      this.committed.delete(e.header.zxid);
      this.logTxn(e);
      this.deliver(e);
    }
    db.commit(() => {
      if (!this.running) return;
      for (const e of ready) this.peer.ctx.annotate("zab.log", { sid: this.myid, zxid: zxidHex(e.header.zxid), txn: txnDigest(e) });
      this.peer.setCurrentEpoch(this.newEpoch, () => this.running && ack());
    });
  }

  private onUpToDate(): void {
    if (this.stage !== "NEWLEADER") return this.flag("stateInconsistent", `UPTODATE in stage ${this.stage}`);
    this.stage = "BROADCAST";
    this.peer.phase("BROADCAST", this.newEpoch);
    this.peer.fle.updateElectionVote(this.newEpoch);
    this.zks.startServing();
    this.send({ kind: "ACK", zxid: epochZxid(this.newEpoch) });
    const buffered = this.notLogged;
    this.notLogged = [];
    for (const e of buffered) {
      if (this.isObserver || this.committed.has(e.header.zxid)) {
        this.committed.delete(e.header.zxid);
        this.logTxn(e);
        this.deliver(e);
      } else {
        this.logAndAck(e);
      }
    }
  }

  // ---- logging and delivery --------------------------------------------------------------

  private logTxn(entry: TxnEntry): void {
    const r = this.peer.zkDb.append(entry);
    if (!r.ok) this.peer.roleEnded(`txn log write failed: ${r.err}`);
  }

  /** SyncRequestProcessor: log, fsync (group commit), then ACK each proposal. */
  private logAndAck(entry: TxnEntry): void {
    this.logTxn(entry);
    this.pendingTxns.push(entry);
    if (this.isObserver) return;
    this.peer.zkDb.commit(() => {
      if (!this.running) return;
      this.peer.ctx.annotate("zab.log", { sid: this.myid, zxid: zxidHex(entry.header.zxid), txn: txnDigest(entry) });
      this.send({ kind: "ACK", zxid: entry.header.zxid });
    });
  }

  private deliver(entry: TxnEntry): void {
    this.zks.commitTxn(entry);
  }

  /** Forwards a client request to the leader. */
  forward(req: Request, authInfo: ServerCnxn["authInfo"]): void {
    this.send({
      kind: "REQUEST",
      sessionId: req.sessionId,
      cxid: req.xid,
      type: req.type,
      record: req.record,
      authInfo,
      ...(req.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: req.sessionTimeoutMs } : {}),
    });
  }

  shutdown(): void {
    this.running = false;
    for (const t of this.timers) this.peer.ctx.cancelTimer(t);
    this.ep?.close();
    this.zks.shutdown();
  }
}

/**
 * `LearnerSessionTracker`: a learner does not expire sessions; it records which sessions its
 * clients touched and reports them to the leader in every PING reply (the touch table).
 */
class LearnerSessionTracker implements SessionTracker {
  readonly sessionsById = new Map<SessionId, number>();
  private touchTable = new Map<SessionId, number>();
  private nextSessionId: SessionId;

  constructor(serverId: number, nowMs: number) {
    this.nextSessionId = initialSessionId(serverId, nowMs);
  }

  createSession(timeoutMs: number): SessionId {
    const id = this.nextSessionId++;
    this.sessionsById.set(id, timeoutMs);
    return id;
  }
  addSession(sessionId: SessionId, timeoutMs: number): void {
    this.sessionsById.set(sessionId, timeoutMs);
  }
  touchSession(sessionId: SessionId, timeoutMs: number): boolean {
    this.touchTable.set(sessionId, timeoutMs);
    return true;
  }
  removeSession(sessionId: SessionId): void {
    this.sessionsById.delete(sessionId);
    this.touchTable.delete(sessionId);
  }
  setOwner(): void {}
  checkSession(): number {
    return Code.OK;
  }
  checkGlobalSession(): number {
    return Code.OK;
  }
  setSessionClosing(): void {}
  shutdown(): void {}

  drainTouches(): [SessionId, number][] {
    const t = [...this.touchTable];
    this.touchTable = new Map();
    return t;
  }
}

/** The learner's client-facing server: reads are local, writes and syncs go to the leader. */
export class LearnerZooKeeperServer extends ZooKeeperServer {
  constructor(
    ctx: ConstructorParameters<typeof ZooKeeperServer>[0],
    config: ConstructorParameters<typeof ZooKeeperServer>[1],
    zkDb: ConstructorParameters<typeof ZooKeeperServer>[2],
    private readonly learner: Learner,
  ) {
    super(ctx, config, zkDb);
  }

  private readonly revalidating = new Map<SessionId, { cnxn: ServerCnxn; timeoutMs: number }[]>();

  protected override createSessionTracker(): SessionTracker {
    return new LearnerSessionTracker(this.config.serverId, this.currentTimeMillis());
  }

  protected override expiresSessions(): boolean {
    return false;
  }

  protected override submitRequest(req: Request): void {
    if (req.type === OpCode.sync) {
      req.isWrite = true; // answered when the leader's SYNC arrives
      this.enqueue(req);
      this.learner.forward(req, req.cnxn?.authInfo ?? []);
      return;
    }
    if (req.isWrite) {
      this.enqueue(req);
      this.learner.forward(req, req.cnxn?.authInfo ?? []);
      return;
    }
    this.enqueue(req);
  }

  /** Re-attach through a learner: the leader decides (REVALIDATE). */
  protected override revalidateSession(cnxn: ServerCnxn, sessionId: SessionId, timeoutMs: number): void {
    const waiting = this.revalidating.get(sessionId) ?? [];
    waiting.push({ cnxn, timeoutMs });
    this.revalidating.set(sessionId, waiting);
    this.learner.send({ kind: "REVALIDATE", sessionId, timeoutMs });
  }

  revalidated(sessionId: SessionId, valid: boolean): void {
    const waiting = this.revalidating.get(sessionId) ?? [];
    this.revalidating.delete(sessionId);
    for (const w of waiting) {
      if (valid) this.sessionTracker.addSession(sessionId, w.timeoutMs);
      this.finishReopen(w.cnxn, sessionId, valid);
    }
  }

  syncAnswered(sessionId: SessionId, cxid: number): void {
    this.syncCompleted(sessionId, cxid);
  }

  drainTouches(): [SessionId, number][] {
    return (this.sessionTracker as LearnerSessionTracker).drainTouches();
  }

  protected override afterApply(entry: TxnEntry): void {
    this.ctx.annotate("zab.deliver", { sid: this.config.serverId, zxid: zxidHex(entry.header.zxid), txn: txnDigest(entry) });
    if (isDigestSample(entry.header.zxid)) this.ctx.annotate("zab.digest", { sid: this.config.serverId, zxid: zxidHex(entry.header.zxid), digest: this.zkDb.dataTree.digest() });
  }
}
