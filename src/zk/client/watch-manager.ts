/**
 * `ZKWatchManager` (docs/zookeeper.md §2.4, §2.7): the client's book of which watcher waits for what.
 *
 * Five tables, client path → set of watchers: data, exist, child, persistent and
 * persistentRecursive. Watchers are functions; a function's identity is the watcher's
 * identity (like a Java `Watcher` object).
 *
 * Invariants:
 * - Registration happens when the **reply** arrives (`register*` is called by the connection
 *   with the reply's code): exists → data table if OK, exist table if NONODE; getData →
 *   data table, getChildren[2] → child table, only if OK; addWatch → persistent tables if OK.
 * - `materialize` applies the dispatch table: NodeCreated/NodeDataChanged take (and remove)
 *   data + exist watchers; NodeChildrenChanged the child watchers; NodeDeleted data + exist +
 *   child watchers; plus persistent watchers of the path and recursive watchers of the path
 *   and every ancestor (recursive ones never for NodeChildrenChanged). A watcher appears
 *   once in the result however many ways it was registered.
 * - A None-type (session state) event goes to the default watcher and to every registered
 *   watcher, and removes nothing (3.8 default: `disableAutoWatchReset=false`).
 * - Iteration order is insertion order (default watcher first), so delivery is
 *   deterministic where Java's HashSet order is not.
 */
import { Code } from "../proto/error-code.js";
import { EventType, WatcherType, AddWatchMode } from "../proto/records.js";
import { KeeperException } from "./keeper-exception.js";

export interface WatchedEvent {
  /** `Watcher.Event.EventType` number (`EventType.NodeCreated`, …; None = −1). */
  type: number;
  /** `Watcher.Event.KeeperState` number (`KeeperState.SyncConnected`, …). */
  state: number;
  /** Client path (chroot stripped); null for session-state events. */
  path: string | null;
}

export type Watcher = (event: WatchedEvent) => void;

type Table = Map<string, Set<Watcher>>;

/** The watch tables whose paths go into SetWatches / SetWatches2 after a reconnect. */
export interface WatchLists {
  dataWatches: string[];
  existWatches: string[];
  childWatches: string[];
  persistentWatches: string[];
  persistentRecursiveWatches: string[];
}

/** Which table a reply registers its watcher in (Java `WatchRegistration` subclasses). */
export type WatchRegistrationKind = "exists" | "data" | "child" | "persistent" | "persistentRecursive";

export interface WatchRegistration {
  kind: WatchRegistrationKind;
  clientPath: string;
  watcher: Watcher;
}

/** Removed watchers grouped by the event type they are told with (Java `Map<EventType, Set<Watcher>>`). */
export interface RemovedWatchers {
  dataRemoved: Set<Watcher>;
  childRemoved: Set<Watcher>;
  persistentRemoved: Set<Watcher>;
}

export class ZKWatchManager {
  readonly dataWatches: Table = new Map();
  readonly existWatches: Table = new Map();
  readonly childWatches: Table = new Map();
  readonly persistentWatches: Table = new Map();
  readonly persistentRecursiveWatches: Table = new Map();

  constructor(public defaultWatcher: Watcher | undefined) {}

  /** Called with the reply code of the request that asked for the watch (`WatchRegistration.register`). */
  register(reg: WatchRegistration, rc: number): void {
    const table = this.tableFor(reg.kind, rc);
    if (table === undefined) return;
    let set = table.get(reg.clientPath);
    if (set === undefined) table.set(reg.clientPath, (set = new Set()));
    set.add(reg.watcher);
  }

  private tableFor(kind: WatchRegistrationKind, rc: number): Table | undefined {
    switch (kind) {
      case "exists":
        if (rc === Code.OK) return this.dataWatches;
        return rc === Code.NONODE ? this.existWatches : undefined;
      case "data":
        return rc === Code.OK ? this.dataWatches : undefined;
      case "child":
        return rc === Code.OK ? this.childWatches : undefined;
      case "persistent":
        return rc === Code.OK ? this.persistentWatches : undefined;
      case "persistentRecursive":
        return rc === Code.OK ? this.persistentRecursiveWatches : undefined;
    }
  }

  /** The watchers an event goes to, removing one-shot watches that fire (`materialize`). */
  materialize(type: number, clientPath: string | null): Set<Watcher> {
    const result = new Set<Watcher>();
    if (type === EventType.None || clientPath === null) {
      if (this.defaultWatcher !== undefined) result.add(this.defaultWatcher);
      for (const table of this.allTables()) for (const set of table.values()) addAll(result, set);
      return result;
    }
    switch (type) {
      case EventType.NodeCreated:
      case EventType.NodeDataChanged:
        take(this.dataWatches, clientPath, result);
        take(this.existWatches, clientPath, result);
        break;
      case EventType.NodeChildrenChanged:
        take(this.childWatches, clientPath, result);
        break;
      case EventType.NodeDeleted:
        take(this.dataWatches, clientPath, result);
        take(this.existWatches, clientPath, result);
        take(this.childWatches, clientPath, result);
        break;
      default:
        return result; // an event type the server never sends for a path: nobody is told
    }
    // Empty tables (no persistent watches: the common case) skip the look-up and the ancestor walk.
    if (this.persistentWatches.size > 0) addAll(result, this.persistentWatches.get(clientPath));
    if (type !== EventType.NodeChildrenChanged && this.persistentRecursiveWatches.size > 0) {
      for (const p of pathAndAncestors(clientPath)) addAll(result, this.persistentRecursiveWatches.get(p));
    }
    return result;
  }

