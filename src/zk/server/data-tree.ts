/**
 * The replicated state machine: `DataTree` (+ `DataNode`, `StatPersisted`, `EphemeralType`),
 * docs/zookeeper.md §1.2, §1.6–1.7, §2.3, §2.6, §3.3 (sessions), §4 (multi apply).
 *
 * `processTxn(header, txn)` applies one committed txn exactly like `DataTree.processTxn`:
 * every replica that applies the same txns in the same order reaches the same tree, the same
 * `digest()` and fires the same watches (through its own WatchManager) while applying.
 *
 * Invariants:
 * - Paths are keys of `nodes`; `"/"` is the root and the Java alias `""` resolves to it.
 * - `stat.cversion` is the *stored* cversion (child creations); clients see
 *   `2 * stored − numChildren`. `numChildren` and `dataLength` are derived.
 * - A parent's cversion/pzxid move on create only when the txn's parentCVersion is larger than
 *   the stored one; on delete pzxid moves only if the zxid is larger (fuzzy-snapshot replay).
 * - Every NORMAL ephemeral is in `ephemerals[owner]`; containers and TTL nodes are in
 *   `containers` / `ttls`.
 * - Sessions (id → negotiated timeout) are replicated state and live here as
 *   `sessionsWithTimeouts` (Java keeps them in ZKDatabase): createSession adds, closeSession
 *   removes; snapshots carry them.
 * - ephemeralOwner values are Java longs held as signed 64-bit bigints: 0 = persistent,
 *   Long.MIN_VALUE = container, 0xFF00_0000_0000_0000 | ttl = TTL node (only when extended
 *   types are enabled), anything else = the owning session. Clients see 0 unless NORMAL.
 * - Orders: getChildren lists a node's children in Java HashSet order (java-hash-set.ts). A
 *   session's ephemerals are a Java `HashSet<String>` (default capacity 16) too: getEphemerals
 *   and a closeSession's paths2Delete come in the order of its clone, killSession deletes the
 *   leftovers in the set's own order, as 3.8 does. getContainers and getTtls are sorted by UTF-16
 *   code unit (JS default sort); a watch trigger notifies in watcherId order.
 * - Node data may be `null` (Jute's buffer length −1, e.g. the Java client's
 *   `create(path, null, …)`): it is stored and returned as null, as in Java; it counts as 0 bytes
 *   (dataLength, approximateDataSize, quota usage) and the digest hashes it like empty data
 *   (Java's `DigestCalculator` skips a null array).
 */
import { Code } from "../proto/error-code.js";
import { OpCode } from "../proto/op-code.js";
import {
  AddWatchMode,
  EventType,
  KeeperState,
  Perms,
  int32,
  type ACL,
  type SessionId,
  type Stat,
  type Zxid,
} from "../proto/records.js";
import type { Txn, TxnHeader } from "../proto/txn.js";
import { copyAcl } from "./acl.js";
import { CONFIG_PATH, QUOTA_PATH, ZOOKEEPER_PATH, basename, childPath, javaParentOf } from "../proto/path-utils.js";
import { WatchManager, type ServerWatcher } from "./watch-manager.js";
import { TreeDigest } from "./digest-calculator.js";
import { JavaHashSet } from "./java-hash-set.js";

export interface StatPersisted {
  czxid: Zxid;
  mzxid: Zxid;
  ctime: number;
  mtime: number;
  version: number;
  /** Stored cversion: number of child creations (see header). */
  cversion: number;
  aversion: number;
  ephemeralOwner: SessionId;
  pzxid: Zxid;
}

export function createStatPersisted(zxid: Zxid, timeMs: number, ephemeralOwner: SessionId): StatPersisted {
  return {
    czxid: zxid,
    mzxid: zxid,
    ctime: timeMs,
    mtime: timeMs,
    version: 0,
    cversion: 0,
    aversion: 0,
    ephemeralOwner,
    pzxid: zxid,
  };
}

export function emptyStatPersisted(): StatPersisted {
  return createStatPersisted(0n, 0, 0n);
}

export function copyStatPersisted(s: StatPersisted): StatPersisted {
  return {
    czxid: s.czxid,
    mzxid: s.mzxid,
    ctime: s.ctime,
    mtime: s.mtime,
    version: s.version,
    cversion: s.cversion,
    aversion: s.aversion,
    ephemeralOwner: s.ephemeralOwner,
    pzxid: s.pzxid,
  };
}

// ---- EphemeralType -------------------------------------------------------------------

export type EphemeralType = "VOID" | "NORMAL" | "CONTAINER" | "TTL";

