/**
 * zk.watch-leak: a closed connection's watches go with it (docs/zookeeper.md §2.2, §2.6).
 *
 * 3.8 drops every watch of a connection when it closes (`DataTree.removeCnxn` from
 * `ZooKeeperServer.removeCnxn`), and refuses a watch for a connection already closed
 * (`WatchManager.isDeadWatcher`: a watched read answered after the close). A watch the server
 * keeps past the close is a leak: the watch tables (`wchc`, `wchs`) grow with every reconnect,
 * and the server walks dead entries on every trigger. No client can see it — the notification
 * goes nowhere — so the server says so when it happens: a watch of a closed connection that
 * fires is annotated (`zk.watch.closed-cnxn`, which a correct server never writes), and each
 * one is a violation here, once per (server, client connection's session).
 *
 * State: the (server, session) pairs reported.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, stringField } from "../event-reader.js";

const KINDS = ["zk.watch.closed-cnxn"] as const;
type Kind = KindsOf<typeof KINDS>;

export class WatchLeakChecker implements Checker<Kind> {
  readonly name = "zk.watch-leak";
  readonly kinds = KINDS;
  /** Every event it reads is a violation: reading none is its pass. */
  readonly alarm = true;
  readonly log = new ViolationLog(this.name);
  private readonly reported = new Set<string>();

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    const session = stringField(e, "session");
    const key = `${e.node} ${session}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.add(e, `${e.node} fired a ${stringField(e, "type")} watch on ${stringField(e, "path")} for ${stringField(e, "client")}'s closed connection (session ${session}): the server kept that connection's watches past its close`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
