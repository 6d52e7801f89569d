/**
 * ReferenceZooKeeper: a deliberately naive, independent model of ONE standalone
 * ZooKeeper 3.8 server's data tree, sessions and ACLs, used as the oracle of the
 * model-based test `data-tree-model.test.ts`.
 *
 * It is written from docs/zookeeper.md §1 (data model), §4 (multi)
 * and §5 (ACLs), cross-read with the Java 3.8.0 sources (`PrepRequestProcessor`,
 * `DataTree`, `DataNode.copyStat`, `FinalRequestProcessor`, `PathUtils`), and shares
 * NO code with `src/zk/server/`: a checker that reuses the server's code shares its
 * bugs. It imports only constants and types from `src/zk/proto/`.
 *
 * Shape, chosen for obviousness rather than speed:
 * - the whole tree is one flat `Map<path, ModelNode>`; there are no child sets to keep
 *   in sync: a node's children are found by scanning the map for keys whose parent is
 *   that node, so numChildren and getChildren can never disagree with the tree;
 * - every write (create, delete, setData, setACL, multi, createSession, closeSession)
 *   is one txn: it takes zxid = last + 1 and the caller's time *before* any check, so a
 *   failed write still consumes a zxid (§1.4); all checks run before any mutation, so
 *   a failed single op leaves the tree untouched;
 * - a multi runs its sub-ops one after the other against a scratch copy of the map and
 *   keeps the copy only if every sub-op succeeded (§4): this is exactly "validated
 *   sequentially against the pending state including earlier sub-ops".
 *
 * Invariants (checked by `checkInvariants`): the root and the three special nodes
 * exist; every non-root key is a valid path whose parent key exists; no NORMAL
 * ephemeral has children; every ephemeral's owner is a live session.
 *
 * Out of scope: watches, quotas (enforceQuota=false), container/TTL reaping (no
 * ContainerManager), `ip`/`sasl`/`x509`/`super` ACL schemes (treated as unknown), the
 * 3.8.4+ READ check on `exists` (a constructor knob), local sessions, and the transient
 * "closing" session state (a synchronous model applies closeSession at once).
 */
import { Code } from "../../../src/zk/proto/error-code.js";
import type { ACL, Id, SessionId, Stat, Zxid } from "../../../src/zk/proto/records.js";
import { createHash } from "node:crypto";

// ---- the stored node ------------------------------------------------------------------

/** What ZooKeeper persists as `ephemeralOwner`, kept as a readable union. */
export type NodeOwner =
  | { kind: "persistent" }
  | { kind: "ephemeral"; session: SessionId }
  | { kind: "container" }
  | { kind: "ttl"; ttlMs: number };

/** One znode as the server stores it (`DataNode` + `StatPersisted`). */
export interface ModelNode {
  data: Uint8Array | null;
  acl: ACL[];
  czxid: Zxid;
  mzxid: Zxid;
  pzxid: Zxid;
  ctimeMs: number;
  mtimeMs: number;
  version: number;
  /** Stored cversion = number of child *creations* ever; clients see 2*this − numChildren. */
  cversionStored: number;
  aversion: number;
  owner: NodeOwner;
}

type Tree = Map<string, ModelNode>;

// ---- public request / result shapes ---------------------------------------------------

export interface ModelOptions {
  /** `zookeeper.extendedTypesEnabled` (TTL nodes). Default false → TTL modes are UNIMPLEMENTED. */
  extendedTypesEnabled?: boolean;
  /** ≥3.8.4/3.9.2: `exists` checks READ on an existing node. Default false (3.8.0). */
  existsChecksRead?: boolean;
  /** The server's last processed zxid at start (a fresh standalone server: 0). */
  initialZxid?: Zxid;
}

export type MultiOp =
  | { kind: "create"; path: string; data: Uint8Array | null; acl: ACL[]; mode: number; ttl?: number }
  | { kind: "delete"; path: string; version: number }
  | { kind: "setData"; path: string; data: Uint8Array | null; version: number }
  | { kind: "check"; path: string; version: number };

