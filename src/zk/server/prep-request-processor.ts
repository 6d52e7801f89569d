/**
 * The leader's `PrepRequestProcessor`: validates a write request against the committed tree
 * *plus the outstanding (proposed, not yet applied) changes* and turns it into a txn, with the
 * exact error precedence of docs/zookeeper.md §1.4, multi composition and rollback (§4), the
 * closeSession ephemeral list and the ZOOKEEPER-1208 "closing" mark (§3.4).
 *
 * Invariants:
 * - `outstandingChanges` is in zxid order; `outstandingChangesForPath[p]` is the newest record
 *   for `p`. A record with `stat === null` means "deleted by a pending txn". Records are read
 *   through `getRecordForPath`, which falls back to the committed DataTree.
 * - Record stats are `StatPersisted` (stored cversion), so the sequence suffix is the parent's
 *   stored cversion and pipelined creates get distinct numbers.
 * - Keys are the Java strings: a top-level node's parent is `""` (the root alias), distinct
 *   from `"/"` — a faithful quirk (e.g. a pending setACL on `/` is not seen by a create `/x`).
 * - As in Java, a pending setACL record keeps the *old* ACL (only aversion moves), and a
 *   closeSession does not decrement the parents' pending child counts.
 * - Every write that reaches prep yields a txn and consumes the zxid passed in (`kind: "txn"`),
 *   a failure being an error txn (header.type −1). Reads and pings only get a session check
 *   (`kind: "noTxn"`) and must not consume a zxid.
 * - Client mistakes are returned as codes; nothing here throws for them.
 */
import { Code } from "../proto/error-code.js";
import { OpCode } from "../proto/op-code.js";
import type { MultiOp, RequestRecord } from "../proto/packets.js";
import {
  MAX_TTL_MS,
  Perms,
  int32,
  isContainerMode,
  isEphemeralMode,
  isKnownCreateMode,
  isSequentialMode,
  isTTLMode,
  type ACL,
  type Id,
  type SessionId,
  type Zxid,
} from "../proto/records.js";
import type { MultiSubTxn, Txn, TxnEntry, TxnHeader } from "../proto/txn.js";
import { DEFAULT_AUTH_PROVIDERS, checkACL, fixupACL, type AuthProviders } from "./acl.js";
import type { BugId } from "./bug-id.js";
import {
  CONTAINER_EPHEMERAL_OWNER,
  QUOTA_LIMIT_NODE,
  copyStatPersisted,
  createStatPersisted,
  ttlEphemeralOwner,
  type DataTree,
  type StatPersisted,
} from "./data-tree.js";
import { CONFIG_PATH, QUOTA_PATH, formatSequence, isSpecialPath, validatePath } from "../proto/path-utils.js";
import { nextQuorumVerifier, type ReconfigHost } from "./prep-reconfig.js";

export interface PrepRequest {
  sessionId: SessionId;
  cxid: number;
  /** OpCode of the request. */
  type: number;
  request: RequestRecord;
  /** The connection's ids (ip + addauth results). */
  authInfo: Id[];
  /** Who the session is attached to (see SessionChecker). */
  owner: unknown;
  /** createSession only: the negotiated timeout (Java reads it from the request body). */
  sessionTimeoutMs?: number;
}

/** The session tracker as seen by prep (standalone: UNKNOWNSESSION; leader: SESSIONEXPIRED). */
export interface SessionChecker {
  checkSession(sessionId: SessionId, owner: unknown): number;
  checkGlobalSession(sessionId: SessionId, owner: unknown): number;
  setSessionClosing(sessionId: SessionId): void;
  /** createSession: start tracking the session and record its owner (optional). */
  trackSession?(sessionId: SessionId, timeoutMs: number, owner: unknown): void;
}

export interface PrepOptions {
  /** `zookeeper.extendedTypesEnabled`: TTL nodes allowed. */
  extendedTypesEnabled: boolean;
  /** `zookeeper.enforceQuota`: hard quota limits fail with QUOTAEXCEEDED. */
  enforceQuota: boolean;
  /** Canary `quota-root-uncounted`: a quota root's own node is left out of its count (one node too many allowed). */
  quotaRootUncounted?: boolean;
  /** `zookeeper.skipACL`. */
  skipACL: boolean;
  /** Digest that grants `super` (used by the connection's auth, kept here for one config). */
  superDigest?: string;
  /** Registered auth providers (`ProviderRegistry`): which ACL schemes are valid and match. */
  authProviders: AuthProviders;
  /** A deliberately broken prep (a canary, src/scenario/canaries.ts); never set in use. */
  canary?: PrepCanary;
  /** `reconfigEnabled` (3.8 default false): otherwise a reconfig is RECONFIGDISABLED. */
  reconfigEnabled?: boolean;
}

