/**
 * client.server-watches: a standard watch is one-shot at the server (docs/zookeeper.md §2.2):
 * the server sends at most one notification per registration, online.
 *
 * client.watches judges what reached a client's watchers; a notification the client hands to no
 * watcher (`watchers: 0`) is not judged there, because the client's and the server's tables can
 * legitimately disagree. So a server that notifies a standard watch a second time goes unseen:
 * its client drops the event. This checker judges every notification the server sent that
 * reached the client (each `client.watch` of a znode event type, whatever its `watchers`), against
 * the registrations the server holds for that session, built from the client's history:
 *
 * - the server's tables are two (Java's DataTree): data (getData, and exists whether or not the
 *   node exists) and child (getChildren); a watched read that completed ok registers its path in
 *   its table. A registration is a set entry: two reads before a change are one watch.
 * - an event takes the entries of its tables at its path (NodeCreated / NodeDataChanged: data;
 *   NodeChildrenChanged: child; NodeDeleted: both — one notification for both, as the server
 *   suppresses the second table's). An event that takes nothing, and that no persistent watch
 *   (`addWatch` mode 0 at the path, mode 1 at the path or an ancestor, not for
 *   NodeChildrenChanged) explains, is a notification the server sent without a registration:
 *   a standard watch fired twice, or a watch nobody set fired.
 * - across a reconnect the session keeps its entries: the client re-registers exactly the
 *   watches it holds (SetWatches), which are these. The server answers SetWatches list by list
 *   (Java's `DataTree.setWatches`: data, exist, then child watches, each path on its own), so a
 *   path whose node went away while the session was disconnected, re-sent as both a data and a
 *   child watch, gets one NodeDeleted per list: in that window (from the CONNECTED to the
 *   session's first reply after it, which the connection delivers after SetWatches' own
 *   notifications) a NodeDeleted takes one re-sent entry, the data one first.
 *
 * Why the client's view of the replies is the server's view: per connection, the server sends
 * the reply to a watched read right after registering it, and any notification of that
 * registration after it; the connection is FIFO, and the client annotates a completion and a
 * notification in the order it reads them. A watched read whose reply never arrived took its
 * connection with it, and the watches of a connection die with it at the server.
 *
 * Not judged: paths where the session removed watches (removeWatches, removeAllWatches). State:
 * per (client node, session), the waiting registrations; dropped when the handle closes or its
 * node crashes.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, intField, nullableStringField, stringField } from "../event-reader.js";
import { AddWatchMode } from "../../zk/proto/records.js";
import { OpTable } from "../history/client-events.js";
import { runOps, type OpReader } from "./run-ops.js";
import type { RunServices } from "../check-run.js";
import { selfAndAncestors } from "./znode-paths.js";

type ServerTable = "data" | "child";

const TAKES: Readonly<Record<string, readonly ServerTable[]>> = {
  NodeCreated: ["data"],
  NodeDataChanged: ["data"],
  NodeChildrenChanged: ["child"],
  NodeDeleted: ["data", "child"],
};

const REGISTERS: Readonly<Record<string, ServerTable>> = { getData: "data", exists: "data", getChildren: "child" };

/** Paths by server table. */
type ByTable = Record<ServerTable, Set<string>>;

interface SessionTables {
  /** The paths of registrations not yet notified, by table. */
  waiting: ByTable;
  persistent: Set<string>;
  recursive: Set<string>;
  removed: Set<string>;
  /** The waiting entries the client re-sent in SetWatches, until the session's first reply after the reconnect. */
  resent: ByTable;
}

const KINDS = ["client.invoke", "client.complete", "client.watch", "client.state", "crash"] as const;

export class ServerWatchesChecker implements Checker<KindsOf<typeof KINDS>> {
  readonly name = "client.server-watches";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** Its operations: the run's table once attached, shared with the other watch checkers (run-ops.ts). */
  private ops: OpReader = new OpTable(this.log);
  /** Client node → session → its server-side tables. */
  private readonly sessions = new Map<string, Map<string, SessionTables>>();

  attach(run: RunServices): void {
    this.ops = runOps(run, this.log);
  }