/**
 * One result of a multi: a success record, or an ErrorResult carrying its code (0 / code / −2).
 * A create's result carries a Stat only for CONTAINER (and TTL) modes: Java's
 * `MultiOperationRecord` re-types each create by its mode to create / createContainer /
 * createTTL (never create2), and only the latter two answer `CreateResult{path, stat}`.
 */
export type MultiOpResult =
  | { kind: "create"; err: 0; path: string; stat?: Stat }
  | { kind: "delete"; err: 0 }
  | { kind: "setData"; err: 0; stat: Stat }
  | { kind: "check"; err: 0 }
  | { kind: "error"; err: number };

export interface CreateResult { err: number; zxid: Zxid; path?: string; stat?: Stat }
export interface WriteResult { err: number; zxid: Zxid }
export interface StatWriteResult { err: number; zxid: Zxid; stat?: Stat }
export interface MultiResultAll { err: number; zxid: Zxid; results: MultiOpResult[] }
export interface CloseSessionResult { err: number; zxid: Zxid; deleted: string[] }
export interface ExistsResult { err: number; stat?: Stat }
export interface GetDataResult { err: number; data?: Uint8Array | null; stat?: Stat }
export interface GetChildrenResult { err: number; children?: string[]; stat?: Stat }
export interface GetACLResult { err: number; acl?: ACL[]; stat?: Stat }

/** A whole-tree dump entry, for the end-of-run comparison. */
export interface TreeEntry { path: string; data: Uint8Array | null; acl: ACL[]; stat: Stat; owner: NodeOwner }

// ---- constants --------------------------------------------------------------------------

const PERM_READ = 1;
const PERM_WRITE = 2;
const PERM_CREATE = 4;
const PERM_DELETE = 8;
const PERM_ADMIN = 16;
const PERM_ALL = 31;

/** `TTL.maxValue()`: ttl must lie in (0, 2^40 − 1]. */
const TTL_MAX_MS = 2 ** 40 - 1;

/** Delete of these answers BADARGUMENTS (`DataTree.isSpecialPath`). */
const SPECIAL_PATHS = new Set(["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"]);

/** `CreateMode.fromFlag`: flag → properties; any other flag is BADARGUMENTS. */
const MODES: ReadonlyMap<number, { ephemeral: boolean; sequential: boolean; container: boolean; ttl: boolean }> =
  new Map([
    [0, { ephemeral: false, sequential: false, container: false, ttl: false }],
    [1, { ephemeral: true, sequential: false, container: false, ttl: false }],
    [2, { ephemeral: false, sequential: true, container: false, ttl: false }],
    [3, { ephemeral: true, sequential: true, container: false, ttl: false }],
    [4, { ephemeral: false, sequential: false, container: true, ttl: false }],
    [5, { ephemeral: false, sequential: false, container: false, ttl: true }],
    [6, { ephemeral: false, sequential: true, container: false, ttl: true }],
  ]);

// ---- pure helpers: paths ------------------------------------------------------------------

/** `PathUtils.validatePath` (§1.1), written segment by segment. */
export function isValidPath(path: string): boolean {
  if (path.length === 0 || path[0] !== "/") return false;
  if (path === "/") return true;
  if (path.endsWith("/")) return false;
  for (const segment of path.slice(1).split("/")) {
    if (segment === "" || segment === "." || segment === "..") return false;
  }
  for (let i = 1; i < path.length; i++) {
    const c = path.charCodeAt(i);
    const bad =
      c === 0 ||
      (c >= 0x01 && c <= 0x1f) ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0xd800 && c <= 0xf8ff) ||
      (c >= 0xfff0 && c <= 0xffff);
    if (bad) return false;
  }
  return true;
}

/** Parent key of a *stored* (valid, non-root) path. */
function parentKey(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === 0 ? "/" : path.slice(0, slash);
}

/**
 * Java's DataTree also indexes the root under "" ("rather than fight it, let root have
 * an alias"), and request handlers take `path.substring(0, lastSlash)` as the parent,
 * which is "" for `/x`. So a lookup of "" finds the root.
 */