/**
 * Broken preps, for the reference model to catch:
 * - `multi-misanswered`: a failed multi answers OK (not RUNTIMEINCONSISTENCY) for the ops after
 *   the failing one;
 * - `sequence-from-child-count`: a sequential name numbered by the parent's number of children
 *   instead of its stored cversion (numbers come back after deletes);
 * - `delete-checks-node-acl`: delete asks for DELETE on the node itself instead of its parent.
 */
export type PrepCanary = "multi-misanswered" | "sequence-from-child-count" | "delete-checks-node-acl";

export type PrepResult =
  /** A txn to propose; `err` is the prep failure (for a multi: of its first failing op), or 0. */
  | { kind: "txn"; entry: TxnEntry; err: number }
  /** No txn (reads, ping, sync, …): `err` is the session check, or UNIMPLEMENTED. */
  | { kind: "noTxn"; err: number };

/** `ZooKeeperServer.ChangeRecord`. */
export interface ChangeRecord {
  /** −1 for a record freshly read from the committed tree. */
  zxid: Zxid;
  path: string;
  /** null = the node is deleted by a pending txn. */
  stat: StatPersisted | null;
  childCount: number;
  acl: ACL[] | null;
  data: Uint8Array | null;
}

type Prepped = { kind: "ok"; txn: Txn } | { kind: "failure"; err: number };

interface TxnContext {
  req: PrepRequest;
  zxid: Zxid;
  timeMs: number;
}

const ok = (txn: Txn): Prepped => ({ kind: "ok", txn });
const failure = (err: number): Prepped => ({ kind: "failure", err });
const EMPTY = new Uint8Array(0);

function duplicate(r: ChangeRecord, zxid: Zxid): ChangeRecord {
  return {
    zxid,
    path: r.path,
    stat: r.stat === null ? null : copyStatPersisted(r.stat),
    childCount: r.childCount,
    acl: r.acl === null ? null : r.acl.map((a) => ({ perms: a.perms, id: { ...a.id } })),
    data: r.data,
  };
}

/** `checkAndIncVersion`: −1 = any version; returns the next version or BADVERSION. */
function checkAndIncVersion(current: number, expected: number): { ok: true; next: number } | { ok: false } {
  if (expected !== -1 && expected !== current) return { ok: false };
  return { ok: true, next: int32(current + 1) };
}

const SESSION_ONLY_OPS: ReadonlySet<number> = new Set([
  OpCode.sync,
  OpCode.exists,
  OpCode.getData,
  OpCode.getACL,
  OpCode.getChildren,
  OpCode.getAllChildrenNumber,
  OpCode.getChildren2,
  OpCode.ping,
  OpCode.setWatches,
  OpCode.setWatches2,
  OpCode.checkWatches,
  OpCode.removeWatches,
  OpCode.getEphemerals,
  OpCode.multiRead,
  OpCode.addWatch,
  OpCode.whoAmI,
]);

const WRITE_OPS: ReadonlySet<number> = new Set([
  OpCode.create,
  OpCode.create2,
  OpCode.createContainer,
  OpCode.createTTL,
  OpCode.delete,
  OpCode.deleteContainer,
  OpCode.setData,
  OpCode.setACL,
  OpCode.check,
  OpCode.multi,
  OpCode.createSession,
  OpCode.closeSession,
  OpCode.reconfig,
]);

export class PrepRequestProcessor {
  readonly outstandingChanges: ChangeRecord[] = [];
  readonly outstandingChangesForPath = new Map<string, ChangeRecord>();
  readonly options: PrepOptions;
  /** Historical defects re-injected on purpose (the bug zoo): only "ZK-1208" is consulted here. */
  readonly reinjectedBugs = new Set<BugId>();
  /** The leader's view for reconfig (absent on a standalone server, which answers UNIMPLEMENTED). */
  reconfigHost: ReconfigHost | undefined;

