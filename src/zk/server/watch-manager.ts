/**
 * Server-side watch registrations (`server/watch/WatchManager`, docs/zookeeper.md §2.2–2.3, §2.7).
 *
 * A `WatchTable` is one Java `WatchManager` (path → watching connections, with a mode per
 * (connection, path)); `WatchManager` holds the two tables a DataTree has — data watches and
 * child watches — and the operations the DataTree and FinalRequestProcessor need.
 *
 * Invariants:
 * - One entry per connection per path per table; the mode of that entry is the *last* one
 *   registered (as in 3.8's WatcherModeManager: a standard watch set after a persistent one on
 *   the same path turns it back into a standard watch).
 * - A trigger collects connections watching the exact path (any mode) plus connections holding
 *   a PERSISTENT_RECURSIVE watch on an ancestor; recursive entries never receive
 *   NodeChildrenChanged. Each connection is notified at most once per trigger, in ascending
 *   `watcherId` order (Java uses hash-set order; ours is a documented total order).
 * - STANDARD entries at the exact path are removed as they fire; persistent ones stay.
 * - `suppress` (delete: child table after data table) skips delivery to connections already
 *   notified, but the standard entries are still consumed.
 */
import { EventType, KeeperState, WatcherType, type WatcherEvent } from "../proto/records.js";
import type { WatchesReport } from "./zoo-keeper-server-bean.js";

/** What the server connection implements to receive notifications. */
export interface ServerWatcher {
  /** `zxid` is the triggering txn's zxid, or −1 for setWatches catch-up events. */
  process(event: WatcherEvent, zxid: bigint): void;
  readonly watcherId: number;
  /** The session it serves, for dumps (`wchc`, `wchp`); absent or 0 for none. */
  readonly sessionId?: bigint;
  /** Its connection has closed (3.8's `ServerCnxn.isStale`): no watch is added for it. */
  readonly isStale?: boolean;
}

export type WatcherMode = "STANDARD" | "PERSISTENT" | "PERSISTENT_RECURSIVE";

export function isPersistentMode(mode: WatcherMode): boolean {
  return mode !== "STANDARD";
}

/** Ancestors of a path starting with the path itself: `/a/b`, `/a`, `/`. */
function* selfAndAncestors(path: string): Generator<string> {
  let p = path;
  for (;;) {
    yield p;
    if (p === "/" || p === "") return;
    const lastSlash = p.lastIndexOf("/");
    p = lastSlash <= 0 ? "/" : p.substring(0, lastSlash);
  }
}

function byWatcherId(a: ServerWatcher, b: ServerWatcher): number {
  return a.watcherId - b.watcherId;
}

/** One watch table: Java's `WatchManager`. */
export class WatchTable implements WatchesReport {
  private readonly watchTable = new Map<string, Set<ServerWatcher>>();
  private readonly watch2Paths = new Map<ServerWatcher, Set<string>>();
  /** Non-standard modes only; absent means STANDARD (Java's WatcherModeManager). */
  private readonly modes = new Map<ServerWatcher, Map<string, WatcherMode>>();
  private recursiveCount = 0;

  /** `keepStandard`: a canary only — standard entries are not consumed when they fire. */
  constructor(private readonly keepStandard = false) {}

  addWatch(path: string, watcher: ServerWatcher, mode: WatcherMode = "STANDARD"): boolean {
    // 3.8's isDeadWatcher: a watched read answered after its connection closed registers
    // nothing (the connection's watches went at its close, and nothing would remove this one).
    if (watcher.isStale === true) return false;
    let set = this.watchTable.get(path);
    if (set === undefined) {
      set = new Set();
      this.watchTable.set(path, set);
    }
    set.add(watcher);
    let paths = this.watch2Paths.get(watcher);
    if (paths === undefined) {
      paths = new Set();
      this.watch2Paths.set(watcher, paths);
    }
    this.setMode(watcher, path, mode);
    const added = !paths.has(path);
    paths.add(path);
    return added;
  }