function lookup(tree: Tree, path: string): ModelNode | undefined {
  return tree.get(keyOf(path));
}

/** The map key for a request path. */
function keyOf(path: string): string {
  return path === "" ? "/" : path;
}

function childNames(tree: Tree, path: string): string[] {
  const names: string[] = [];
  for (const key of tree.keys()) {
    if (key !== "/" && parentKey(key) === path) names.push(key.slice(key.lastIndexOf("/") + 1));
  }
  // Lexical by UTF-16 code unit, the same order as Java's String.compareTo.
  return names.sort();
}

/** `String.format("%010d", n)`: the sign counts towards the width of 10. */
export function sequenceSuffix(n: number): string {
  return n < 0 ? "-" + String(-n).padStart(9, "0") : String(n).padStart(10, "0");
}

// ---- pure helpers: Stat ---------------------------------------------------------------------

function statOf(tree: Tree, path: string, node: ModelNode): Stat {
  const numChildren = childNames(tree, path).length;
  return {
    czxid: node.czxid,
    mzxid: node.mzxid,
    ctime: node.ctimeMs,
    mtime: node.mtimeMs,
    version: node.version,
    // DataNode.copyStat: "for every create there is a delete except for the children
    // still present" — Java int arithmetic.
    cversion: (Math.imul(node.cversionStored, 2) - numChildren) | 0,
    aversion: node.aversion,
    // Clients see 0 unless the node is a NORMAL ephemeral (§1.2).
    ephemeralOwner: node.owner.kind === "ephemeral" ? node.owner.session : 0n,
    dataLength: node.data === null ? 0 : node.data.length,
    numChildren,
    pzxid: node.pzxid,
  };
}

// ---- pure helpers: ACLs ----------------------------------------------------------------------

/** `DigestAuthenticationProvider.generateDigest("user:password")`. */
export function digestId(userPassword: string): string {
  const user = userPassword.split(":")[0] ?? "";
  const hash = createHash("sha1").update(userPassword, "utf8").digest("base64");
  return `${user}:${hash}`;
}

/** Java `id.split(":").length == 2` (Java drops trailing empty strings). */
function isValidDigestId(id: string): boolean {
  if (!id.includes(":")) return false;
  const parts = id.split(":");
  while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts.length === 2;
}

function sameAcl(a: ACL, b: ACL): boolean {
  return a.perms === b.perms && a.id.scheme === b.id.scheme && a.id.id === b.id.id;
}

function isWorldAnyone(id: Id): boolean {
  return id.scheme === "world" && id.id === "anyone";
}

/**
 * `PrepRequestProcessor.fixupACL` (§5.2): drop duplicates; empty → invalid; world only
 * with `anyone`; `auth` expands to every authenticated id of the caller (invalid if it
 * has none); digest ids must have two parts; any other scheme is invalid here.
 * Returns null for INVALIDACL.
 */
function fixupAcl(requested: ACL[], authIds: Id[]): ACL[] | null {
  const unique: ACL[] = [];
  for (const entry of requested) if (!unique.some((u) => sameAcl(u, entry))) unique.push(entry);
  if (unique.length === 0) return null;
  const fixed: ACL[] = [];
  for (const entry of unique) {
    const { scheme, id } = entry.id;
    if (isWorldAnyone(entry.id)) {
      fixed.push(copyAcl(entry));
    } else if (scheme === "auth") {
      // Only digest ids are ever held in this model, and digest is an authenticated scheme.
      const authenticated = authIds.filter((a) => a.scheme === "digest");
      if (authenticated.length === 0) return null;
      for (const a of authenticated) fixed.push({ perms: entry.perms, id: { scheme: a.scheme, id: a.id } });
    } else if (scheme === "digest" && isValidDigestId(id)) {
      fixed.push(copyAcl(entry));
    } else {
      return null;
    }
  }
  return fixed;
}

function copyAcl(entry: ACL): ACL {
  return { perms: entry.perms, id: { scheme: entry.id.scheme, id: entry.id.id } };
}

