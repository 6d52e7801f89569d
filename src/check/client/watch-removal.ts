/**
 * client.watch-removal: what a removal of watches (removeWatches / removeAllWatches,
 * docs/zookeeper.md §2.7) tells its caller, online.
 *
 * 3.8's client removes watchers when the reply comes back (`ZKWatchManager.removeWatcher`, called
 * from `finishPacket`): it answers NOWATCHER when it holds no watcher of the asked type at the
 * path, the server's error when the removal is not `local`, and otherwise takes the watchers out
 * of its tables and queues one event per kind it took — ChildWatchRemoved (a child watch),
 * DataWatchRemoved (a data or exist watch), PersistentWatchRemoved (a persistent or recursive
 * one) — before the call completes. So, per removal:
 *
 * 1. **Told.** A removal that completes ok handed its watchers at least one removal event at its
 *    path, each of a kind its type asks for (Children: ChildWatchRemoved; Data:
 *    DataWatchRemoved; Any: any of the three); one that fails handed none. A non-local removal
 *    that completes ok had the server's OK, so its events carry SyncConnected.
 * 2. **Held means found.** A removeAllWatches (every watcher of the type) that is not `local`
 *    and fails with NOWATCHER, while the session's server holds a standard watch of its type at
 *    its path, is wrong twice over: the server holds it (it answers OK and removes it), and the
 *    client does too (its tables mirror the server's: it re-registers exactly its own watches at
 *    every reconnect). The server's tables come from the history as `client.server-watches`
 *    builds them: a watched read that completed ok registers (exists also when it found no
 *    node: data; getData: data; getChildren: child); a notification takes its path's entries
 *    (NodeCreated, NodeDataChanged: data; NodeChildrenChanged: child; NodeDeleted: both) —
 *    the connection is FIFO, so a notification sent before the removal's reply is read before
 *    it; a removeAllWatches that completed ok (not local) takes the entries of its type.
 *
 * Not judged by 2: a path of the session after a removeWatches of one watcher (3.8 sends it as
 * checkWatches: the server keeps its entry while the client drops that one watcher), after a
 * `local` removal or one whose outcome is unknown (the server may or may not have removed), and a
 * path the session ever gave a persistent watch (addWatch: a 3.8 server keeps one mode per
 * connection and path, ZOOKEEPER-4466, so a standard entry may have turned persistent). The
 * checker does not know which watcher function a read registered, so it never judges a
 * removeWatches of one watcher by 2.
 *
 * State: per (client node, session), the server's standard entries (two path sets), the
 * unjudged paths, and the removal events not yet matched to their removal; per client node, the
 * removals in flight. Dropped when the handle ends or its node crashes. O(1) per event (a
 * NodeDeleted takes two set entries; a removal's completion reads its path's events).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { booleanField, guarded, intField, nullableStringField, optionalStringField, stringField } from "../event-reader.js";
import { ByOp, OpTable } from "../history/client-events.js";
import { runOps, type OpReader } from "./run-ops.js";
import type { RunServices } from "../check-run.js";
import { WatcherType } from "../../zk/proto/records.js";

/** The removal events, and the ones each WatcherType may produce. */
const REMOVAL_KINDS: ReadonlySet<string> = new Set(["ChildWatchRemoved", "DataWatchRemoved", "PersistentWatchRemoved"]);
const ALLOWED_BY_TYPE: ReadonlyMap<number, ReadonlySet<string>> = new Map([
  [WatcherType.Children, new Set(["ChildWatchRemoved"])],
  [WatcherType.Data, new Set(["DataWatchRemoved"])],
  [WatcherType.Any, REMOVAL_KINDS],
]);
const TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [WatcherType.Children, "Children"],
  [WatcherType.Data, "Data"],
  [WatcherType.Any, "Any"],
]);

/** Which of the server's tables a notification takes at its path. */
const TAKES: Readonly<Record<string, { data: boolean; child: boolean }>> = {
  NodeCreated: { data: true, child: false },
  NodeDataChanged: { data: true, child: false },
  NodeChildrenChanged: { data: false, child: true },
  NodeDeleted: { data: true, child: true },
};

interface RemovalEvent {
  type: string;
  state: string | undefined;
}

interface SessionState {
  /** The server's standard entries of this session (client paths: a handle's chroot is fixed). */
  data: Set<string>;
  child: Set<string>;
  /** Paths rule 2 no longer judges for this session. */
  unjudged: Set<string>;
  /** Removal events at each path, not yet matched to the removal that made them. */
  told: Map<string, RemovalEvent[]>;
}

interface Removal {
  op: "removeWatches" | "removeAllWatches";
  path: string;
  type: number;
  local: boolean;
}

const KINDS = ["client.invoke", "client.complete", "client.watch", "client.state", "crash"] as const;
type Kind = KindsOf<typeof KINDS>;

export class WatchRemovalChecker implements Checker<Kind> {
  readonly name = "client.watch-removal";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  /** Its operations: the run's table once attached, shared with the other watch checkers (run-ops.ts). */
  private ops: OpReader = new OpTable(this.log);
  /** Client node → session → what the checker knows of it. */
  private readonly sessions = new Map<string, Map<string, SessionState>>();
  /** Client node → opId → a removal in flight (its type and `local`, which the op table does not keep). */
  private readonly removals = new ByOp<Removal>();

