/**
 * `LearnerZooKeeperServer`: a follower's or observer's client-facing server (docs/zookeeper.md
 * §7.5): reads are served locally, writes and syncs are forwarded to the leader, re-attaching
 * sessions are revalidated by the leader, and txns applied while synchronising are announced
 * as delivered only at UPTODATE.
 */
import type { SessionId } from "../../proto/records.js";
import { OpCode } from "../../proto/op-code.js";
import type { TxnEntry } from "../../proto/txn.js";
import type { SessionTracker } from "../session-tracker.js";
import { ZooKeeperServer, type Request } from "../zoo-keeper-server.js";
import type { ServerCnxn } from "../server-cnxn.js";
import type { Learner } from "./learner.js";
import { LearnerSessionTracker } from "./learner-session-tracker.js";
import { annotateDelivery } from "./zab-trace.js";

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

  /**
   * Txns applied while synchronising are delivered in Zab's sense only at UPTODATE (COMMIT-LD:
   * the leader is established). Applied earlier (at NEWLEADER, as 3.8/3.9 do), they are not yet
   * committed by this epoch and no client can see them: a learner that fails before UPTODATE
   * never delivered them.
   */
  protected override afterApply(entry: TxnEntry): void {
    if (this.learner.deliveriesDeferred) this.learner.deferredDeliveries.push(entry);
    else annotateDelivery(this, entry);
  }

  /** UPTODATE: announce what synchronisation applied (no digest: the tree has moved on). */
  deliverSynced(): void {
    for (const e of this.learner.deferredDeliveries.splice(0)) annotateDelivery(this, e, false);
  }
}