/** `ZooKeeperServer.checkACL` (§5.3) for the world and digest schemes. */
function isAllowed(acl: ACL[], perm: number, authIds: Id[]): boolean {
  if (acl.length === 0) return true;
  return acl.some(
    (entry) =>
      (entry.perms & perm) !== 0 &&
      (isWorldAnyone(entry.id) ||
        authIds.some((a) => a.scheme === entry.id.scheme && a.id === entry.id.id)),
  );
}

// ---- the txn context ---------------------------------------------------------------------

/** What a write needs to know about the request: who, which zxid, what time. */
interface TxnContext {
  sessionId: SessionId;
  /** Undefined when the session is unknown to the tracker. */
  authIds: Id[] | undefined;
  zxid: Zxid;
  timeMs: number;
}

/** `checkSession` (standalone: unknown → UNKNOWNSESSION); `checkGlobalSession` maps unknown → SESSIONEXPIRED. */
function sessionError(ctx: { authIds: Id[] | undefined }, global: boolean): number {
  if (ctx.authIds !== undefined) return Code.OK;
  return global ? Code.SESSIONEXPIRED : Code.UNKNOWNSESSION;
}

// ---- write ops: check everything, then mutate --------------------------------------------------

type CreateOp = Extract<MultiOp, { kind: "create" }>;

/** create / create2 / createContainer / createTTL, with §1.4's precedence. */
function applyCreate(
  tree: Tree,
  ctx: TxnContext,
  op: CreateOp,
  extendedTypesEnabled: boolean,
): { err: number; path?: string; stat?: Stat } {
  const mode = MODES.get(op.mode);
  if (mode === undefined) return { err: Code.BADARGUMENTS };
  const ttl = op.ttl ?? -1;
  if (mode.ttl && !extendedTypesEnabled) return { err: Code.UNIMPLEMENTED };
  if (mode.ttl ? ttl <= 0 || ttl > TTL_MAX_MS : ttl >= 0) return { err: Code.BADARGUMENTS };
  const sessionErr = sessionError(ctx, mode.ephemeral);
  if (sessionErr !== Code.OK) return { err: sessionErr };
  const authIds = ctx.authIds ?? [];
  const lastSlash = op.path.lastIndexOf("/");
  if (lastSlash === -1 || op.path.includes("\0")) return { err: Code.BADARGUMENTS };
  const acl = fixupAcl(op.acl, authIds);
  if (acl === null) return { err: Code.INVALIDACL };
  const parent = lookup(tree, op.path.slice(0, lastSlash));
  if (parent === undefined) return { err: Code.NONODE };
  if (!isAllowed(parent.acl, PERM_CREATE, authIds)) return { err: Code.NOAUTH };
  const path = mode.sequential ? op.path + sequenceSuffix(parent.cversionStored) : op.path;
  if (!isValidPath(path)) return { err: Code.BADARGUMENTS };
  if (lookup(tree, path) !== undefined) return { err: Code.NODEEXISTS };
  if (parent.owner.kind === "ephemeral") return { err: Code.NOCHILDRENFOREPHEMERALS };

  const owner: NodeOwner = mode.container
    ? { kind: "container" }
    : mode.ttl
      ? { kind: "ttl", ttlMs: ttl }
      : mode.ephemeral
        ? { kind: "ephemeral", session: ctx.sessionId }
        : { kind: "persistent" };
  parent.cversionStored = (parent.cversionStored + 1) | 0;
  parent.pzxid = ctx.zxid;
  tree.set(path, {
    data: op.data === null ? null : op.data.slice(),
    acl,
    czxid: ctx.zxid,
    mzxid: ctx.zxid,
    pzxid: ctx.zxid,
    ctimeMs: ctx.timeMs,
    mtimeMs: ctx.timeMs,
    version: 0,
    cversionStored: 0,
    aversion: 0,
    owner,
  });
  return { err: Code.OK, path, stat: statOf(tree, path, tree.get(path)!) };
}

/** Removes a childless node; the parent's pzxid moves only forward, its stored cversion not at all. */
function removeNode(tree: Tree, path: string, zxid: Zxid): void {
  const parent = tree.get(parentKey(path));
  if (parent !== undefined && zxid > parent.pzxid) parent.pzxid = zxid;
  tree.delete(path);
}