/** `EphemeralType.CONTAINER_EPHEMERAL_OWNER` = Long.MIN_VALUE. */
export const CONTAINER_EPHEMERAL_OWNER: SessionId = -(1n << 63n);
const EXTENDED_MASK = 0xff00_0000_0000_0000n;
const RESERVED_BITS_MASK = 0x00ff_ff00_0000_0000n;
const TTL_VALUE_MASK = 0x0000_00ff_ffff_ffffn;
const LONG_TOP_BIT = 1n << 63n;

function unsigned(owner: SessionId): bigint {
  return BigInt.asUintN(64, owner);
}

export function ephemeralTypeOf(owner: SessionId, extendedTypesEnabled: boolean): EphemeralType {
  // The common owners first, by compare alone (no BigInt allocated): 0 is VOID, and a positive
  // long is a session (TTL and CONTAINER owners have the top bit set, so they are negative).
  if (owner === 0n) return "VOID";
  if (owner > 0n && owner < LONG_TOP_BIT) return "NORMAL";
  const u = unsigned(owner);
  if (extendedTypesEnabled && (u & EXTENDED_MASK) === EXTENDED_MASK && (u & RESERVED_BITS_MASK) === 0n) return "TTL";
  if (u === unsigned(CONTAINER_EPHEMERAL_OWNER)) return "CONTAINER";
  return u === 0n ? "VOID" : "NORMAL";
}

/** `EphemeralType.TTL.toEphemeralOwner(ttl)`; the caller has validated 0 < ttl ≤ 2^40−1. */
export function ttlEphemeralOwner(ttlMs: number): SessionId {
  return BigInt.asIntN(64, EXTENDED_MASK | BigInt(ttlMs));
}

export function ttlOfEphemeralOwner(owner: SessionId): number {
  return Number(unsigned(owner) & TTL_VALUE_MASK);
}

// ---- DataNode ------------------------------------------------------------------------

export class DataNode {
  /**
   * Child names (not paths) in a Java `HashSet<String>(8)`'s iteration order, which getChildren
   * and snapshots expose as ZooKeeper does (java-hash-set.ts).
   */
  readonly children = new JavaHashSet(8);
  /** This node's current contribution to the tree digest (maintained by `TreeDigest`). */
  digestLo = 0;
  digestHi = 0;
  /** The digest's cached lanes of this node's path (see `hashNode` in digest-calculator.ts). */
  hashedPath: string | undefined = undefined;
  pathH1 = 0;
  pathH2 = 0;

  constructor(
    public data: Uint8Array | null,
    public acl: ACL[],
    public stat: StatPersisted,
  ) {}

  /** The client-visible Stat (`DataNode.copyStat`). */
  copyStat(extendedTypesEnabled: boolean): Stat {
    const numChildren = this.children.size;
    const owner = this.stat.ephemeralOwner;
    return {
      czxid: this.stat.czxid,
      mzxid: this.stat.mzxid,
      ctime: this.stat.ctime,
      mtime: this.stat.mtime,
      version: this.stat.version,
      cversion: int32(this.stat.cversion * 2 - numChildren),
      aversion: this.stat.aversion,
      ephemeralOwner: ephemeralTypeOf(owner, extendedTypesEnabled) === "NORMAL" ? owner : 0n,
      dataLength: this.data?.length ?? 0,
      numChildren,
      pzxid: this.stat.pzxid,
    };
  }
}

// ---- DataTree ------------------------------------------------------------------------

/** `DataTree.ProcessTxnResult`. */
export interface ProcessTxnResult {
  clientId: SessionId;
  cxid: number;
  zxid: Zxid;
  /** The (sub-)txn header type: an OpCode, −1 for error txns and failed multi sub-ops. */
  type: number;
  err: number;
  path: string | null;
  stat: Stat | null;
  multiResult: ProcessTxnResult[] | null;
}

export interface DataTreeOptions {
  /** `zookeeper.extendedTypesEnabled`: TTL ephemeralOwner encodings are recognised. */
  extendedTypesEnabled?: boolean;
  /**
   * The fuzzy-snapshot replay repairs (default true): create and delete never move a parent's
   * cversion/pzxid backwards (ZOOKEEPER-3249, -3145), and a create that meets NODEEXISTS sets
   * them from the txn (ZOOKEEPER-1046). false only for a canary that must be caught.
   */
  fuzzyReplayFixups?: boolean;
  /** A canary only: standard watches are not consumed when they fire (default false). */
  keepStandardWatches?: boolean;
  /** A canary only: a delete fires NodeDataChanged at the node's data watches instead of NodeDeleted (default false). */
  deleteFiresDataChanged?: boolean;
  /** A canary only: a closed connection's watches are kept (default false). */
  watchLeakCanary?: boolean;
  /** A canary only: getEphemerals ignores its prefix and lists every ephemeral of the session (default false). */
  ephemeralsPrefixIgnored?: boolean;
}

