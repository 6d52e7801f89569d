/**
 * client.watches: the watch guarantees of docs/zookeeper.md §2, from the client's point of view, online.
 *
 * Registrations come from the history: a read with `watch: true` that completed ok registers a
 * one-shot watch (exists → the data table, or the exist table when it saw no node; getData →
 * data; getChildren → child), at the read's reply zxid; `addWatch` ok registers a persistent
 * (mode 0) or persistent-recursive (mode 1) watch. Events are the `client.watch` annotations
 * (type, path, and how many local watchers the client handed the event to). An event takes
 * the one-shot watches the Java client's dispatch table gives it (NodeCreated/NodeDataChanged:
 * data + exist; NodeChildrenChanged: child; NodeDeleted: all three).
 *
 * 1. At most once. An event handed to some watcher (`watchers > 0`) must have a registration
 *    waiting for it: a one-shot watch not yet taken, a persistent watch on the path, or a
 *    recursive one on the path or an ancestor (not for NodeChildrenChanged). Otherwise a
 *    one-shot watch fired a second time (or a watch nobody set fired).
 * 2. The right type. A one-shot watch is only taken by an event its read can cause: exists →
 *    NodeCreated/NodeDeleted/NodeDataChanged; getData → NodeDataChanged/NodeDeleted;
 *    getChildren → NodeChildrenChanged/NodeDeleted.
 * 3. The event before the data. While a one-shot watch set at zxid z is waiting, a later read
 *    of the same path by the same session must not show a change after z (data/exist watch:
 *    mzxid or czxid > z, the node gone, or appeared; child watch: pzxid > z, the node gone,
 *    another child list): the server queues the event before any later reply, and after a
 *    reconnect SetWatches fires it at once (docs/zookeeper.md §2.5–2.6).
 * 4. Once per change. A notification is attributed to the txn whose `zk.apply` immediately
 *    follows its send on the server (the server fires watches while applying, then
 *    annotates); on one connection, one create/delete/setData txn triggers each (type, path)
 *    at most once. A closeSession txn deletes each of its session's ephemerals once (3.8's
 *    `DataTree.killSession`), so it triggers each NodeDeleted at most once too; its
 *    NodeChildrenChanged may repeat (two ephemerals of one parent), and a multi may trigger any
 *    path more than once (a delete, a create and a delete again): those are not judged, nor are
 *    notifications sent outside a txn (SetWatches catch-up).
 *
 * Paths where the client removed watches (removeWatches / removeAllWatches) are no longer
 * judged by 1 and 3 for that session: the client and the server may then disagree on who
 * still waits, legitimately. Persistent watches are not judged by 3 (ZooKeeper sends no
 * catch-up events for them after a reconnect), nor is a standard child watch once its session
 * adds a recursive watch on the same path: a 3.8 server keeps one mode per connection and path in
 * each table, the last registered (ZOOKEEPER-4466, fixed in 3.9.0), so the child watch becomes
 * recursive and never receives NodeChildrenChanged.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, intField, nullableStringField, stringField } from "../event-reader.js";
import { OpTable, type Completion, type Invocation } from "../history/client-events.js";
import { runOps, type OpReader } from "./run-ops.js";
import type { StatFields } from "../history/history.js";
import { AddWatchMode } from "../../zk/proto/records.js";
import { parseZxidText } from "../zxid-text.js";
import { hex, selfAndAncestors } from "./znode-paths.js";
import { NotificationTxns } from "./notification-txns.js";
import type { RunServices } from "../check-run.js";

/** The kinds it reads: the client's, and the messages and applies that attribute notifications (4). */
const CLIENT_KINDS = ["client.invoke", "client.complete", "client.watch", "client.connect", "client.state", "client.disconnect"] as const;
const KINDS = [...CLIENT_KINDS, ...NotificationTxns.KINDS] as const;
type Kind = KindsOf<typeof KINDS>;

type Table = "data" | "exist" | "child";
type Origin = "exists" | "getData" | "getChildren";