  getMode(watcher: ServerWatcher, path: string): WatcherMode {
    return this.modes.get(watcher)?.get(path) ?? "STANDARD";
  }

  private setMode(watcher: ServerWatcher, path: string, mode: WatcherMode): void {
    const old = this.getMode(watcher, path);
    if (old === "PERSISTENT_RECURSIVE") this.recursiveCount--;
    if (mode === "PERSISTENT_RECURSIVE") this.recursiveCount++;
    let m = this.modes.get(watcher);
    if (mode === "STANDARD") {
      m?.delete(path);
      if (m !== undefined && m.size === 0) this.modes.delete(watcher);
      return;
    }
    if (m === undefined) {
      m = new Map();
      this.modes.set(watcher, m);
    }
    m.set(path, mode);
  }

  /** Connection closed: drop every registration of this watcher. */
  removeWatcher(watcher: ServerWatcher): void {
    const paths = this.watch2Paths.get(watcher);
    if (paths === undefined) return;
    this.watch2Paths.delete(watcher);
    for (const p of paths) {
      const set = this.watchTable.get(p);
      set?.delete(watcher);
      if (set !== undefined && set.size === 0) this.watchTable.delete(p);
      this.setMode(watcher, p, "STANDARD");
    }
  }

  /** removeWatches for one path: true if this connection had an entry. */
  removeWatch(path: string, watcher: ServerWatcher): boolean {
    const paths = this.watch2Paths.get(watcher);
    if (paths === undefined || !paths.delete(path)) return false;
    if (paths.size === 0) this.watch2Paths.delete(watcher);
    const set = this.watchTable.get(path);
    if (set === undefined || !set.delete(watcher)) return false;
    if (set.size === 0) this.watchTable.delete(path);
    this.setMode(watcher, path, "STANDARD");
    return true;
  }

  /**
   * checkWatches: does *this connection* hold an entry at `path`? (3.8's code answers true when
   * any connection watches the path; we follow the per-connection rule of docs/zookeeper.md §2.7.)
   */
  containsWatcher(path: string, watcher: ServerWatcher): boolean {
    return this.watchTable.get(path)?.has(watcher) ?? false;
  }

  /**
   * Fires `type` at `path`; returns the connections that matched (delivered or suppressed),
   * so a following trigger can suppress them, or null when none matched.
   */
  triggerWatch(path: string, type: number, zxid: bigint, suppress?: ReadonlySet<ServerWatcher> | null): Set<ServerWatcher> | null {
    // Most changes touch unwatched paths: nothing to collect.
    if (this.recursiveCount === 0 && !this.watchTable.has(path)) return null;
    const matched = this.collect(path, type);
    if (matched.size === 0) return null;
    const event: WatcherEvent = { type, state: KeeperState.SyncConnected, path };
    for (const w of [...matched].sort(byWatcherId)) {
      if (suppress?.has(w) === true) continue;
      w.process({ type: event.type, state: event.state, path: event.path }, zxid);
    }
    return matched;
  }

  private collect(path: string, type: number): Set<ServerWatcher> {
    const matched = new Set<ServerWatcher>();
    const levels = this.recursiveCount > 0 ? selfAndAncestors(path) : [path];
    let atParent = false;
    for (const localPath of levels) {
      const set = this.watchTable.get(localPath);
      if (set !== undefined) {
        for (const w of [...set]) {
          const mode = this.getMode(w, localPath);
          if (mode === "PERSISTENT_RECURSIVE") {
            if (type !== EventType.NodeChildrenChanged) matched.add(w);
          } else if (!atParent) {
            matched.add(w);
            if (mode === "STANDARD" && !this.keepStandard) this.consume(localPath, w, set);
          }
        }
        if (set.size === 0) this.watchTable.delete(localPath);
      }
      atParent = true;
    }
    return matched;
  }

  private consume(path: string, w: ServerWatcher, set: Set<ServerWatcher>): void {
    set.delete(w);
    const paths = this.watch2Paths.get(w);
    paths?.delete(path);
    if (paths !== undefined && paths.size === 0) this.watch2Paths.delete(w);
  }