function applyDelete(tree: Tree, ctx: TxnContext, path: string, version: number): { err: number } {
  const sessionErr = sessionError(ctx, false);
  if (sessionErr !== Code.OK) return { err: sessionErr };
  const authIds = ctx.authIds ?? [];
  const lastSlash = path.lastIndexOf("/");
  // Delete does not run full path validation: an invalid path is simply not found.
  if (lastSlash === -1 || path.includes("\0") || SPECIAL_PATHS.has(path)) return { err: Code.BADARGUMENTS };
  const parent = lookup(tree, path.slice(0, lastSlash));
  if (parent === undefined) return { err: Code.NONODE };
  if (!isAllowed(parent.acl, PERM_DELETE, authIds)) return { err: Code.NOAUTH };
  const node = lookup(tree, path);
  if (node === undefined) return { err: Code.NONODE };
  if (version !== -1 && version !== node.version) return { err: Code.BADVERSION };
  if (childNames(tree, path).length > 0) return { err: Code.NOTEMPTY };
  removeNode(tree, path, ctx.zxid);
  return { err: Code.OK };
}

function applySetData(
  tree: Tree,
  ctx: TxnContext,
  path: string,
  data: Uint8Array | null,
  version: number,
): { err: number; stat?: Stat } {
  const sessionErr = sessionError(ctx, false);
  if (sessionErr !== Code.OK) return { err: sessionErr };
  if (!isValidPath(path)) return { err: Code.BADARGUMENTS };
  const node = lookup(tree, path);
  if (node === undefined) return { err: Code.NONODE };
  if (!isAllowed(node.acl, PERM_WRITE, ctx.authIds ?? [])) return { err: Code.NOAUTH };
  if (version !== -1 && version !== node.version) return { err: Code.BADVERSION };
  node.version = (node.version + 1) | 0;
  node.mzxid = ctx.zxid;
  node.mtimeMs = ctx.timeMs;
  node.data = data === null ? null : data.slice();
  return { err: Code.OK, stat: statOf(tree, path, node) };
}

function applySetACL(tree: Tree, ctx: TxnContext, path: string, acl: ACL[], version: number): { err: number; stat?: Stat } {
  const sessionErr = sessionError(ctx, false);
  if (sessionErr !== Code.OK) return { err: sessionErr };
  const authIds = ctx.authIds ?? [];
  if (!isValidPath(path)) return { err: Code.BADARGUMENTS };
  // ACL fix-up comes *before* the node lookup (§1.4).
  const fixed = fixupAcl(acl, authIds);
  if (fixed === null) return { err: Code.INVALIDACL };
  const node = lookup(tree, path);
  if (node === undefined) return { err: Code.NONODE };
  if (!isAllowed(node.acl, PERM_ADMIN, authIds)) return { err: Code.NOAUTH };
  if (version !== -1 && version !== node.aversion) return { err: Code.BADVERSION };
  // setACL bumps aversion only: mzxid, mtime and version stay (§1.6).
  node.aversion = (node.aversion + 1) | 0;
  node.acl = fixed;
  return { err: Code.OK, stat: statOf(tree, path, node) };
}

function applyCheck(tree: Tree, ctx: TxnContext, path: string, version: number): { err: number } {
  const sessionErr = sessionError(ctx, false);
  if (sessionErr !== Code.OK) return { err: sessionErr };
  if (!isValidPath(path)) return { err: Code.BADARGUMENTS };
  const node = lookup(tree, path);
  if (node === undefined) return { err: Code.NONODE };
  if (!isAllowed(node.acl, PERM_READ, ctx.authIds ?? [])) return { err: Code.NOAUTH };
  if (version !== -1 && version !== node.version) return { err: Code.BADVERSION };
  return { err: Code.OK };
}

// ---- the model --------------------------------------------------------------------------------