interface OneShot {
  table: Table;
  origin: Origin;
  /** The registering read's reply zxid (the server's state when it set the watch). */
  zxid: bigint | undefined;
  inv: Invocation;
  /** The children the registering getChildren saw, when recorded. */
  children: string[] | undefined;
  /** A read already showed a change this watch has not reported (reported once; it still waits). */
  stale: boolean;
}

interface SessionWatches {
  oneShot: Map<string, OneShot[]>;
  persistent: Set<string>;
  recursive: Set<string>;
  tainted: Set<string>;
}

const TAKES: Readonly<Record<string, readonly Table[]>> = {
  NodeCreated: ["data", "exist"],
  NodeDataChanged: ["data", "exist"],
  NodeChildrenChanged: ["child"],
  NodeDeleted: ["data", "exist", "child"],
};

const ALLOWED: Readonly<Record<Origin, ReadonlySet<string>>> = {
  exists: new Set(["NodeCreated", "NodeDeleted", "NodeDataChanged"]),
  getData: new Set(["NodeDataChanged", "NodeDeleted"]),
  getChildren: new Set(["NodeChildrenChanged", "NodeDeleted"]),
};

/** Txns that trigger each (type, path) at most once per connection. */
const SINGLE_TRIGGER = new Set(["create", "create2", "createContainer", "createTTL", "delete", "deleteContainer", "setData"]);

const READS = new Set(["getData", "exists", "getChildren"]);

export class WatchesChecker implements Checker<Kind> {
  readonly name = "client.watches";
  readonly kinds = KINDS;
  readonly messageTypes = NotificationTxns.MESSAGE_TYPES;
  readonly log = new ViolationLog(this.name);
  /** Its operations: the run's table once attached (run-ops.ts). */
  private ops: OpReader = new OpTable(this.log);
  /** Client → session → its watches (two lookups, no key string per event). */
  private readonly sessions = new Map<string, Map<string, SessionWatches>>();
  /** Which txn each notification came from (4): the run's, once attached (notification-txns.ts). */
  private txns = new NotificationTxns(this.log);
  /**
   * Per handle (client node, then session as the event writes it): each txn's zxid → the
   * (type, path) pairs of its notifications seen, flat. No key text per notification.
   */
  private readonly seenOnConnection = new Map<string, Map<string, Map<string, string[]>>>();

  /** The run's operations, and its attribution of notifications, shared with client.watch-triggers. */
  attach(run: RunServices): void {
    this.ops = runOps(run, this.log);
    this.txns = NotificationTxns.ofRun(run, this.log);
  }

  /** Its client kinds only, when client.watch-triggers reads the messages and applies for the run's attribution. */
  attachedKinds(): readonly Kind[] {
    return this.txns.messagesFed ? CLIENT_KINDS : KINDS;
  }

  onEvent(e: TraceEvent<Kind>): void {
    this.txns.onEvent(e);
    switch (e.kind) {
      case "client.invoke": {
        this.txns.clientNode(e.node);
        const inv = this.ops.invoke(e);
        if (inv === undefined) return;
        if (inv.op === "removeWatches" || inv.op === "removeAllWatches") this.watches(inv.client, inv.session).tainted.add(inv.path);
        return;
      }
      case "client.complete":
        return this.onComplete(e);
      case "client.watch":
        return guarded(this.log, e, this, this.onWatch);
      case "client.connect":
        this.txns.clientNode(e.node);
        this.seenOnConnection.get(e.node)?.delete(sessionKey(e.fields.session));
        return;
      case "client.state":
      case "client.disconnect":
        this.txns.clientNode(e.node);
        return;
    }
  }

  private watches(client: string, session: string): SessionWatches {
    let bySession = this.sessions.get(client);
    if (bySession === undefined) this.sessions.set(client, (bySession = new Map()));
    let w = bySession.get(session);
    if (w === undefined) bySession.set(session, (w = { oneShot: new Map(), persistent: new Set(), recursive: new Set(), tainted: new Set() }));
    return w;
  }

  // ---- registrations and 3 ------------------------------------------------------------------