  constructor(
    private readonly tree: DataTree,
    private readonly sessions: SessionChecker,
    options: Partial<PrepOptions> = {},
  ) {
    this.options = {
      extendedTypesEnabled: options.extendedTypesEnabled ?? false,
      enforceQuota: options.enforceQuota ?? false,
      ...(options.quotaRootUncounted === true ? { quotaRootUncounted: true } : {}),
      skipACL: options.skipACL ?? false,
      authProviders: options.authProviders ?? DEFAULT_AUTH_PROVIDERS,
      ...(options.superDigest !== undefined ? { superDigest: options.superDigest } : {}),
      ...(options.canary !== undefined ? { canary: options.canary } : {}),
      ...(options.reconfigEnabled === true ? { reconfigEnabled: true } : {}),
    };
  }

  /**
   * Prepares one request. `zxid` is the next zxid, consumed only when the result is a txn;
   * `timeMs` is the leader's clock, stamped into the header for every replica.
   */
  prep(req: PrepRequest, zxid: Zxid, timeMs: number): PrepResult {
    if (req.type === OpCode.multi) return this.prepMulti(req, zxid, timeMs);
    if (WRITE_OPS.has(req.type)) {
      const header: TxnHeader = { clientId: req.sessionId, cxid: req.cxid, zxid, time: timeMs, type: req.type };
      const r = this.pRequest2Txn(req.type, req.request, { req, zxid, timeMs });
      if (r.kind === "ok") return { kind: "txn", entry: { header, txn: r.txn }, err: Code.OK };
      return { kind: "txn", entry: { header: { ...header, type: OpCode.error }, txn: { kind: "ErrorTxn", err: r.err } }, err: r.err };
    }
    if (SESSION_ONLY_OPS.has(req.type)) return { kind: "noTxn", err: this.sessions.checkSession(req.sessionId, req.owner) };
    return { kind: "noTxn", err: Code.UNIMPLEMENTED };
  }

  /** The final stage applied `zxid`: drop change records up to it (FinalRequestProcessor). */
  removeOutstandingUpTo(zxid: Zxid): void {
    while (this.outstandingChanges.length > 0 && (this.outstandingChanges[0] as ChangeRecord).zxid <= zxid) {
      const cr = this.outstandingChanges.shift() as ChangeRecord;
      if (this.outstandingChangesForPath.get(cr.path) === cr) this.outstandingChangesForPath.delete(cr.path);
    }
  }

  applied(zxid: Zxid): void {
    this.removeOutstandingUpTo(zxid);
  }

  /** Forget every outstanding change (leadership lost / server reset). */
  clear(): void {
    this.outstandingChanges.length = 0;
    this.outstandingChangesForPath.clear();
  }

  // ---- change records --------------------------------------------------------------------

  /** The pending view of a node; null = NONODE (missing or deleted by a pending txn). */
  getRecordForPath(path: string): ChangeRecord | null {
    const last = this.outstandingChangesForPath.get(path);
    if (last !== undefined) return last.stat === null ? null : last;
    const n = this.tree.getNode(path);
    if (n === undefined) return null;
    return { zxid: -1n, path, stat: copyStatPersisted(n.stat), childCount: n.children.size, acl: n.acl, data: n.data };
  }

  private addChangeRecord(c: ChangeRecord): void {
    this.outstandingChanges.push(c);
    this.outstandingChangesForPath.set(c.path, c);
  }

  private pRequest2Txn(type: number, record: RequestRecord, ctx: TxnContext): Prepped {
    switch (type) {
      case OpCode.create:
      case OpCode.create2:
      case OpCode.createContainer:
      case OpCode.createTTL:
        return this.prepCreate(type, record, ctx);
      case OpCode.deleteContainer:
        return this.prepDeleteContainer(record, ctx);
      case OpCode.delete:
        return this.prepDelete(record, ctx);
      case OpCode.setData:
        return this.prepSetData(record, ctx);
      case OpCode.setACL:
        return this.prepSetACL(record, ctx);
      case OpCode.check:
        return this.prepCheck(record, ctx);
      case OpCode.createSession:
        return this.prepCreateSession(ctx);
      case OpCode.closeSession:
        return this.prepCloseSession(ctx);
      case OpCode.reconfig:
        return this.prepReconfig(record, ctx);
      default:
        // A read op inside a multi: Java fails to serialise the missing txn.
        return failure(Code.MARSHALLINGERROR);
    }
  }

  private checkSession(ctx: TxnContext): number {
    return this.sessions.checkSession(ctx.req.sessionId, ctx.req.owner);
  }

  private allowed(acl: readonly ACL[] | null, perm: number, ctx: TxnContext): boolean {
    return checkACL(acl ?? [], perm, ctx.req.authInfo, { skipACL: this.options.skipACL, authProviders: this.options.authProviders });
  }