export interface SnapshotNode {
  path: string;
  data: Uint8Array | null;
  acl: ACL[];
  stat: StatPersisted;
}

/** A deep-copied, self-contained image of the replicated state (bigints and bytes inside). */
export interface DataTreeSnapshot {
  lastProcessedZxid: Zxid;
  /** Depth first from `/` (every parent precedes its children), children in their set's order. */
  nodes: SnapshotNode[];
  /** Sorted by session id. */
  sessions: { sessionId: SessionId; timeoutMs: number }[];
}

export const QUOTA_LIMIT_NODE = "zookeeper_limits";
export const QUOTA_STAT_NODE = "zookeeper_stats";

const EMPTY = new Uint8Array(0);

function openAcl(): ACL[] {
  return [{ perms: Perms.ALL, id: { scheme: "world", id: "anyone" } }];
}

/** A path as the tree keys it (and as Java reports it in watch events): the `""` alias is `/`. */
function nodeKey(path: string): string {
  return path === "" ? "/" : path;
}

export class DataTree {
  private readonly nodes = new Map<string, DataNode>();
  private readonly ephemerals = new Map<SessionId, JavaHashSet>();
  private readonly containers = new Set<string>();
  private readonly ttls = new Set<string>();
  /** Replicated sessions: id → negotiated timeout (ms). See the header. */
  private readonly sessions = new Map<SessionId, number>();
  /** Read-only: only createSession/closeSession txns change it (the digest follows them). */
  get sessionsWithTimeouts(): ReadonlyMap<SessionId, number> {
    return this.sessions;
  }
  readonly watches: WatchManager;
  /** Kept current on every change (see digest-calculator.ts). */
  private treeDigest = new TreeDigest();
  lastProcessedZxid: Zxid = 0n;
  readonly extendedTypesEnabled: boolean;
  private readonly replayFixups: boolean;
  /** The event a delete fires at the node's data watches: NodeDeleted (a canary: NodeDataChanged). */
  private readonly deletedEventType: number;
  private readonly watchLeakCanary: boolean;
  private readonly prefixIgnoredCanary: boolean;

  constructor(opts: DataTreeOptions = {}) {
    this.extendedTypesEnabled = opts.extendedTypesEnabled ?? false;
    this.replayFixups = opts.fuzzyReplayFixups ?? true;
    this.watches = new WatchManager(opts.keepStandardWatches === true);
    this.deletedEventType = opts.deleteFiresDataChanged === true ? EventType.NodeDataChanged : EventType.NodeDeleted;
    this.watchLeakCanary = opts.watchLeakCanary === true;
    this.prefixIgnoredCanary = opts.ephemeralsPrefixIgnored === true;
    const root = new DataNode(EMPTY, openAcl(), emptyStatPersisted());
    const proc = new DataNode(EMPTY, openAcl(), emptyStatPersisted());
    const quota = new DataNode(EMPTY, openAcl(), emptyStatPersisted());
    // /zookeeper/config: READ for anyone, aversion −1 (internal setACL with version −1).
    const config = new DataNode(EMPTY, [{ perms: Perms.READ, id: { scheme: "world", id: "anyone" } }], emptyStatPersisted());
    config.stat.aversion = -1;
    root.children.add(basename(ZOOKEEPER_PATH));
    proc.children.add(basename(QUOTA_PATH));
    proc.children.add(basename(CONFIG_PATH));
    this.putNode("/", root);
    this.putNode(ZOOKEEPER_PATH, proc);
    this.putNode(QUOTA_PATH, quota);
    this.putNode(CONFIG_PATH, config);
  }

