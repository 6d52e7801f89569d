/**
 * `LeaderZooKeeperServer`: the leader's client-facing server (docs/zookeeper.md §7.5). Prep
 * assigns zxids of the new epoch and every write is proposed to the quorum; requests forwarded
 * by learners are prepped with that learner as the session's owner.
 */
import { Code } from "../../proto/error-code.js";
import { OpCode } from "../../proto/op-code.js";
import type { SessionId, Zxid } from "../../proto/records.js";
import type { TxnEntry } from "../../proto/txn.js";
import { SessionTable } from "../session-table.js";
import { SessionTrackerImpl, type SessionTracker } from "../session-tracker.js";
import { ZooKeeperServer, type Request } from "../zoo-keeper-server.js";
import type { Leader } from "./leader.js";
import type { LearnerHandler } from "./learner-handler.js";
import type { QuorumPacket } from "./quorum-packet.js";
import { annotateDelivery } from "./zab-trace.js";

/** The leader's client-facing server: prep assigns zxids of the new epoch; writes are proposed. */
export class LeaderZooKeeperServer extends ZooKeeperServer {
  constructor(
    ctx: ConstructorParameters<typeof ZooKeeperServer>[0],
    config: ConstructorParameters<typeof ZooKeeperServer>[1],
    zkDb: ConstructorParameters<typeof ZooKeeperServer>[2],
    private readonly leader: Leader,
  ) {
    super(ctx, config, zkDb);
    if (leader.peer.hasBug("ZK-1208")) this.prep.reinjectedBugs.add("ZK-1208");
    const peer = leader.peer;
    this.prep.reconfigHost = {
      quorumVerifier: () => peer.qv,
      lastSeenQuorumVerifier: () => peer.lastSeenQuorumVerifier,
      isQuorumSynced: (qv) => leader.isQuorumSynced(qv),
      standaloneEnabled: peer.config.standaloneEnabled ?? true,
      addressing: peer.addressing,
    };
  }

  /** The leader's tracker: unknown global sessions are SESSIONEXPIRED; every session gets a fresh timeout. */
  protected override createSessionTracker(): SessionTracker {
    const tracker = new SessionTrackerImpl(this.trackerHost(), this.config.tickTimeMs, this.config.serverId, Code.SESSIONEXPIRED);
    const stale = this.config.canary === "stale-session-deadlines" ? lastTxnTimes(this.zkDb.committedLog) : undefined;
    for (const [id, timeoutMs] of this.zkDb.dataTree.sessionsWithTimeouts) {
      const lastMs = stale?.get(id);
      if (lastMs === undefined) tracker.addSession(id, timeoutMs);
      else tracker.addSessionTouchedAt(id, timeoutMs, lastMs);
    }
    return tracker;
  }

  /**
   * Established (a quorum ACKed NEWLEADER): zxids continue from (epoch, 0), sessions start
   * expiring — each with a fresh timeout from now — and clients are served. Before this the
   * tracker must not expire anything: its closeSession would be proposed in the old epoch.
   */
  startLeading(base: Zxid): void {
    this.hzxid = base;
    // The canary keeps the deadlines it restored instead of a fresh timeout for every session.
    this.sessionTracker.start(this.config.canary !== "stale-session-deadlines");
    this.startServing();
  }

  /**
   * Per session, the zxid of its latest learner-forwarded txn not yet applied here. The Java
   * leader's CommitProcessor queues every request, forwarded ones too, per session: a session's
   * read or sync that reaches the leader directly (after a reconnect, say) waits behind the
   * write it sent through a learner before — the order a client's look-up after CONNECTIONLOSS
   * relies on.
   */
  private readonly forwardedPending = new SessionTable<Zxid>();

  protected override submitRequest(req: Request): void {
    const entry = this.prepRequest(req);
    if (entry !== null) this.leader.propose(entry);
    else {
      const after = this.forwardedPending.get(req.sessionId);
      if (after !== undefined) req.after = after;
    }
    this.enqueue(req);
  }

  /** A learner forwarded a client request: prep it (owner = that learner) and propose. */
  submitForwarded(h: LearnerHandler, p: Extract<QuorumPacket, { kind: "REQUEST" }>): void {
    if (!this.serving) return;
    if (p.type === OpCode.sync) return this.leader.queueSync(h.sid, p.sessionId, p.cxid);
    const req = this.newRequest(null, p.sessionId, p.cxid, p.type, p.record, p.sessionTimeoutMs);
    req.owner = h;
    req.authInfo = p.authInfo;
    if (p.type === OpCode.createSession) this.sessionTracker.addSession(p.sessionId, p.sessionTimeoutMs ?? 0, h);
    const entry = this.prepRequest(req);
    if (entry !== null) {
      this.forwardedPending.set(p.sessionId, entry.header.zxid);
      this.leader.propose(entry);
    }
  }

  /** REVALIDATE from a learner: touch the session and make that learner its owner. */
  revalidateFor(h: LearnerHandler, sessionId: SessionId, timeoutMs: number): boolean {
    const valid = this.sessionTracker.touchSession(sessionId, timeoutMs);
    if (valid) this.sessionTracker.setOwner(sessionId, h);
    return valid;
  }

  protected override afterApply(entry: TxnEntry): void {
    annotateDelivery(this, entry);
    if (this.forwardedPending.get(entry.header.clientId) === entry.header.zxid) this.forwardedPending.delete(entry.header.clientId);
  }
}

/** A canary's "old deadlines": per session, the leader time (ms) of its latest txn in the committed log. */
function lastTxnTimes(log: readonly TxnEntry[]): Map<SessionId, number> {
  const out = new Map<SessionId, number>();
  for (const e of log) out.set(e.header.clientId, Math.max(out.get(e.header.clientId) ?? 0, e.header.time));
  return out;
}