  /** Paths for SetWatches / SetWatches2, in table insertion order. */
  watchLists(): WatchLists {
    return {
      dataWatches: [...this.dataWatches.keys()],
      existWatches: [...this.existWatches.keys()],
      childWatches: [...this.childWatches.keys()],
      persistentWatches: [...this.persistentWatches.keys()],
      persistentRecursiveWatches: [...this.persistentRecursiveWatches.keys()],
    };
  }

  /** True if `watcher` (or any watcher, when undefined) waits on `path` with `type` (`containsWatcher`). */
  containsWatcher(path: string, watcher: Watcher | undefined, type: number): boolean {
    const tables: Table[] =
      type === WatcherType.Children
        ? [this.childWatches, this.persistentWatches, this.persistentRecursiveWatches]
        : type === WatcherType.Data
          ? [this.dataWatches, this.existWatches, this.persistentWatches, this.persistentRecursiveWatches]
          : this.allTables();
    return tables.some((t) => contains(t, path, watcher));
  }

  /**
   * `removeWatcher`: after the server answered a removeWatches/checkWatches with `rc`. Throws
   * NOWATCHER if nothing matches, or the server's error when not `local`. With `local`, the
   * watchers go whatever the server said (the server may be unreachable).
   */
  removeWatcher(path: string, watcher: Watcher | undefined, type: number, local: boolean, rc: number): RemovedWatchers {
    if (!this.containsWatcher(path, watcher, type)) throw new KeeperException(Code.NOWATCHER, path);
    if (!local && rc !== Code.OK) throw new KeeperException(rc, path);
    const removed: RemovedWatchers = { dataRemoved: new Set(), childRemoved: new Set(), persistentRemoved: new Set() };
    let any = false;
    const from = (table: Table, into: Set<Watcher>) => {
      any = removeFrom(table, path, watcher, into) || any;
    };
    if (type === WatcherType.Children || type === WatcherType.Any) from(this.childWatches, removed.childRemoved);
    if (type === WatcherType.Data || type === WatcherType.Any) {
      from(this.dataWatches, removed.dataRemoved);
      from(this.existWatches, removed.dataRemoved);
    }
    if (type === WatcherType.Any) {
      from(this.persistentWatches, removed.persistentRemoved);
      from(this.persistentRecursiveWatches, removed.persistentRemoved);
    }
    if (!any) throw new KeeperException(Code.NOWATCHER, path);
    return removed;
  }

  private allTables(): Table[] {
    return [this.dataWatches, this.existWatches, this.childWatches, this.persistentWatches, this.persistentRecursiveWatches];
  }
}

/** The registration kind for an addWatch mode. */
export function addWatchKind(mode: number): WatchRegistrationKind {
  return mode === AddWatchMode.PERSISTENT_RECURSIVE ? "persistentRecursive" : "persistent";
}

function addAll(into: Set<Watcher>, from: Set<Watcher> | undefined): void {
  if (from !== undefined) for (const w of from) into.add(w);
}

function take(table: Table, path: string, into: Set<Watcher>): void {
  if (table.size === 0) return; // no look-up (and no hashing of the path) in an empty table
  const set = table.get(path);
  if (set === undefined) return;
  table.delete(path);
  addAll(into, set);
}

function contains(table: Table, path: string, watcher: Watcher | undefined): boolean {
  const set = table.get(path);
  if (set === undefined) return false;
  return watcher === undefined ? set.size > 0 : set.has(watcher);
}

function removeFrom(table: Table, path: string, watcher: Watcher | undefined, into: Set<Watcher>): boolean {
  const set = table.get(path);
  if (set === undefined) return false;
  if (watcher === undefined) {
    table.delete(path);
    addAll(into, set);
    return true;
  }
  if (!set.delete(watcher)) return false;
  into.add(watcher);
  if (set.size === 0) table.delete(path);
  return true;
}

/** `/a/b` → `/a/b`, `/a`, `/` (Java `PathParentIterator.forAll`). */
export function pathAndAncestors(path: string): string[] {
  const out = [path];
  let p = path;
  while (p !== "/") {
    const i = p.lastIndexOf("/");
    p = i <= 0 ? "/" : p.substring(0, i);
    out.push(p);
  }
  return out;
}
