/**
 * client.session-failover: sessions survive a change of leader (docs/zookeeper.md §3.3), online.
 *
 * Only the leader (or a standalone server) expires sessions, and it knows nothing of when the
 * previous leader last heard from a session: ZooKeeper rebuilds the session tracker when a new
 * leader starts serving and touches every session, giving each a full, fresh timeout (a
 * standalone server does the same each time it starts). Every later touch (a request, a ping, a
 * re-attachment) happens after that and sets the deadline to its own time plus a timeout.
 *
 * Which timeout? The session keeps the one it was created with (`SessionImpl.timeout`, the one
 * `zk.session.expire` reports and the tracker's rebuild uses), but a client that re-attaches
 * negotiates a timeout again, and 3.8 touches the session with the connection's new one
 * (`revalidateSession` → `touchSession(id, newTimeout)`, and the connection's pings after it)
 * without changing the recorded one. So a re-attachment with a shorter timeout legitimately
 * expires a session sooner than its recorded timeout. The bound is the shortest timeout the
 * session ever had (and none at all once a server took a re-attachment it never answered, whose
 * timeout the trace does not show: unseen-reattach.ts):
 *
 *   a `zk.session.expire` at server L, at true time t, of a session whose recorded timeout is T
 *   and whose `zk.session.established` (at any server: a learner revalidates with the leader,
 *   which touches the session with the new timeout) negotiated timeouts T1…Tn, is a violation
 *   when L's own clock counted less than min(T, T1…Tn) between L's `zab.leader.established`
 *   (standalone: its `zk.server.start`) and t.
 *
 * Measured on L's clock (a `clock` fault makes its timeouts run fast or slow in true time).
 * A server whose role ended or that crashed expires nothing until it is established again.
 * State: one establishment time per server, one shortest timeout per session.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type Violation, type KindsOf } from "../checker.js";
import { guarded, intField, stringField } from "../event-reader.js";
import { NodeClocks } from "../node-clocks.js";
import { UNSEEN_REATTACH_KINDS, UnseenReattachTimeouts } from "./unseen-reattach.js";

const KINDS = [
  "zab.leader.established", "zk.server.start", "zab.role.ended", "zab.state", "crash", "clock", "zk.session.established", "zk.session.expire",
  ...UNSEEN_REATTACH_KINDS,
] as const;
type Kind = KindsOf<typeof KINDS>;

export class SessionFailoverChecker implements Checker<Kind> {
  readonly name = "client.session-failover";
  readonly kinds = KINDS;
  /** Of the messages, only a ConnectRequest's delivery (a re-attachment reaching a server). */
  readonly messageTypes = { deliver: (type: string) => type === "connect" };
  readonly log = new ViolationLog(this.name);
  private readonly clocks = new NodeClocks();
  /** Server → true time it was established as leader (or started standalone), while it still is. */
  private readonly establishedAtUs = new Map<string, number>();
  /** Session → the shortest timeout any of its connections negotiated (ms). */
  private readonly shortestNegotiatedMs = new Map<string, number>();
  private readonly unseenReattach = new UnseenReattachTimeouts();

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
      case "zk.session.established":
        this.unseenReattach.onAnswer(e);
        return this.onEstablished(e);
      case "zk.session.invalid":
        this.unseenReattach.onAnswer(e);
        return;
      case "client.connect":
        return this.unseenReattach.onConnect(e);
      case "deliver":
        this.unseenReattach.onDeliver(e);
        return;
      case "zk.session.expire":
        return this.onExpire(e);
    }
  }

  private onEstablished(e: TraceEvent<"zk.session.established">): void {
    const session = stringField(e, "session");
    const timeoutMs = intField(e, "timeoutMs");
    const known = this.shortestNegotiatedMs.get(session);
    if (known === undefined || timeoutMs < known) this.shortestNegotiatedMs.set(session, timeoutMs);
  }

  private onExpire(e: TraceEvent<"zk.session.expire">): void {
    const session = stringField(e, "session");
    const recordedMs = intField(e, "timeoutMs");
    const since = this.establishedAtUs.get(e.node);
    if (since === undefined || this.unseenReattach.has(session)) return;
    const timeoutMs = Math.min(recordedMs, this.shortestNegotiatedMs.get(session) ?? recordedMs);
    const servedUs = this.clocks.elapsedLocalUs(e.node, since, e.atUs);
    if (servedUs >= timeoutMs * 1000) return;
    const which = timeoutMs === recordedMs ? `timeout ${recordedMs} ms` : `timeout ${recordedMs} ms, ${timeoutMs} ms negotiated by a re-attachment`;
    this.log.add(
      e,
      `${e.node} expired session ${session} (${which}) ${servedUs / 1000} ms after it started serving at ${since / 1000} ms: ` +
        `a server that starts serving (a new leader, a started standalone server) gives every session a full timeout, whatever was last heard before`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