  onEvent(e: TraceEvent<KindsOf<typeof KINDS>>): void {
    switch (e.kind) {
      case "client.invoke": {
        const inv = this.ops.invoke(e);
        if (inv !== undefined && (inv.op === "removeWatches" || inv.op === "removeAllWatches")) this.tables(inv.client, inv.session).removed.add(inv.path);
        return;
      }
      case "client.complete":
        return this.onComplete(e);
      case "client.watch":
        return guarded(this.log, e, this, this.onWatch);
      case "crash":
        // A crashed client node's handles are gone (they never say CLOSED): forget their sessions.
        this.sessions.delete(e.node);
        return;
      case "client.state":
        return guarded(this.log, e, this, this.onState);
    }
  }

  private onState(e: TraceEvent<"client.state">): void {
    const state = stringField(e, "state");
    // A closed handle's session is over at this client: forget it (bounded state).
    if (state === "CLOSED") this.sessions.get(stringField(e, "client"))?.delete(stringField(e, "session"));
    // A reconnect: the client re-sends what waits (SetWatches), answered list by list.
    else if (state === "CONNECTED") {
      const t = this.sessions.get(stringField(e, "client"))?.get(stringField(e, "session"));
      if (t !== undefined) t.resent = { data: new Set(t.waiting.data), child: new Set(t.waiting.child) };
    }
  }

  private tables(client: string, session: string): SessionTables {
    let bySession = this.sessions.get(client);
    if (bySession === undefined) this.sessions.set(client, (bySession = new Map()));
    let t = bySession.get(session);
    if (t === undefined) bySession.set(session, (t = { waiting: { data: new Set(), child: new Set() }, persistent: new Set(), recursive: new Set(), removed: new Set(), resent: { data: new Set(), child: new Set() } }));
    return t;
  }

  private onComplete(e: TraceEvent<"client.complete">): void {
    const c = this.ops.complete(e);
    if (c === undefined) return;
    const { inv, done } = c;
    // A reply after the reconnect: SetWatches' answers are all in (the connection is FIFO).
    const afterReconnect = this.sessions.get(inv.client)?.get(done.session);
    const resentLists = afterReconnect?.resent;
    if (resentLists !== undefined && (resentLists.data.size > 0 || resentLists.child.size > 0)) {
      resentLists.data.clear();
      resentLists.child.clear();
    }
    // exists registers whether or not the node exists (an exists that found nothing may read as NONODE).
    if (done.outcome !== "ok" && !(inv.op === "exists" && done.err === "NONODE")) return;
    const table = REGISTERS[inv.op];
    if (table !== undefined && inv.watch) {
      this.tables(inv.client, done.session).waiting[table].add(inv.path);
      return;
    }
    if (inv.op === "addWatch") {
      const t = this.tables(inv.client, done.session);
      (inv.addWatchMode === AddWatchMode.PERSISTENT_RECURSIVE ? t.recursive : t.persistent).add(inv.path);
    }
  }

  private onWatch(e: TraceEvent<"client.watch">): void {
    const type = stringField(e, "type");
    const takes = TAKES[type];
    // Removal events (DataWatchRemoved…) and state events are the client's own, not the server's notifications.
    if (takes === undefined) return;
    const path = nullableStringField(e, "path");
    if (path === null) {
      this.log.add(e, `malformed trace event: client.watch ${type} without a path`);
      return;
    }
    const client = stringField(e, "client");
    const session = stringField(e, "session");
    const t = this.tables(client, session);
    let took = false;
    let resent: ServerTable | undefined;
    for (const table of takes) {
      if (!t.resent[table].has(path)) continue;
      resent = table;
      break;
    }
    if (resent !== undefined) {
      // SetWatches' answer to one list: it takes that list's entry only.
      t.resent[resent].delete(path);
      took = t.waiting[resent].delete(path);
    } else for (const table of takes) took = t.waiting[table].delete(path) || took;
    if (took) return;
    const ancestors = selfAndAncestors(path);
    if (t.persistent.has(path) || (type !== "NodeChildrenChanged" && ancestors.some((p) => t.recursive.has(p)))) return;
    if (ancestors.some((p) => t.removed.has(p))) return;
    this.log.add(
      e,
      `the server sent ${client} (session ${session}) ${type} ${path}, but the session held no ${takes.join(" or ")} watch on ${path} that had not fired yet ` +
        `(the client handed it to ${intField(e, "watchers")} watcher(s)): a standard watch is notified at most once per registration`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }

  retained(): number {
    let n = 0;
    for (const bySession of this.sessions.values()) for (const t of bySession.values()) n += t.waiting.data.size + t.waiting.child.size + t.persistent.size + t.recursive.size;
    return n;
  }
}