  // Every change to a node goes through these, so the tree digest stays current.
  /**
   * Java's `NodeHashMapImpl.put`: a node that replaces one still mapped at its path takes the
   * old one's contribution out of the digest. That happens when a log is replayed over a fuzzy
   * snapshot: the snapshot may hold a child created after a delete of its parent that the
   * replay applies (deleteNode removes the parent's entry only), and the child's own create,
   * replayed later, puts a new node at the orphan's path.
   */
  private putNode(path: string, node: DataNode): void {
    const old = this.nodes.get(path);
    this.nodes.set(path, node);
    this.treeDigest.addNode(path, node);
    if (old !== undefined && old !== node) this.treeDigest.removeNode(old);
  }
  private removeNode(path: string, node: DataNode): void {
    this.nodes.delete(path);
    this.treeDigest.removeNode(node);
  }
  /** Java's `NodeHashMap.preChange`: the node's old contribution leaves the digest. */
  private preChange(node: DataNode): void {
    this.treeDigest.removeNode(node);
  }
  /** Java's `NodeHashMap.postChange`: its new contribution enters. */
  private postChange(path: string, node: DataNode): void {
    this.treeDigest.addNode(path, node);
  }
  private putSession(sessionId: SessionId, timeoutMs: number): void {
    this.removeSession(sessionId);
    this.sessions.set(sessionId, timeoutMs);
    this.treeDigest.addSession(sessionId, timeoutMs);
  }
  private removeSession(sessionId: SessionId): void {
    const timeoutMs = this.sessions.get(sessionId);
    if (timeoutMs === undefined) return;
    this.sessions.delete(sessionId);
    this.treeDigest.removeSession(sessionId, timeoutMs);
  }

  // ---- node access ---------------------------------------------------------------------

  /** The node at `path`; `""` is the Java alias of the root. */
  getNode(path: string): DataNode | undefined {
    return this.nodes.get(nodeKey(path));
  }

  /** Like Java's `getNodeCount`, which counts the `""` root alias too (5 for a fresh tree). */
  nodeCount(): number {
    return this.nodes.size + 1;
  }

  /** `approximateDataSize`: Σ (path length + data length), the alias contributing 0. */
  approximateDataSize(): number {
    let size = 0;
    for (const [path, node] of this.nodes) size += path.length + (node.data?.length ?? 0);
    return size;
  }

  private statOf(node: DataNode): Stat {
    return node.copyStat(this.extendedTypesEnabled);
  }

  ephemeralTypeOf(owner: SessionId): EphemeralType {
    return ephemeralTypeOf(owner, this.extendedTypesEnabled);
  }

  // ---- mutations (applied txns) --------------------------------------------------------

  /** `DataTree.createNode`: returns OK, NONODE (no parent) or NODEEXISTS. Fires watches. */
  createNode(
    path: string,
    data: Uint8Array | null,
    acl: readonly ACL[],
    ephemeralOwner: SessionId,
    parentCVersion: number,
    zxid: Zxid,
    timeMs: number,
  ): number {
    const parentName = javaParentOf(path);
    const childName = basename(path);
    const parent = this.getNode(parentName);
    if (parent === undefined) return Code.NONODE;
    if (parent.children.has(childName)) return Code.NODEEXISTS;
    const newCversion = parentCVersion === -1 ? int32(parent.stat.cversion + 1) : parentCVersion;
    const parentPath = nodeKey(parentName);
    this.preChange(parent);
    // Replaying a create over a fuzzy snapshot must not move cversion/pzxid backwards.
    if (newCversion > parent.stat.cversion || !this.replayFixups) {
      parent.stat.cversion = newCversion;
      parent.stat.pzxid = zxid;
    }
    const child = new DataNode(copyData(data), acl.map(copyAcl), createStatPersisted(zxid, timeMs, ephemeralOwner));
    parent.children.add(childName);
    this.postChange(parentPath, parent);
    this.putNode(path, child);
    this.indexOwner(path, ephemeralOwner);
    this.watches.dataWatches.triggerWatch(path, EventType.NodeCreated, zxid);
    this.watches.childWatches.triggerWatch(parentPath, EventType.NodeChildrenChanged, zxid);
    return Code.OK;
  }

  private indexOwner(path: string, owner: SessionId): void {
    switch (this.ephemeralTypeOf(owner)) {
      case "CONTAINER":
        this.containers.add(path);
        return;
      case "TTL":
        this.ttls.add(path);
        return;
      case "NORMAL": {
        let set = this.ephemerals.get(owner);
        if (set === undefined) {
          set = new JavaHashSet();
          this.ephemerals.set(owner, set);
        }
        set.add(path);
        return;
      }
      case "VOID":
        return;
    }
  }

  private unindexOwner(path: string, owner: SessionId): void {
    switch (this.ephemeralTypeOf(owner)) {
      case "CONTAINER":
        this.containers.delete(path);
        return;
      case "TTL":
        this.ttls.delete(path);
        return;
      case "NORMAL":
        this.ephemerals.get(owner)?.delete(path);
        return;
      case "VOID":
        return;
    }
  }