  // ---- create ----------------------------------------------------------------------------

  private prepCreate(type: number, record: RequestRecord, ctx: TxnContext): Prepped {
    const isTTLOp = type === OpCode.createTTL;
    if (isTTLOp ? record.kind !== "CreateTTLRequest" : record.kind !== "CreateRequest") return failure(Code.MARSHALLINGERROR);
    if (record.kind !== "CreateRequest" && record.kind !== "CreateTTLRequest") return failure(Code.MARSHALLINGERROR);
    const flags = record.flags;
    const ttl = record.kind === "CreateTTLRequest" ? record.ttl : -1;
    const data = record.data;
    if (!isKnownCreateMode(flags)) return failure(Code.BADARGUMENTS);
    const pre = this.validateCreateRequest(flags, ttl, ctx);
    if (pre !== Code.OK) return failure(pre);
    const lastSlash = record.path.lastIndexOf("/");
    if (lastSlash === -1 || record.path.includes("\0")) return failure(Code.BADARGUMENTS);
    const parentPath = record.path.substring(0, lastSlash);
    const acl = fixupACL(ctx.req.authInfo, record.acl, this.options.authProviders);
    if (!Array.isArray(acl)) return failure(acl.err);
    const parent = this.getRecordForPath(parentPath);
    if (parent === null || parent.stat === null) return failure(Code.NONODE);
    if (!this.allowed(parent.acl, Perms.CREATE, ctx)) return failure(Code.NOAUTH);
    const parentCVersion = parent.stat.cversion;
    // The canary numbers a sequential name by the parent's children, not its creations.
    const sequence = this.options.canary === "sequence-from-child-count" ? parent.childCount : parentCVersion;
    const path = isSequentialMode(flags) ? record.path + formatSequence(sequence) : record.path;
    if (validatePath(path) !== null) return failure(Code.BADARGUMENTS);
    if (this.getRecordForPath(path) !== null) return failure(Code.NODEEXISTS);
    if (this.tree.ephemeralTypeOf(parent.stat.ephemeralOwner) === "NORMAL") return failure(Code.NOCHILDRENFOREPHEMERALS);
    const newCversion = int32(parentCVersion + 1);
    const quota = this.checkQuota(path, null, data, OpCode.create);
    if (quota !== Code.OK) return failure(quota);
    const txn = this.createTxn(type, path, data, acl, flags, newCversion, ttl);
    this.recordCreate(parent, parentPath, path, data, acl, this.ownerFor(flags, ttl, ctx), newCversion, ctx);
    return ok(txn);
  }

  /** `validateCreateRequest`: TTL rules, then the (global) session check. */
  private validateCreateRequest(flags: number, ttl: number, ctx: TxnContext): number {
    if (isTTLMode(flags) && !this.options.extendedTypesEnabled) return Code.UNIMPLEMENTED;
    if (isTTLMode(flags) ? ttl > MAX_TTL_MS || ttl <= 0 : ttl >= 0) return Code.BADARGUMENTS;
    // Deviation: opcode createTTL with non-TTL flags and ttl < 0 passes Java's checks and then
    // throws while being applied (a server crash); we refuse it here instead.
    if (ctx.req.type === OpCode.createTTL && !isTTLMode(flags)) return Code.BADARGUMENTS;
    if (isEphemeralMode(flags)) return this.sessions.checkGlobalSession(ctx.req.sessionId, ctx.req.owner);
    return this.checkSession(ctx);
  }

  private createTxn(type: number, path: string, data: Uint8Array | null, acl: ACL[], flags: number, parentCVersion: number, ttl: number): Txn {
    if (type === OpCode.createContainer) return { kind: "CreateContainerTxn", path, data, acl, parentCVersion };
    if (type === OpCode.createTTL) return { kind: "CreateTTLTxn", path, data, acl, parentCVersion, ttl };
    return { kind: "CreateTxn", path, data, acl, ephemeral: isEphemeralMode(flags), parentCVersion };
  }

  /** The owner recorded in the pending record — by *mode*, as Java does (not by opcode). */
  private ownerFor(flags: number, ttl: number, ctx: TxnContext): SessionId {
    if (isContainerMode(flags)) return CONTAINER_EPHEMERAL_OWNER;
    if (isTTLMode(flags)) return ttlEphemeralOwner(ttl);
    if (isEphemeralMode(flags)) return ctx.req.sessionId;
    return 0n;
  }