  attach(run: RunServices): void {
    this.ops = runOps(run, this.log);
  }

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "client.invoke":
        return guarded(this.log, e, this, this.onInvoke);
      case "client.complete":
        return guarded(this.log, e, this, this.onComplete);
      case "client.watch":
        return guarded(this.log, e, this, this.onWatch);
      case "client.state":
        return guarded(this.log, e, this, this.onState);
      case "crash":
        this.sessions.delete(e.node);
        this.removals.forgetClient(e.node);
        return;
    }
  }

  private session(client: string, session: string): SessionState {
    let bySession = this.sessions.get(client);
    if (bySession === undefined) this.sessions.set(client, (bySession = new Map()));
    let s = bySession.get(session);
    if (s === undefined) bySession.set(session, (s = { data: new Set(), child: new Set(), unjudged: new Set(), told: new Map() }));
    return s;
  }

  private onInvoke(e: TraceEvent<"client.invoke">): void {
    const inv = this.ops.invoke(e);
    if (inv === undefined) return;
    if (inv.op !== "removeWatches" && inv.op !== "removeAllWatches") return;
    this.removals.set(inv.client, inv.opId, { op: inv.op, path: inv.path, type: intField(e, "type"), local: booleanField(e, "local") });
  }

  private onState(e: TraceEvent<"client.state">): void {
    const state = stringField(e, "state");
    if (state === "CLOSED" || state === "AUTH_FAILED") this.sessions.get(stringField(e, "client"))?.delete(stringField(e, "session"));
  }

  private onWatch(e: TraceEvent<"client.watch">): void {
    const type = stringField(e, "type");
    const path = nullableStringField(e, "path");
    if (path === null) return;
    const s = this.session(stringField(e, "client"), stringField(e, "session"));
    if (REMOVAL_KINDS.has(type)) {
      const told = s.told.get(path);
      const ev = { type, state: optionalStringField(e, "state") };
      if (told === undefined) s.told.set(path, [ev]);
      else told.push(ev);
      return;
    }
    const takes = TAKES[type];
    if (takes === undefined) return;
    if (takes.data) s.data.delete(path);
    if (takes.child) s.child.delete(path);
  }

  private onComplete(e: TraceEvent<"client.complete">): void {
    const c = this.ops.complete(e);
    if (c === undefined) return;
    const { inv, done } = c;
    if (inv.op === "removeWatches" || inv.op === "removeAllWatches") {
      const removal = this.removals.take(inv.client, inv.opId);
      if (removal !== undefined) this.judgeRemoval(e, inv.client, done.session, removal, done.outcome, done.err, done.local);
      return;
    }
    // Whatever its outcome: the server may hold the persistent watch.
    if (inv.op === "addWatch") this.session(inv.client, done.session).unjudged.add(inv.path);
    if (!inv.watch) return;
    // exists registers whether or not the node exists (an exists that found nothing may read as NONODE).
    if (done.outcome !== "ok" && !(inv.op === "exists" && done.err === "NONODE")) return;
    const s = this.session(inv.client, done.session);
    if (inv.op === "getChildren") s.child.add(inv.path);
    else if (inv.op === "getData" || inv.op === "exists") s.data.add(inv.path);
  }

  private judgeRemoval(e: TraceEvent<"client.complete">, client: string, session: string, r: Removal, outcome: string, err: string | undefined, refused: boolean): void {
    const s = this.session(client, session);
    const told = s.told.get(r.path) ?? [];
    s.told.delete(r.path);
    const what = `${client}'s ${r.op}(${r.path}, ${TYPE_NAMES.get(r.type) ?? r.type}${r.local ? ", local" : ""}) (session ${session})`;
    const allowed = ALLOWED_BY_TYPE.get(r.type);
    if (outcome === "ok") {
      if (told.length === 0) this.log.add(e, `${what} completed ok, but handed its watchers no removal event: a removal that succeeds tells each kind of watcher it took`);
      for (const ev of told) {
        if (allowed !== undefined && !allowed.has(ev.type)) this.log.add(e, `${what} handed its watchers ${ev.type}: a ${TYPE_NAMES.get(r.type)} removal takes only ${[...allowed].join(" / ")} watchers`);
        if (!r.local && ev.state !== "SyncConnected") this.log.add(e, `${what} completed ok (the server's OK), but its ${ev.type} event carries state ${ev.state ?? "(none)"}, not SyncConnected`);
      }
    } else if (told.length > 0) {
      this.log.add(e, `${what} failed (${err ?? outcome}), but handed its watchers ${told.map((t) => t.type).join(", ")}: a removal that fails removes nothing`);
    }
    this.judgeFound(e, s, r, what, outcome, err, refused);
  }

  /** Rule 2, then the server's tables after the removal. */
  private judgeFound(e: TraceEvent<"client.complete">, s: SessionState, r: Removal, what: string, outcome: string, err: string | undefined, refused: boolean): void {
    const wantsChild = r.type === WatcherType.Children || r.type === WatcherType.Any;
    const wantsData = r.type === WatcherType.Data || r.type === WatcherType.Any;
    if (r.op === "removeWatches" || r.local || outcome === "unknown") {
      s.unjudged.add(r.path);
      return;
    }
    if (outcome === "ok") {
      if (wantsChild) s.child.delete(r.path);
      if (wantsData) s.data.delete(r.path);
      return;
    }
    if (err !== "NOWATCHER" || refused || s.unjudged.has(r.path)) return;
    const held = (wantsChild && s.child.has(r.path)) || (wantsData && s.data.has(r.path));
    if (!held) return;
    this.log.add(
      e,
      `${what} failed with NOWATCHER, but the session holds a ${wantsChild && s.child.has(r.path) ? "child" : "data"} watch on ${r.path} that has not fired ` +
        `(set by a watched read that completed ok, not taken by any notification or removal since): the server and the client both hold it`,
    );
  }

  finish(): Violation[] {
    return this.log.violations;
  }

  retained(): number {
    let n = 0;
    for (const bySession of this.sessions.values()) for (const s of bySession.values()) n += s.data.size + s.child.size + s.unjudged.size + s.told.size;
    n += this.removals.size;
    return n;
  }
}