  /** `DataTree.deleteNode`: returns OK or NONODE. Fires NodeDeleted / NodeChildrenChanged. */
  deleteNode(path: string, zxid: Zxid): number {
    const parentName = javaParentOf(path);
    const parent = this.getNode(parentName);
    if (parent === undefined) return Code.NONODE;
    const parentPath = nodeKey(parentName);
    this.preChange(parent);
    parent.children.delete(basename(path));
    // Only a larger zxid moves pzxid (a replayed create may have set a higher one).
    if (zxid > parent.stat.pzxid || !this.replayFixups) parent.stat.pzxid = zxid;
    this.postChange(parentPath, parent);
    const node = this.nodes.get(path);
    if (node === undefined) return Code.NONODE;
    this.removeNode(path, node);
    this.unindexOwner(path, node.stat.ephemeralOwner);
    const processed = this.watches.dataWatches.triggerWatch(path, this.deletedEventType, zxid);
    this.watches.childWatches.triggerWatch(path, EventType.NodeDeleted, zxid, processed);
    this.watches.childWatches.triggerWatch(parentPath, EventType.NodeChildrenChanged, zxid);
    return Code.OK;
  }

  /** `DataTree.setData`: `version` is the new version computed at prep time. */
  setData(path: string, data: Uint8Array | null, version: number, zxid: Zxid, timeMs: number): Stat | null {
    const node = this.getNode(path);
    if (node === undefined) return null;
    this.preChange(node);
    node.data = copyData(data);
    node.stat.mtime = timeMs;
    node.stat.mzxid = zxid;
    node.stat.version = version;
    this.postChange(path, node);
    const stat = this.statOf(node);
    this.watches.dataWatches.triggerWatch(path, EventType.NodeDataChanged, zxid);
    return stat;
  }

  /** `DataTree.setACL`: only the aversion moves (mzxid/mtime unchanged). No watches. */
  setACL(path: string, acl: readonly ACL[], version: number): Stat | null {
    const node = this.getNode(path);
    if (node === undefined) return null;
    this.preChange(node);
    node.stat.aversion = version;
    node.acl = acl.map(copyAcl);
    this.postChange(path, node);
    return this.statOf(node);
  }

  /** `setCversionPzxid`: the NODEEXISTS-on-replay repair of a create. */
  private setCversionPzxid(path: string, newCversion: number, zxid: Zxid): number {
    const key = path.endsWith("/") ? path.slice(0, -1) : path;
    const node = this.getNode(key);
    if (node === undefined) return Code.NONODE;
    const cv = newCversion === -1 ? int32(node.stat.cversion + 1) : newCversion;
    if (cv > node.stat.cversion) {
      this.preChange(node);
      node.stat.cversion = cv;
      node.stat.pzxid = zxid;
      this.postChange(nodeKey(key), node);
    }
    return Code.OK;
  }

  // ---- processTxn ------------------------------------------------------------------------

  /** Applies one committed txn (docs/zookeeper.md §1.6, §2.3, §4). Never throws for a client's error. */
  processTxn(header: TxnHeader, txn: Txn): ProcessTxnResult {
    return this.applyTxn(header, txn, false);
  }

  private applyTxn(header: TxnHeader, txn: Txn, isSubTxn: boolean): ProcessTxnResult {
    const rc: ProcessTxnResult = {
      clientId: header.clientId,
      cxid: header.cxid,
      zxid: header.zxid,
      type: header.type,
      err: Code.OK,
      path: null,
      stat: null,
      multiResult: null,
    };
    this.applyBody(header, txn, rc);
    if (header.type === OpCode.create && rc.err === Code.NODEEXISTS && txn.kind === "CreateTxn" && this.replayFixups) {
      const err = this.setCversionPzxid(javaParentOf(txn.path), txn.parentCVersion, header.zxid);
      if (err !== Code.OK) rc.err = err;
    }
    if (!isSubTxn && rc.zxid > this.lastProcessedZxid) this.lastProcessedZxid = rc.zxid;
    return rc;
  }