  private recordCreate(
    parent: ChangeRecord,
    parentPath: string,
    path: string,
    data: Uint8Array | null,
    acl: ACL[],
    owner: SessionId,
    newCversion: number,
    ctx: TxnContext,
  ): void {
    const p = duplicate(parent, ctx.zxid);
    p.childCount++;
    (p.stat as StatPersisted).cversion = newCversion;
    (p.stat as StatPersisted).pzxid = ctx.zxid;
    this.addChangeRecord(p);
    const stat = createStatPersisted(ctx.zxid, ctx.timeMs, owner);
    this.addChangeRecord({ zxid: ctx.zxid, path, stat, childCount: 0, acl, data });
  }

  // ---- delete / deleteContainer ------------------------------------------------------------

  /** `getParentPathAndValidate`: no `/`, a NUL or a special path → BADARGUMENTS. */
  private parentForDelete(path: string): string | null {
    const lastSlash = path.lastIndexOf("/");
    if (lastSlash === -1 || path.includes("\0") || isSpecialPath(path)) return null;
    return path.substring(0, lastSlash);
  }

  private prepDelete(record: RequestRecord, ctx: TxnContext): Prepped {
    if (record.kind !== "DeleteRequest") return failure(Code.MARSHALLINGERROR);
    const session = this.checkSession(ctx);
    if (session !== Code.OK) return failure(session);
    const parentPath = this.parentForDelete(record.path);
    if (parentPath === null) return failure(Code.BADARGUMENTS);
    const parent = this.getRecordForPath(parentPath);
    if (parent === null) return failure(Code.NONODE);
    const node = this.getRecordForPath(record.path);
    // The canary asks the node itself (when there is one) for DELETE, not its parent.
    const guard = this.options.canary === "delete-checks-node-acl" && node !== null && node.stat !== null ? node : parent;
    if (!this.allowed(guard.acl, Perms.DELETE, ctx)) return failure(Code.NOAUTH);
    if (node === null || node.stat === null) return failure(Code.NONODE);
    if (!checkAndIncVersion(node.stat.version, record.version).ok) return failure(Code.BADVERSION);
    if (node.childCount > 0) return failure(Code.NOTEMPTY);
    this.recordDelete(parent, record.path, ctx.zxid);
    return ok({ kind: "DeleteTxn", path: record.path });
  }

  /** Internal (ContainerManager): no session, no ACL; NOTEMPTY, BADVERSION for ephemerals. */
  private prepDeleteContainer(record: RequestRecord, ctx: TxnContext): Prepped {
    if (record.kind !== "DeleteContainerRequest" && record.kind !== "DeleteRequest") return failure(Code.MARSHALLINGERROR);
    const parentPath = this.parentForDelete(record.path);
    if (parentPath === null) return failure(Code.BADARGUMENTS);
    const node = this.getRecordForPath(record.path);
    if (node === null || node.stat === null) return failure(Code.NONODE);
    if (node.childCount > 0) return failure(Code.NOTEMPTY);
    if (this.tree.ephemeralTypeOf(node.stat.ephemeralOwner) === "NORMAL") return failure(Code.BADVERSION);
    const parent = this.getRecordForPath(parentPath);
    if (parent === null) return failure(Code.NONODE);
    this.recordDelete(parent, record.path, ctx.zxid);
    return ok({ kind: "DeleteTxn", path: record.path });
  }

  private recordDelete(parent: ChangeRecord, path: string, zxid: Zxid): void {
    const p = duplicate(parent, zxid);
    p.childCount--;
    (p.stat as StatPersisted).pzxid = zxid;
    this.addChangeRecord(p);
    this.addChangeRecord({ zxid, path, stat: null, childCount: -1, acl: null, data: null });
  }

  // ---- setData / setACL / check ------------------------------------------------------------

  private prepSetData(record: RequestRecord, ctx: TxnContext): Prepped {
    if (record.kind !== "SetDataRequest") return failure(Code.MARSHALLINGERROR);
    const session = this.checkSession(ctx);
    if (session !== Code.OK) return failure(session);
    if (validatePath(record.path) !== null) return failure(Code.BADARGUMENTS);
    const node = this.getRecordForPath(record.path);
    if (node === null || node.stat === null) return failure(Code.NONODE);
    if (!this.allowed(node.acl, Perms.WRITE, ctx)) return failure(Code.NOAUTH);
    const data = record.data;
    const quota = this.checkQuota(record.path, node.data, data, OpCode.setData);
    if (quota !== Code.OK) return failure(quota);
    const v = checkAndIncVersion(node.stat.version, record.version);
    if (!v.ok) return failure(Code.BADVERSION);
    const n = duplicate(node, ctx.zxid);
    const stat = n.stat as StatPersisted;
    stat.version = v.next;
    stat.mtime = ctx.timeMs;
    stat.mzxid = ctx.zxid;
    n.data = data;
    this.addChangeRecord(n);
    return ok({ kind: "SetDataTxn", path: record.path, data, version: v.next });
  }

