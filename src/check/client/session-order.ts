/**
 * client.session-order: the per-session order guarantees of docs/zookeeper.md §6, online.
 *
 * 1. FIFO client order. A session's requests are answered in the order they were submitted
 *    (the server keeps per-session order; the client drops a connection whose reply xid is
 *    out of order). So among a session's operations that the server answered — completions
 *    "ok" or "fail", not answered locally (`local`, `sent: false`) — completions come in
 *    invocation order. Operations that ended "unknown" (CONNECTIONLOSS…) are not ordered.
 * 2. No going back in time. The zxid in a reply header is the answering server's last applied
 *    zxid (or the txn's own); a client presents the highest zxid it has seen when it
 *    reconnects and a server that is behind refuses it. So across a session's completions —
 *    whatever the outcome, across reconnects and servers — reply zxids never decrease.
 *    Zxids ≤ 0 are ignored, as the Java client ignores them for its `lastZxid`.
 *
 * A session is named by the client node and the session its completion reports (an operation
 * invoked before the first handshake carries "0x0" but completes in the real session).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { OpTable, type Invocation } from "../history/client-events.js";
import { hex } from "./znode-paths.js";

const KINDS = ["client.invoke", "client.complete"] as const;

interface SessionOrder {
  /** The latest-invoked operation the server has answered so far. */
  answered: Invocation | undefined;
  /** The highest reply zxid seen, and by which operation. */
  maxZxid: bigint;
  maxZxidBy: Invocation | undefined;
}

export class SessionOrderChecker implements Checker<KindsOf<typeof KINDS>> {
  readonly name = "client.session-order";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly ops = new OpTable(this.log);
  /** Client → session → its order so far (two lookups, no key string per completion). */
  private readonly sessions = new Map<string, Map<string, SessionOrder>>();

  onEvent(e: TraceEvent<KindsOf<typeof KINDS>>): void {
    if (e.kind === "client.invoke") this.ops.invoke(e);
    else this.onComplete(e);
  }

  private onComplete(e: TraceEvent<"client.complete">): void {
    const c = this.ops.complete(e);
    if (c === undefined) return;
    const { inv, done } = c;
    let bySession = this.sessions.get(inv.client);
    if (bySession === undefined) this.sessions.set(inv.client, (bySession = new Map()));
    let s = bySession.get(done.session);
    if (s === undefined) bySession.set(done.session, (s = { answered: undefined, maxZxid: 0n, maxZxidBy: undefined }));
    if ((done.outcome === "ok" || done.outcome === "fail") && !done.local) {
      const later = s.answered;
      if (later !== undefined && later.seq > inv.seq) {
        this.log.add(
          e,
          `session ${done.session} of ${inv.client}: ${describe(inv)} completed ${done.outcome} after ${describe(later)}, which was invoked later ` +
            `(FIFO client order: a session's requests are answered in submission order)`,
        );
      } else {
        s.answered = inv;
      }
    }
    const z = done.zxid;
    if (z === undefined || z <= 0n) return;
    if (z < s.maxZxid) {
      this.log.add(
        e,
        `session ${done.session} of ${inv.client}: ${describe(inv)} saw zxid ${hex(z)}, but ${s.maxZxidBy ? describe(s.maxZxidBy) : "an earlier reply"} had already seen ${hex(s.maxZxid)} ` +
          `(a session never observes an older state, even after reconnecting to another server)`,
      );
      return;
    }
    s.maxZxid = z;
    s.maxZxidBy = inv;
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

function describe(inv: Invocation): string {
  return `op ${inv.opId} (${inv.op}${inv.path ? ` ${inv.path}` : ""}, invoked at event ${inv.eventIndex})`;
}