  private applyBody(header: TxnHeader, txn: Txn, rc: ProcessTxnResult): void {
    const withStat = header.type !== OpCode.create;
    switch (txn.kind) {
      case "CreateTxn":
        this.applyCreate(rc, txn.path, txn.data, txn.acl, txn.ephemeral ? header.clientId : 0n, txn.parentCVersion, header, withStat);
        return;
      case "CreateContainerTxn":
        this.applyCreate(rc, txn.path, txn.data, txn.acl, CONTAINER_EPHEMERAL_OWNER, txn.parentCVersion, header, true);
        return;
      case "CreateTTLTxn":
        this.applyCreate(rc, txn.path, txn.data, txn.acl, ttlEphemeralOwner(txn.ttl), txn.parentCVersion, header, true);
        return;
      case "DeleteTxn":
        rc.path = txn.path;
        rc.err = this.deleteNode(txn.path, header.zxid);
        return;
      case "SetDataTxn":
        rc.path = txn.path;
        rc.stat = this.setData(txn.path, txn.data, txn.version, header.zxid, header.time);
        if (rc.stat === null) rc.err = Code.NONODE;
        return;
      case "SetACLTxn":
        rc.path = txn.path;
        rc.stat = this.setACL(txn.path, txn.acl, txn.version);
        if (rc.stat === null) rc.err = Code.NONODE;
        return;
      case "CheckVersionTxn":
        rc.path = txn.path;
        return;
      case "CreateSessionTxn":
        this.putSession(header.clientId, txn.timeOut);
        return;
      case "CloseSessionTxn":
        this.killSession(header.clientId, header.zxid, txn.paths2Delete);
        this.removeSession(header.clientId);
        return;
      case "ErrorTxn":
        rc.err = txn.err;
        return;
      case "MultiTxn":
        this.applyMulti(header, txn.txns, rc);
        return;
      default:
        return unreachable(txn);
    }
  }

  private applyCreate(
    rc: ProcessTxnResult,
    path: string,
    data: Uint8Array | null,
    acl: ACL[],
    owner: SessionId,
    parentCVersion: number,
    header: TxnHeader,
    withStat: boolean,
  ): void {
    rc.path = path;
    rc.err = this.createNode(path, data, acl, owner, parentCVersion, header.zxid, header.time);
    if (withStat && rc.err === Code.OK) {
      const node = this.getNode(path);
      if (node !== undefined) rc.stat = this.statOf(node);
    }
  }

  /**
   * Multi apply: if any sub-txn is an error nothing is applied and every sub-result is an
   * error — 0 before the failing op, its code, then RUNTIMEINCONSISTENCY (docs/zookeeper.md §4).
   */
  private applyMulti(header: TxnHeader, txns: readonly { type: number; txn: Txn }[], rc: ProcessTxnResult): void {
    rc.multiResult = [];
    const failed = txns.some((t) => t.type === OpCode.error);
    let postFailed = false;
    for (const sub of txns) {
      let type = sub.type;
      let txn = sub.txn;
      if (type === OpCode.error) postFailed = true;
      if (failed && type !== OpCode.error) {
        type = OpCode.error;
        txn = { kind: "ErrorTxn", err: postFailed ? Code.RUNTIMEINCONSISTENCY : Code.OK };
      }
      const subRc = this.applyTxn({ ...header, type }, txn, true);
      rc.multiResult.push(subRc);
      if (subRc.err !== Code.OK && rc.err === Code.OK) rc.err = subRc.err;
    }
  }

  /**
   * `killSession`: deletes the txn's paths2Delete (missing ones ignored), then any ephemeral of
   * the session the txn did not list (Java logs a warning and deletes them too, in the set's order).
   */
  private killSession(sessionId: SessionId, zxid: Zxid, paths2Delete: readonly string[]): void {
    const local = this.ephemerals.get(sessionId);
    this.ephemerals.delete(sessionId);
    for (const path of paths2Delete) this.deleteNode(path, zxid);
    if (local === undefined) return;
    for (const path of paths2Delete) local.delete(path);
    for (const path of [...local]) this.deleteNode(path, zxid);
  }

  // ---- reads -------------------------------------------------------------------------------

  /** exists: the data watch is registered *before* the lookup, even if the node is missing. */
  statNode(path: string, watcher: ServerWatcher | null = null): Stat | null {
    if (watcher !== null) this.watches.dataWatches.addWatch(path, watcher);
    const node = this.getNode(path);
    return node === undefined ? null : this.statOf(node);
  }

  /** getData: the watch is registered only if the node exists. The data is the node's own array (null stays null): read it, never write it. */
  getData(path: string, watcher: ServerWatcher | null = null): { data: Uint8Array | null; stat: Stat } | null {
    const node = this.getNode(path);
    if (node === undefined) return null;
    if (watcher !== null) this.watches.dataWatches.addWatch(path, watcher);
    // Like Java, the node's own array (never mutated: setData replaces it); the reply is
    // encoded from it straight away.
    return { data: node.data, stat: this.statOf(node) };
  }

  /** getChildren[2]: names in the children set's order (Java's HashSet order, not sorted). */
  getChildren(path: string, watcher: ServerWatcher | null = null): { children: string[]; stat: Stat } | null {
    const node = this.getNode(path);
    if (node === undefined) return null;
    if (watcher !== null) this.watches.childWatches.addWatch(path, watcher);
    return { children: node.children.toArray(), stat: this.statOf(node) };
  }