  /**
   * `OpCode.reconfig`: the next config (prep-reconfig.ts), then WRITE on /zookeeper/config, then
   * a SetDataTxn of the new config text on that node with version −1 (the txn header keeps type
   * reconfig, which is how every replica knows to activate it).
   */
  private prepReconfig(record: RequestRecord, ctx: TxnContext): Prepped {
    if (record.kind !== "ReconfigRequest") return failure(Code.MARSHALLINGERROR);
    if (this.options.reconfigEnabled !== true) return failure(Code.RECONFIGDISABLED);
    const session = this.checkSession(ctx);
    if (session !== Code.OK) return failure(session);
    const next = nextQuorumVerifier(record, this.reconfigHost, ctx.zxid);
    if (!next.ok) return failure(next.err);
    const node = this.getRecordForPath(CONFIG_PATH);
    if (node === null || node.stat === null) return failure(Code.NONODE);
    if (!this.allowed(node.acl, Perms.WRITE, ctx)) return failure(Code.NOAUTH);
    const data = new TextEncoder().encode(next.qv.toString());
    const n = duplicate(node, ctx.zxid);
    const stat = n.stat as StatPersisted;
    stat.version = -1;
    stat.mtime = ctx.timeMs;
    stat.mzxid = ctx.zxid;
    n.data = data;
    this.addChangeRecord(n);
    return ok({ kind: "SetDataTxn", path: CONFIG_PATH, data, version: -1 });
  }

  private prepSetACL(record: RequestRecord, ctx: TxnContext): Prepped {
    if (record.kind !== "SetACLRequest") return failure(Code.MARSHALLINGERROR);
    const session = this.checkSession(ctx);
    if (session !== Code.OK) return failure(session);
    if (validatePath(record.path) !== null) return failure(Code.BADARGUMENTS);
    const acl = fixupACL(ctx.req.authInfo, record.acl, this.options.authProviders);
    if (!Array.isArray(acl)) return failure(acl.err);
    const node = this.getRecordForPath(record.path);
    if (node === null || node.stat === null) return failure(Code.NONODE);
    if (!this.allowed(node.acl, Perms.ADMIN, ctx)) return failure(Code.NOAUTH);
    const v = checkAndIncVersion(node.stat.aversion, record.version);
    if (!v.ok) return failure(Code.BADVERSION);
    const n = duplicate(node, ctx.zxid);
    (n.stat as StatPersisted).aversion = v.next; // the record keeps the old ACL, as in Java
    this.addChangeRecord(n);
    return ok({ kind: "SetACLTxn", path: record.path, acl, version: v.next });
  }

  private prepCheck(record: RequestRecord, ctx: TxnContext): Prepped {
    if (record.kind !== "CheckVersionRequest") return failure(Code.MARSHALLINGERROR);
    const session = this.checkSession(ctx);
    if (session !== Code.OK) return failure(session);
    if (validatePath(record.path) !== null) return failure(Code.BADARGUMENTS);
    const node = this.getRecordForPath(record.path);
    if (node === null || node.stat === null) return failure(Code.NONODE);
    if (!this.allowed(node.acl, Perms.READ, ctx)) return failure(Code.NOAUTH);
    const v = checkAndIncVersion(node.stat.version, record.version);
    if (!v.ok) return failure(Code.BADVERSION);
    return ok({ kind: "CheckVersionTxn", path: record.path, version: v.next });
  }

  // ---- sessions ----------------------------------------------------------------------------

  private prepCreateSession(ctx: TxnContext): Prepped {
    const timeOut = ctx.req.sessionTimeoutMs ?? 0;
    this.sessions.trackSession?.(ctx.req.sessionId, timeOut, ctx.req.owner);
    return ok({ kind: "CreateSessionTxn", timeOut });
  }