  /** Number of (path, connection) entries. */
  size(): number {
    let n = 0;
    for (const s of this.watchTable.values()) n += s.size;
    return n;
  }

  pathCount(): number {
    return this.watchTable.size;
  }

  watchers(): ServerWatcher[] {
    return [...this.watch2Paths.keys()].sort(byWatcherId);
  }

  /** The table itself, path → watchers in insertion order (read-only; for `wchp`, `wchs`). */
  watchedPaths(): ReadonlyMap<string, ReadonlySet<ServerWatcher>> {
    return this.watchTable;
  }

  /** Watcher → its paths in insertion order (read-only; for `wchc`, `wchs`). */
  pathsByWatcher(): ReadonlyMap<ServerWatcher, ReadonlySet<string>> {
    return this.watch2Paths;
  }

  /** Paths watched by one connection, sorted (for dumps and tests). */
  pathsOf(watcher: ServerWatcher): string[] {
    return [...(this.watch2Paths.get(watcher) ?? [])].sort();
  }
}

export interface WatchStats {
  dataWatches: number;
  childWatches: number;
  /** Distinct connections holding any watch. */
  connections: number;
  /** Distinct watched paths across both tables. */
  paths: number;
}

/** The pair of tables a DataTree keeps. */
export class WatchManager {
  readonly dataWatches: WatchTable;
  readonly childWatches: WatchTable;

  /** `keepStandardWatches`: a canary only (a standard watch that fires on every later change too). */
  constructor(keepStandardWatches = false) {
    this.dataWatches = new WatchTable(keepStandardWatches);
    this.childWatches = new WatchTable(keepStandardWatches);
  }

  /** addWatch(PERSISTENT | PERSISTENT_RECURSIVE): registered in both tables, like Java. */
  addPersistentWatch(path: string, watcher: ServerWatcher, mode: Exclude<WatcherMode, "STANDARD">): void {
    this.dataWatches.addWatch(path, watcher, mode);
    this.childWatches.addWatch(path, watcher, mode);
  }

  removeWatcher(watcher: ServerWatcher): void {
    this.dataWatches.removeWatcher(watcher);
    this.childWatches.removeWatcher(watcher);
  }

  /** checkWatches; `type` is a 3.8 WatcherType (Children 1, Data 2, Any 3). */
  containsWatcher(path: string, type: number, watcher: ServerWatcher): boolean {
    const child = this.childWatches.containsWatcher(path, watcher);
    const data = this.dataWatches.containsWatcher(path, watcher);
    return pickByType(type, child, data);
  }

  /** removeWatches; for Any both tables are cleared. */
  removeWatch(path: string, type: number, watcher: ServerWatcher): boolean {
    const wantsChild = type === WatcherType.Children || type === WatcherType.Any;
    const wantsData = type === WatcherType.Data || type === WatcherType.Any;
    const child = wantsChild ? this.childWatches.removeWatch(path, watcher) : false;
    const data = wantsData ? this.dataWatches.removeWatch(path, watcher) : false;
    return child || data;
  }

  stats(): WatchStats {
    const conns = new Set([...this.dataWatches.watchers(), ...this.childWatches.watchers()]);
    const paths = new Set<string>();
    for (const w of conns) {
      for (const p of this.dataWatches.pathsOf(w)) paths.add(p);
      for (const p of this.childWatches.pathsOf(w)) paths.add(p);
    }
    return {
      dataWatches: this.dataWatches.size(),
      childWatches: this.childWatches.size(),
      connections: conns.size,
      paths: paths.size,
    };
  }
}

function pickByType(type: number, child: boolean, data: boolean): boolean {
  switch (type) {
    case WatcherType.Children:
      return child;
    case WatcherType.Data:
      return data;
    case WatcherType.Any:
      return child || data;
    default:
      return false;
  }
}

/** True for the WatcherType numbers a 3.8 server accepts (others are MARSHALLINGERROR). */
export function isKnownWatcherType(type: number): boolean {
  return type === WatcherType.Children || type === WatcherType.Data || type === WatcherType.Any;
}