  getACL(path: string): { acl: ACL[]; stat: Stat } | null {
    const node = this.getNode(path);
    if (node === undefined) return null;
    return { acl: node.acl.map(copyAcl), stat: this.statOf(node) };
  }

  /** The node's ACL without copying (for permission checks). */
  aclForNode(path: string): readonly ACL[] | null {
    return this.getNode(path)?.acl ?? null;
  }

  /** Java's `getEphemerals(sessionId)`: a clone of the session's set (its own order may differ). */
  ephemeralsOf(sessionId: SessionId): JavaHashSet {
    return this.ephemerals.get(sessionId)?.clone() ?? new JavaHashSet();
  }

  /**
   * The getEphemerals op: the session's ephemerals in the order of the clone, unsorted, as
   * FinalRequestProcessor lists them. With `prefix`: empty, blank or `/` means all, otherwise
   * `startsWith(prefix)` (docs/zookeeper.md §1.7).
   */
  getEphemerals(sessionId: SessionId, prefix?: string | null): string[] {
    const all = [...this.ephemeralsOf(sessionId)];
    if (this.prefixIgnoredCanary) return all;
    const p = prefix ?? "";
    if (p.trim() === "" || p.trim() === "/") return all;
    return all.filter((e) => e.startsWith(p));
  }

  /**
   * `dumpEphemerals` (the `dump` four-letter word): every session that ever had an ephemeral and
   * is not closed (an emptied set stays, as in Java), each with its paths in its set's order.
   * Sessions come in insertion order; the caller puts them in Java's map order.
   */
  ephemeralsBySession(): [SessionId, string[]][] {
    return [...this.ephemerals.entries()].map(([id, set]) => [id, [...set]]);
  }

  /** Session ids that own ephemerals, sorted. */
  getEphemeralOwners(): SessionId[] {
    return [...this.ephemerals.entries()]
      .filter(([, s]) => s.size > 0)
      .map(([id]) => id)
      .sort(compareBigint);
  }

  /** All descendants (not the node itself); for `/` every node but the root (§1.7). */
  getAllChildrenNumber(path: string): number {
    if (path === "/") return this.nodes.size - 1;
    const prefix = path + "/";
    let n = 0;
    for (const p of this.nodes.keys()) if (p.startsWith(prefix)) n++;
    return n;
  }

  getContainers(): string[] {
    return [...this.containers].sort();
  }

  getTtls(): string[] {
    return [...this.ttls].sort();
  }

  // ---- watches -------------------------------------------------------------------------

  /** addWatch: mode 0 PERSISTENT, 1 PERSISTENT_RECURSIVE; false for any other mode. */
  addWatch(path: string, watcher: ServerWatcher, mode: number): boolean {
    if (mode === AddWatchMode.PERSISTENT) this.watches.addPersistentWatch(path, watcher, "PERSISTENT");
    else if (mode === AddWatchMode.PERSISTENT_RECURSIVE) this.watches.addPersistentWatch(path, watcher, "PERSISTENT_RECURSIVE");
    else return false;
    return true;
  }

  /** Connection closed: forget all its watches. */
  removeCnxn(watcher: ServerWatcher): void {
    if (this.watchLeakCanary) return; // broken on purpose
    this.watches.removeWatcher(watcher);
  }

  /**
   * setWatches / setWatches2 after a reconnect (docs/zookeeper.md §2.6): catch-up events for what
   * changed after `relativeZxid`, re-registration otherwise; persistent ones re-registered
   * without catch-up. Catch-up events carry zxid −1.
   */
  setWatches(
    relativeZxid: Zxid,
    dataWatches: readonly string[],
    existWatches: readonly string[],
    childWatches: readonly string[],
    persistentWatches: readonly string[],
    persistentRecursiveWatches: readonly string[],
    watcher: ServerWatcher,
  ): void {
    const fire = (type: number, path: string): void =>
      watcher.process({ type, state: KeeperState.SyncConnected, path }, -1n);
    for (const path of dataWatches) {
      const node = this.getNode(path);
      if (node === undefined) fire(EventType.NodeDeleted, path);
      else if (node.stat.mzxid > relativeZxid) fire(EventType.NodeDataChanged, path);
      else this.watches.dataWatches.addWatch(path, watcher);
    }
    for (const path of existWatches) {
      if (this.getNode(path) !== undefined) fire(EventType.NodeCreated, path);
      else this.watches.dataWatches.addWatch(path, watcher);
    }
    for (const path of childWatches) {
      const node = this.getNode(path);
      if (node === undefined) fire(EventType.NodeDeleted, path);
      else if (node.stat.pzxid > relativeZxid) fire(EventType.NodeChildrenChanged, path);
      else this.watches.childWatches.addWatch(path, watcher);
    }
    for (const path of persistentWatches) this.watches.addPersistentWatch(path, watcher, "PERSISTENT");
    for (const path of persistentRecursiveWatches) this.watches.addPersistentWatch(path, watcher, "PERSISTENT_RECURSIVE");
  }