  /**
   * closeSession: no session check (the expirer is not the owner). paths2Delete = the tree's
   * ephemerals of the session (a clone of its Java HashSet), adjusted by pending changes in
   * order, listed in that set's iteration order as 3.8's `new ArrayList<>(es)`; then the session
   * is marked closing so later requests fail with SESSIONEXPIRED (ZOOKEEPER-1208). With that bug
   * re-injected the mark is missing: a request of the same session prepped after the close (but
   * before it is applied) still passes checkSession, and an ephemeral it creates outlives the
   * session.
   */
  private prepCloseSession(ctx: TxnContext): Prepped {
    const sessionId = ctx.req.sessionId;
    const es = this.tree.ephemeralsOf(sessionId);
    for (const c of this.outstandingChanges) {
      if (c.stat === null) es.delete(c.path);
      else if (c.stat.ephemeralOwner === sessionId) es.add(c.path);
    }
    const paths2Delete = [...es];
    for (const path of paths2Delete) {
      this.addChangeRecord({ zxid: ctx.zxid, path, stat: null, childCount: 0, acl: null, data: null });
    }
    if (!this.reinjectedBugs.has("ZK-1208")) this.sessions.setSessionClosing(sessionId);
    return ok({ kind: "CloseSessionTxn", paths2Delete });
  }

  // ---- multi -------------------------------------------------------------------------------

  private prepMulti(req: PrepRequest, zxid: Zxid, timeMs: number): PrepResult {
    const header: TxnHeader = { clientId: req.sessionId, cxid: req.cxid, zxid, time: timeMs, type: OpCode.multi };
    const ops = req.request.kind === "MultiOperationRecord" ? normalizeMultiOps(req.request.ops) : null;
    if (ops === null) {
      const err = Code.MARSHALLINGERROR;
      return { kind: "txn", entry: { header: { ...header, type: OpCode.error }, txn: { kind: "ErrorTxn", err } }, err };
    }
    const pending = this.getPendingChanges(ops);
    const ctx: TxnContext = { req, zxid, timeMs };
    const txns: MultiSubTxn[] = [];
    let firstErr: number = Code.OK;
    for (const op of ops) {
      if (firstErr !== Code.OK) {
        // The canary answers the ops after the failing one as if they had passed.
        const err = this.options.canary === "multi-misanswered" ? Code.OK : Code.RUNTIMEINCONSISTENCY;
        txns.push({ type: OpCode.error, txn: { kind: "ErrorTxn", err } });
        continue;
      }
      const r = this.pRequest2Txn(op.type, op.request, ctx);
      if (r.kind === "ok") {
        txns.push({ type: op.type, txn: r.txn });
      } else {
        firstErr = r.err;
        txns.push({ type: OpCode.error, txn: { kind: "ErrorTxn", err: r.err } });
        this.rollbackPendingChanges(zxid, pending);
      }
    }
    return { kind: "txn", entry: { header, txn: { kind: "MultiTxn", txns } }, err: firstErr };
  }

  /** Records that existed before the multi for its paths and their parents (ZOOKEEPER-1624). */
  private getPendingChanges(ops: readonly MultiOp[]): Map<string, ChangeRecord> {
    const pending = new Map<string, ChangeRecord>();
    for (const op of ops) {
      const path = "path" in op.request ? op.request.path : "";
      const cr = this.outstandingChangesForPath.get(path);
      if (cr !== undefined) pending.set(path, cr);
      const lastSlash = path.lastIndexOf("/");
      if (lastSlash === -1 || path.includes("\0")) continue;
      const parentPath = path.substring(0, lastSlash);
      const parentCr = this.outstandingChangesForPath.get(parentPath);
      if (parentCr !== undefined) pending.set(parentPath, parentCr);
    }
    return pending;
  }

  /** Drops this multi's records and restores the earlier ones that are still outstanding. */
  private rollbackPendingChanges(zxid: Zxid, pending: ReadonlyMap<string, ChangeRecord>): void {
    while (this.outstandingChanges.length > 0) {
      const c = this.outstandingChanges[this.outstandingChanges.length - 1] as ChangeRecord;
      if (c.zxid !== zxid) break;
      this.outstandingChanges.pop();
      this.outstandingChangesForPath.delete(c.path);
    }
    if (this.outstandingChanges.length === 0) return;
    const firstZxid = (this.outstandingChanges[0] as ChangeRecord).zxid;
    for (const c of pending.values()) {
      if (c.zxid < firstZxid) continue;
      this.outstandingChangesForPath.set(c.path, c);
    }
  }

  // ---- quota -------------------------------------------------------------------------------