  private onComplete(e: TraceEvent<"client.complete">): void {
    const c = this.ops.complete(e);
    if (c === undefined) return;
    const { inv, done } = c;
    const isRead = READS.has(inv.op);
    if (isRead && done.zxid !== undefined && (done.outcome === "ok" || done.err === "NONODE")) this.checkFreshness(e, inv, done);
    if (done.outcome !== "ok") return;
    if (isRead && inv.watch) this.register(inv, done);
    else if (inv.op === "addWatch") {
      const w = this.watches(inv.client, done.session);
      const recursive = inv.addWatchMode === AddWatchMode.PERSISTENT_RECURSIVE;
      (recursive ? w.recursive : w.persistent).add(inv.path);
      // 3.8 keeps one mode per connection and path in each table, the last registered
      // (ZOOKEEPER-4466, fixed in 3.9.0): a recursive watch turns the path's standard child watch
      // into a recursive one, which never receives NodeChildrenChanged. Not judged by 3 from here.
      if (recursive) for (const reg of w.oneShot.get(inv.path) ?? []) if (reg.table === "child") reg.stale = true;
    }
  }

  private register(inv: Invocation, done: Completion): void {
    const stat = done.result?.stat;
    const table: Table = inv.op === "getChildren" ? "child" : inv.op === "exists" && stat === null ? "exist" : "data";
    const children = done.result?.children;
    const w = this.watches(inv.client, done.session);
    const list = w.oneShot.get(inv.path) ?? [];
    list.push({ table, origin: inv.op as Origin, zxid: done.zxid, inv, children, stale: false });
    w.oneShot.set(inv.path, list);
  }

  /** 3: a read must not show a change its own session's waiting watch has not reported. */
  private checkFreshness(e: TraceEvent<"client.complete">, inv: Invocation, done: Completion): void {
    const w = this.sessions.get(inv.client)?.get(done.session);
    const waiting = w?.oneShot.get(inv.path);
    if (w === undefined || waiting === undefined || w.tainted.has(inv.path)) return;
    const seen = observed(inv, done);
    const readZxid = done.zxid!;
    for (const reg of waiting) {
      const why = reg.stale || reg.zxid === undefined || readZxid < reg.zxid ? undefined : changeSince(reg, seen);
      if (why === undefined) continue;
      reg.stale = true;
      this.log.add(
        e,
        `${inv.client} (session ${done.session}): ${inv.op} ${inv.path} (op ${inv.opId}) at zxid ${hex(readZxid)} shows ${why}, after the ${reg.origin} watch set at zxid ${hex(reg.zxid!)} ` +
          `(op ${reg.inv.opId}, event ${reg.inv.eventIndex}), but that watch has not fired: the event must reach the client before any reply showing the change`,
      );
    }
  }

  // ---- events: 1, 2 and 4 ---------------------------------------------------------------------

  private onWatch(e: TraceEvent<"client.watch">): void {
    const type = stringField(e, "type");
    const path = nullableStringField(e, "path");
    const tables = TAKES[type];
    const notif = this.txns.take(e);
    if (tables !== undefined && path === null) {
      this.log.add(e, `malformed trace event: client.watch ${type} without a path`);
      return;
    }
    // A state event (type None) concerns no znode and no watch of this checker.
    if (tables === undefined || path === null) return;
    if (notif !== undefined) this.checkOncePerTxn(e, type, path, notif);
    const client = stringField(e, "client");
    const session = stringField(e, "session");
    const w = this.watches(client, session);
    const all = w.oneShot.get(path) ?? [];
    const taken = all.filter((r) => tables.includes(r.table));
    const left = all.filter((r) => !tables.includes(r.table));
    if (left.length === 0) w.oneShot.delete(path);
    else w.oneShot.set(path, left);
    for (const reg of taken) {
      if (ALLOWED[reg.origin].has(type)) continue;
      this.log.add(e, `${client} ${session}: the watch set by ${reg.origin} ${path} (op ${reg.inv.opId}, event ${reg.inv.eventIndex}) fired with ${type}, which a ${reg.origin} watch never receives`);
    }
    const watchers = intField(e, "watchers");
    if (watchers === 0 || taken.length > 0) return;
    const ancestors = selfAndAncestors(path);
    const persistent = w.persistent.has(path) || (type !== "NodeChildrenChanged" && ancestors.some((p) => w.recursive.has(p)));
    if (persistent || ancestors.some((p) => w.tainted.has(p))) return;
    this.log.add(
      e,
      `${client} ${session}: ${type} ${path} was handed to ${watchers} watcher(s), but no watch was waiting for it: a one-shot watch fires at most once per registration`,
    );
  }