function initialTree(): Tree {
  const node = (acl: ACL[], aversion: number): ModelNode => ({
    data: new Uint8Array(0),
    acl,
    czxid: 0n,
    mzxid: 0n,
    pzxid: 0n,
    ctimeMs: 0,
    mtimeMs: 0,
    version: 0,
    // The initial children are added directly, not by create txns: stored cversion 0,
    // so clients see cversion −numChildren (−1 on `/`, −2 on `/zookeeper`).
    cversionStored: 0,
    aversion,
    owner: { kind: "persistent" },
  });
  const open = (): ACL[] => [{ perms: PERM_ALL, id: { scheme: "world", id: "anyone" } }];
  return new Map([
    ["/", node(open(), 0)],
    ["/zookeeper", node(open(), 0)],
    ["/zookeeper/quota", node(open(), 0)],
    // ZOOKEEPER-2014: READ-only, set by an internal setACL with version −1.
    ["/zookeeper/config", node([{ perms: PERM_READ, id: { scheme: "world", id: "anyone" } }], -1)],
  ]);
}

function cloneTree(tree: Tree): Tree {
  const copy: Tree = new Map();
  // ACL arrays and data buffers are never mutated in place, so a shallow copy suffices.
  for (const [path, node] of tree) copy.set(path, { ...node });
  return copy;
}

export class ReferenceZooKeeper {
  private tree: Tree = initialTree();
  /** Live sessions → their authenticated ids, in the order they were added. */
  private readonly sessions = new Map<SessionId, Id[]>();
  private lastZxid: Zxid;
  private timeMs = 0;
  private readonly extendedTypesEnabled: boolean;
  private readonly existsChecksRead: boolean;

  constructor(options: ModelOptions = {}) {
    this.extendedTypesEnabled = options.extendedTypesEnabled ?? false;
    this.existsChecksRead = options.existsChecksRead ?? false;
    this.lastZxid = options.initialZxid ?? 0n;
  }

  /** The leader clock the next txn will carry (`TxnHeader.time`). */
  setTimeMs(timeMs: number): void {
    this.timeMs = timeMs;
  }

  get lastProcessedZxid(): Zxid {
    return this.lastZxid;
  }

  /** Every write is one txn: the zxid is taken before any check, so failures consume it too. */
  private beginTxn(sessionId: SessionId): TxnContext {
    this.lastZxid += 1n;
    return { sessionId, authIds: this.sessions.get(sessionId), zxid: this.lastZxid, timeMs: this.timeMs };
  }

  // ---- sessions ----

  /** A global session: a createSession txn (consumes a zxid). */
  createSession(sessionId: SessionId): WriteResult {
    const ctx = this.beginTxn(sessionId);
    this.sessions.set(sessionId, []);
    return { err: Code.OK, zxid: ctx.zxid };
  }

  /** `addauth digest user:password` (no txn). Unknown schemes fail with AUTHFAILED. */
  addAuth(sessionId: SessionId, scheme: string, auth: string): { err: number } {
    const ids = this.sessions.get(sessionId);
    if (ids === undefined) return { err: Code.SESSIONEXPIRED };
    if (scheme !== "digest") return { err: Code.AUTHFAILED };
    const id = { scheme: "digest", id: digestId(auth) };
    if (!ids.some((known) => known.scheme === id.scheme && known.id === id.id)) ids.push(id);
    return { err: Code.OK };
  }

  /**
   * closeSession: one txn deleting the session's ephemerals (parents: pzxid = zxid,
   * visible cversion +1). Prep does not check the session, so even an unknown session
   * consumes a zxid.
   */
  closeSession(sessionId: SessionId): CloseSessionResult {
    const ctx = this.beginTxn(sessionId);
    const deleted = [...this.tree.entries()]
      .filter(([, node]) => node.owner.kind === "ephemeral" && node.owner.session === sessionId)
      .map(([path]) => path)
      .sort();
    for (const path of deleted) removeNode(this.tree, path, ctx.zxid);
    this.sessions.delete(sessionId);
    return { err: Code.OK, zxid: ctx.zxid, deleted };
  }

  hasSession(sessionId: SessionId): boolean {
    return this.sessions.has(sessionId);
  }

