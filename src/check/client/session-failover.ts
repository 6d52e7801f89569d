/**
 * client.session-failover: sessions survive a change of leader (docs/zookeeper.md §3.3), online.
 *
 * Only the leader (or a standalone server) expires sessions, and it knows nothing of when the
 * previous leader last heard from a session: ZooKeeper rebuilds the session tracker when a new
 * leader starts serving and touches every session, giving each a full, fresh timeout (a
 * restarted standalone server does the same). So no session expires earlier than its timeout
 * after the leader that expires it was established:
 *
 *   a `zk.session.expire` of a session with timeout T at server L, at true time t, is a
 *   violation when L's own clock counted less than T between L's `zab.leader.established`
 *   (standalone: its `zk.server.start`) and t.
 *
 * Measured on L's clock (a `clock` fault makes its timeouts run fast or slow in true time).
 * A server whose role ended or that crashed expires nothing until it is established again.
 * State: one establishment time per server.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { guarded, intField, stringField } from "../event-reader.js";
import { NodeClocks } from "../node-clocks.js";

const KINDS = ["zab.leader.established", "zk.server.start", "zab.role.ended", "zab.state", "crash", "clock", "zk.session.expire"] as const;
type Kind = KindsOf<typeof KINDS>;

export class SessionFailoverChecker implements Checker<Kind> {
  readonly name = "client.session-failover";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly clocks = new NodeClocks();
  /** Server → true time it was established as leader (or started standalone), while it still is. */
  private readonly establishedAtUs = new Map<string, number>();


  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.leader.established":
      case "zk.server.start":
        this.establishedAtUs.set(e.node, e.atUs);
        return;
      case "zab.state":
        if (stringField(e, "state") !== "LEADING") this.establishedAtUs.delete(e.node);
        return;
      case "zab.role.ended":
      case "crash":
        this.establishedAtUs.delete(e.node);
        return;
      case "clock":
        this.clocks.apply(e);
        return;
      case "zk.session.expire":
        return this.onExpire(e);
    }
  }

  private onExpire(e: TraceEvent<"zk.session.expire">): void {
    const session = stringField(e, "session");
    const timeoutMs = intField(e, "timeoutMs");
    const since = this.establishedAtUs.get(e.node);
    if (since === undefined) return;
    const servedUs = this.clocks.elapsedLocalUs(e.node, since, e.atUs);
    if (servedUs >= timeoutMs * 1000) return;
    this.log.add(
      e,
      `${e.node} expired session ${session} (timeout ${timeoutMs} ms) ${servedUs / 1000} ms after it was established at ${since / 1000} ms: ` +
        `a new leader gives every session a full timeout from its establishment, whatever the previous leader last heard`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