  // ---- quotas (docs/zookeeper.md §1.7; enforcement lives in the PrepRequestProcessor) --------------

  /** The deepest ancestor-or-self of `path` (not `/`) with a `zookeeper_limits` node. */
  getMaxPrefixWithQuota(path: string): string | null {
    let p = path;
    while (p !== "" && p !== "/") {
      if (this.nodes.has(`${QUOTA_PATH}${p}/${QUOTA_LIMIT_NODE}`)) return p;
      p = javaParentOf(p);
    }
    return null;
  }

  /** Current usage of a quota root: nodes in its subtree (itself included) and their bytes. */
  quotaUsage(prefix: string): { count: number; bytes: number } {
    const usage = { count: 0, bytes: 0 };
    const walk = (path: string): void => {
      const node = this.getNode(path);
      if (node === undefined) return;
      usage.count += 1;
      usage.bytes += node.data?.length ?? 0;
      for (const c of node.children) walk(childPath(path, c));
    };
    walk(prefix);
    return usage;
  }

  // ---- snapshots and digest ------------------------------------------------------------

  /** As Java's `serializeNode`: depth first from `/`, each node's children in their set's order. */
  serialize(): DataTreeSnapshot {
    const nodes: SnapshotNode[] = [];
    const walk = (path: string): void => {
      const node = this.nodes.get(path) as DataNode;
      nodes.push(snapshotNodeOf(path, node));
      for (const name of node.children) walk(childPath(path, name));
    };
    walk("/");
    return {
      lastProcessedZxid: this.lastProcessedZxid,
      nodes,
      sessions: this.serializeSessions(),
    };
  }

  /** The session table as a snapshot holds it, sorted by session id. */
  serializeSessions(): { sessionId: SessionId; timeoutMs: number }[] {
    return [...this.sessions.entries()].sort(([a], [b]) => compareBigint(a, b)).map(([sessionId, timeoutMs]) => ({ sessionId, timeoutMs }));
  }

  static deserialize(snap: DataTreeSnapshot, opts: DataTreeOptions = {}): DataTree {
    const tree = new DataTree(opts);
    tree.nodes.clear();
    // In the snapshot's order, as Java's deserialize adds each child to its parent's new set.
    for (const n of snap.nodes) {
      const node = new DataNode(copyData(n.data), n.acl.map(copyAcl), copyStatPersisted(n.stat));
      if (n.path !== "/") {
        const parent = tree.getNode(javaParentOf(n.path));
        if (parent === undefined) throw new Error(`snapshot: ${n.path} has no parent`);
        parent.children.add(basename(n.path));
      }
      tree.nodes.set(n.path, node);
      tree.indexOwner(n.path, node.stat.ephemeralOwner);
    }
    if (!tree.nodes.has("/")) throw new Error("snapshot: no root");
    for (const s of snap.sessions) tree.sessions.set(s.sessionId, s.timeoutMs);
    tree.lastProcessedZxid = snap.lastProcessedZxid;
    tree.treeDigest = new TreeDigest();
    for (const [path, node] of tree.nodes) tree.treeDigest.addNode(path, node);
    for (const [id, timeoutMs] of tree.sessions) tree.treeDigest.addSession(id, timeoutMs);
    return tree;
  }

  /**
   * The tree digest (ZooKeeper's `getTreeDigest`): every node (path, persisted stat, child
   * count, ACL, data) and the session table, kept current on each change, so this is O(1).
   * Equal digests at equal zxids mean equal replicated state. Watches and lastProcessedZxid are
   * not included.
   */
  digest(): string {
    return this.treeDigest.toString();
  }

  /** The digest recomputed from every node and session: equals `digest()` (tests check it). */
  digestFromScratch(): string {
    return TreeDigest.of(this.nodes, this.sessions).toString();
  }
}

/** A node as a snapshot holds it: a deep copy, taken at once (Java copies it under the node's lock). */
export function snapshotNodeOf(path: string, node: DataNode): SnapshotNode {
  return { path, data: copyData(node.data), acl: node.acl.map(copyAcl), stat: copyStatPersisted(node.stat) };
}

function copyData(data: Uint8Array | null): Uint8Array | null {
  return data === null ? null : data.slice();
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function unreachable(x: never): never {
  throw new Error(`unreachable: ${JSON.stringify(x)}`);
}