  /** Live session ids, ascending. */
  sessionIds(): SessionId[] {
    return [...this.sessions.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  // ---- writes ----

  create(
    sessionId: SessionId,
    path: string,
    data: Uint8Array | null,
    acl: ACL[],
    mode: number,
    ttl?: number,
  ): CreateResult {
    const ctx = this.beginTxn(sessionId);
    const op: CreateOp = { kind: "create", path, data, acl, mode };
    if (ttl !== undefined) op.ttl = ttl;
    return { ...applyCreate(this.tree, ctx, op, this.extendedTypesEnabled), zxid: ctx.zxid };
  }

  delete(sessionId: SessionId, path: string, version: number): WriteResult {
    const ctx = this.beginTxn(sessionId);
    return { ...applyDelete(this.tree, ctx, path, version), zxid: ctx.zxid };
  }

  setData(sessionId: SessionId, path: string, data: Uint8Array | null, version: number): StatWriteResult {
    const ctx = this.beginTxn(sessionId);
    return { ...applySetData(this.tree, ctx, path, data, version), zxid: ctx.zxid };
  }

  setACL(sessionId: SessionId, path: string, acl: ACL[], version: number): StatWriteResult {
    const ctx = this.beginTxn(sessionId);
    return { ...applySetACL(this.tree, ctx, path, acl, version), zxid: ctx.zxid };
  }

  /**
   * multi (§4): one zxid and time for all sub-ops; sub-ops run in order against a scratch
   * copy; at the first failure nothing is applied and the results are
   * (0 … 0, code, −2 … −2). The reply's own err is 0 either way.
   */
  multi(sessionId: SessionId, ops: MultiOp[]): MultiResultAll {
    const ctx = this.beginTxn(sessionId);
    const scratch = cloneTree(this.tree);
    const results: MultiOpResult[] = [];
    for (const [index, op] of ops.entries()) {
      const result = this.applySubOp(scratch, ctx, op);
      if (result.kind === "error") {
        const failed = ops.map((_, i): MultiOpResult => ({
          kind: "error",
          err: i < index ? Code.OK : i === index ? result.err : Code.RUNTIMEINCONSISTENCY,
        }));
        return { err: Code.OK, zxid: ctx.zxid, results: failed };
      }
      results.push(result);
    }
    this.tree = scratch;
    return { err: Code.OK, zxid: ctx.zxid, results };
  }

  private applySubOp(tree: Tree, ctx: TxnContext, op: MultiOp): MultiOpResult {
    switch (op.kind) {
      case "create": {
        const r = applyCreate(tree, ctx, op, this.extendedTypesEnabled);
        if (r.err !== Code.OK) return { kind: "error", err: r.err };
        const withStat = MODES.get(op.mode)?.container === true || MODES.get(op.mode)?.ttl === true;
        return withStat ? { kind: "create", err: 0, path: r.path!, stat: r.stat! } : { kind: "create", err: 0, path: r.path! };
      }
      case "delete": {
        const r = applyDelete(tree, ctx, op.path, op.version);
        return r.err === Code.OK ? { kind: "delete", err: 0 } : { kind: "error", err: r.err };
      }
      case "setData": {
        const r = applySetData(tree, ctx, op.path, op.data, op.version);
        return r.err === Code.OK ? { kind: "setData", err: 0, stat: r.stat! } : { kind: "error", err: r.err };
      }
      case "check": {
        const r = applyCheck(tree, ctx, op.path, op.version);
        return r.err === Code.OK ? { kind: "check", err: 0 } : { kind: "error", err: r.err };
      }
      default:
        return unreachable(op);
    }
  }

  // ---- reads: no txn, no zxid; session checked at prep, then NONODE, then permission ----

  exists(sessionId: SessionId, path: string): ExistsResult {
    const authIds = this.sessions.get(sessionId);
    if (authIds === undefined) return { err: Code.UNKNOWNSESSION };
    // The 3.8.0 sources already reject an embedded NUL here.
    if (path.includes("\0")) return { err: Code.BADARGUMENTS };
    const node = lookup(this.tree, path);
    if (node === undefined) return { err: Code.NONODE };
    if (this.existsChecksRead && !isAllowed(node.acl, PERM_READ, authIds)) return { err: Code.NOAUTH };
    return { err: Code.OK, stat: this.stat(path, node) };
  }

  getData(sessionId: SessionId, path: string): GetDataResult {
    const found = this.readNode(sessionId, path, PERM_READ);
    if (found.err !== Code.OK) return { err: found.err };
    const data = found.node!.data;
    return { err: Code.OK, data: data === null ? null : data.slice(), stat: this.stat(path, found.node!) };
  }

  /** getChildren2: names sorted lexically (the model's documented order) plus the Stat. */
  getChildren(sessionId: SessionId, path: string): GetChildrenResult {
    const found = this.readNode(sessionId, path, PERM_READ);
    if (found.err !== Code.OK) return { err: found.err };
    return { err: Code.OK, children: childNames(this.tree, keyOf(path)), stat: this.stat(path, found.node!) };
  }

  /** getACL needs READ or ADMIN; without ADMIN, digest ids are masked to `user:x`. */
  getACL(sessionId: SessionId, path: string): GetACLResult {
    const found = this.readNode(sessionId, path, PERM_READ | PERM_ADMIN);
    if (found.err !== Code.OK) return { err: found.err };
    const node = found.node!;
    const admin = isAllowed(node.acl, PERM_ADMIN, this.sessions.get(sessionId) ?? []);
    const acl = node.acl.map((entry) =>
      admin || entry.id.scheme !== "digest"
        ? copyAcl(entry)
        : { perms: entry.perms, id: { scheme: "digest", id: entry.id.id.replace(/:.*/g, ":x") } },
    );
    return { err: Code.OK, acl, stat: this.stat(path, node) };
  }

  private readNode(sessionId: SessionId, path: string, perm: number): { err: number; node?: ModelNode } {
    const authIds = this.sessions.get(sessionId);
    if (authIds === undefined) return { err: Code.UNKNOWNSESSION };
    const node = lookup(this.tree, path);
    if (node === undefined) return { err: Code.NONODE };
    if (!isAllowed(node.acl, perm, authIds)) return { err: Code.NOAUTH };
    return { err: Code.OK, node };
  }

  private stat(path: string, node: ModelNode): Stat {
    return statOf(this.tree, keyOf(path), node);
  }

  // ---- whole-tree views for checkers ----

  /** Every node (including `/` and `/zookeeper/...`), sorted by path. */
  dump(): TreeEntry[] {
    return [...this.tree.keys()].sort().map((path) => {
      const node = this.tree.get(path)!;
      return { path, data: node.data, acl: node.acl.map(copyAcl), stat: statOf(this.tree, path, node), owner: node.owner };
    });
  }

  /** Paths of the ephemerals owned by a session, sorted. */
  ephemeralsOf(sessionId: SessionId): string[] {
    return [...this.tree.entries()]
      .filter(([, node]) => node.owner.kind === "ephemeral" && node.owner.session === sessionId)
      .map(([path]) => path)
      .sort();
  }

  /** Structural invariants of the model itself; returns human-readable violations. */
  checkInvariants(): string[] {
    const problems: string[] = [];
    for (const special of SPECIAL_PATHS) if (!this.tree.has(special)) problems.push(`missing ${special}`);
    for (const [path, node] of this.tree) {
      if (path === "/") continue;
      if (!isValidPath(path)) problems.push(`invalid stored path ${JSON.stringify(path)}`);
      if (!this.tree.has(parentKey(path))) problems.push(`orphan ${path}`);
      if (node.owner.kind === "ephemeral") {
        if (childNames(this.tree, path).length > 0) problems.push(`ephemeral ${path} has children`);
        if (!this.sessions.has(node.owner.session)) problems.push(`ephemeral ${path} owned by a dead session`);
      }
    }
    return problems;
  }
}

function unreachable(x: never): never {
  throw new Error(`unreachable: ${JSON.stringify(x)}`);
}