  /**
   * `ZooKeeperServer.checkQuota` (only with enforceQuota): as in 3.8, only the *hard* limits
   * (`countHardLimit`, `byteHardLimit`) fail with QUOTAEXCEEDED; the soft `count`/`bytes`
   * limits only warn. Usage is computed from the committed tree (Java reads zookeeper_stats,
   * which tracks the same numbers).
   */
  private checkQuota(path: string, lastData: Uint8Array | null, data: Uint8Array | null, type: number): number {
    if (!this.options.enforceQuota) return Code.OK;
    const prefix = this.tree.getMaxPrefixWithQuota(path);
    if (prefix === null) return Code.OK;
    const limitNode = this.tree.getNode(`${QUOTA_PATH}${prefix}/${QUOTA_LIMIT_NODE}`);
    if (limitNode === undefined) return Code.OK;
    // Null limits data reads as no limits (Java's `new StatsTrack(null)` would throw an NPE).
    const limits = parseStatsTrack(new TextDecoder().decode(limitNode.data ?? EMPTY));
    const countDiff = type === OpCode.create ? 1 : 0;
    const bytesDiff = (data?.length ?? 0) - (lastData?.length ?? 0);
    const limitOf = (k: string): number => limits.get(k) ?? -1;
    const checkCount = countDiff !== 0 && (limitOf("count") > -1 || limitOf("countHardLimit") > -1);
    const checkBytes = bytesDiff !== 0 && (limitOf("bytes") > -1 || limitOf("byteHardLimit") > -1);
    if (!checkCount && !checkBytes) return Code.OK;
    const usage = this.tree.quotaUsage(prefix);
    if (this.options.quotaRootUncounted === true) usage.count -= 1; // broken on purpose (canary)
    if (checkCount && limitOf("countHardLimit") > -1 && usage.count + countDiff > limitOf("countHardLimit")) {
      return Code.QUOTAEXCEEDED;
    }
    if (checkBytes && limitOf("byteHardLimit") > -1 && usage.bytes + bytesDiff > limitOf("byteHardLimit")) {
      return Code.QUOTAEXCEEDED;
    }
    return Code.OK;
  }
}

/** `StatsTrack`: `k=v` pairs separated by `,` or `;`; an empty value means −1. */
export function parseStatsTrack(text: string): Map<string, number> {
  const out = new Map<string, number>();
  if (text.length === 0) return out;
  for (const pair of text.split(/[,;]+/)) {
    const [k, v] = pair.split("=");
    if (k === undefined || k === "") continue;
    const n = v === undefined || v === "" ? -1 : Number.parseInt(v, 10);
    out.set(k, Number.isNaN(n) ? -1 : n);
  }
  return out;
}

/**
 * How the server's `MultiOperationRecord` deserialisation re-types write sub-ops: create /
 * create2 / createContainer with a CreateRequest become createContainer for CONTAINER flags and
 * create otherwise (so a multi never yields a create2 result); createTTL with non-TTL flags
 * becomes a plain create. Read ops, TTL flags in a CreateRequest, unknown types or mismatched
 * records make the whole multi a MARSHALLINGERROR (null).
 */
export function normalizeMultiOps(ops: readonly MultiOp[]): MultiOp[] | null {
  const out: MultiOp[] = [];
  for (const op of ops) {
    const n = normalizeMultiOp(op);
    if (n === null) return null;
    out.push(n);
  }
  return out;
}

function normalizeMultiOp(op: MultiOp): MultiOp | null {
  const r = op.request;
  switch (op.type) {
    case OpCode.create:
    case OpCode.create2:
    case OpCode.createContainer:
      if (r.kind !== "CreateRequest" || isTTLMode(r.flags)) return null;
      return { type: isContainerMode(r.flags) ? OpCode.createContainer : OpCode.create, request: r };
    case OpCode.createTTL: {
      if (r.kind !== "CreateTTLRequest") return null;
      if (isTTLMode(r.flags)) return op;
      const plain = { kind: "CreateRequest" as const, path: r.path, data: r.data, acl: r.acl, flags: r.flags };
      return { type: isContainerMode(r.flags) ? OpCode.createContainer : OpCode.create, request: plain };
    }
    case OpCode.delete:
      return r.kind === "DeleteRequest" ? op : null;
    case OpCode.setData:
      return r.kind === "SetDataRequest" ? op : null;
    case OpCode.check:
      return r.kind === "CheckVersionRequest" ? op : null;
    default:
      return null;
  }
}