  private checkOncePerTxn(e: TraceEvent<"client.watch">, type: string, path: string, notif: { zxid: string; op: string }): void {
    if (!SINGLE_TRIGGER.has(notif.op) && !(notif.op === "closeSession" && type === "NodeDeleted")) return;
    // Per handle: a client node may hold several sessions, each on its own connection.
    let bySession = this.seenOnConnection.get(e.node);
    if (bySession === undefined) this.seenOnConnection.set(e.node, (bySession = new Map()));
    const session = sessionKey(e.fields.session);
    let byZxid = bySession.get(session);
    if (byZxid === undefined) bySession.set(session, (byZxid = new Map()));
    const seen = byZxid.get(notif.zxid);
    if (seen === undefined) {
      byZxid.set(notif.zxid, [type, path]);
      return;
    }
    if (!seenPair(seen, type, path)) {
      seen.push(type, path);
      return;
    }
    this.log.add(e, `${e.node} received ${type} ${path} twice for txn ${notif.zxid} (${notif.op}) on one connection: a change triggers each watch once`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}

/** A session as a connection's key: the event's value as text (as a template writes it). */
function sessionKey(session: unknown): string {
  return typeof session === "string" ? session : `${session as string}`;
}

/** Whether the flat (type, path) list holds the pair. */
function seenPair(seen: readonly string[], type: string, path: string): boolean {
  for (let i = 0; i < seen.length; i += 2) if (seen[i] === type && seen[i + 1] === path) return true;
  return false;
}

/** What a read showed about its path. */
interface Observed {
  exists: boolean | undefined;
  mzxid: bigint | undefined;
  czxid: bigint | undefined;
  pzxid: bigint | undefined;
  children: string[] | undefined;
}

function observed(inv: Invocation, done: Completion): Observed {
  if (done.outcome !== "ok") return { exists: false, mzxid: undefined, czxid: undefined, pzxid: undefined, children: undefined };
  const stat = done.result?.stat;
  const children = done.result?.children;
  if (stat === null) return { exists: false, mzxid: undefined, czxid: undefined, pzxid: undefined, children: undefined };
  return {
    exists: inv.op === "exists" && stat === undefined ? undefined : true,
    mzxid: statZxid(stat, "mzxid"),
    czxid: statZxid(stat, "czxid"),
    pzxid: statZxid(stat, "pzxid"),
    children,
  };
}

/** A Stat zxid the reader checked (client-events.ts), as a number to compare. */
function statZxid(stat: StatFields | undefined, k: "mzxid" | "czxid" | "pzxid"): bigint | undefined {
  const text = stat?.[k];
  return text === undefined ? undefined : parseZxidText(text);
}

/** The change after the registration that the read shows, in words; undefined if none. */
function changeSince(reg: OneShot, seen: Observed): string | undefined {
  const z = reg.zxid!;
  if (reg.table === "exist") {
    if (seen.exists === true && (seen.czxid === undefined || seen.czxid > z)) return "the node (created after the watch was set)";
    return undefined;
  }
  if (seen.exists === false) return "the node gone";
  if (reg.table === "data") {
    if (seen.mzxid !== undefined && seen.mzxid > z) return `mzxid ${hex(seen.mzxid)}`;
    if (seen.czxid !== undefined && seen.czxid > z) return `czxid ${hex(seen.czxid)}`;
    return undefined;
  }
  if (seen.pzxid !== undefined && seen.pzxid > z) return `pzxid ${hex(seen.pzxid)}`;
  if (seen.czxid !== undefined && seen.czxid > z) return `czxid ${hex(seen.czxid)} (the node was recreated)`;
  if (seen.children !== undefined && reg.children !== undefined && !sameSet(seen.children, reg.children)) return `children [${seen.children.join(", ")}] (were [${reg.children.join(", ")}])`;
  return undefined;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}
