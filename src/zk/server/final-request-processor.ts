/**
 * The `FinalRequestProcessor` as pure functions: the reply for an applied txn
 * (`replyForTxn`) and the evaluation of read-side requests against the local tree
 * (`processRead`), docs/zookeeper.md §1.4 (read precedence), §2.2 (watch registration), §2.6–2.7,
 * §4 (multi / multiRead replies), §5.4 (which read checks what).
 *
 * Invariants:
 * - Results are values: `err` is the ReplyHeader code, `response` the body (null = none).
 *   `disposition` tells the connection what to do: reply; reply then close (closeSession,
 *   unknown op); or close *without* replying (SESSIONMOVED, and a successful standalone
 *   `check`, whose reply 3.8 cannot serialise).
 * - Reads check existence (NONODE) before permission (NOAUTH); `exists` registers its watch
 *   even on NONODE and checks no ACL (3.8.0); getData/getChildren register only on success.
 * - multi: the header err is 0 even when the multi failed; failures live in the results.
 * - Stat.ephemeralOwner is 0 for container/TTL nodes (the DataTree's copyStat does it).
 */
import { Code } from "../proto/error-code.js";
import { OpCode } from "../proto/op-code.js";
import type { MultiResult, RequestRecord, ResponseRecord } from "../proto/packets.js";
import type { Txn } from "../proto/txn.js";
import { Perms, type Id, type SessionId } from "../proto/records.js";
import { checkACL, clientInfos, maskDigestAcl, type AuthProviders } from "./acl.js";
import type { DataTree, ProcessTxnResult } from "./data-tree.js";
import { isKnownWatcherType, type ServerWatcher } from "./watch-manager.js";

export type ReplyDisposition = "reply" | "replyThenClose" | "closeWithoutReply";

export interface FinalReply {
  err: number;
  response: ResponseRecord | null;
  disposition: ReplyDisposition;
}

export interface ReadOptions {
  skipACL?: boolean;
  /** Registered auth providers (default: ip and digest). */
  authProviders?: AuthProviders;
}

const EMPTY: ResponseRecord = { kind: "Empty" };

function reply(err: number, response: ResponseRecord | null): FinalReply {
  return { err, response: err === Code.OK ? response : null, disposition: "reply" };
}

function errorReply(err: number): FinalReply {
  if (err === Code.SESSIONMOVED) return { err, response: null, disposition: "closeWithoutReply" };
  return { err, response: null, disposition: "reply" };
}

// ---- writes ------------------------------------------------------------------------------

/**
 * The reply for a request whose txn was applied; `requestType` is the request's OpCode (the
 * txn header may say `error`). createSession has no reply here (the ConnectResponse is sent by
 * the session code).
 */
export function replyForTxn(requestType: number, result: ProcessTxnResult, txn?: Txn): FinalReply {
  if (result.type === OpCode.error) return errorReply(result.err);
  switch (requestType) {
    case OpCode.multi:
      return multiReply(result);
    case OpCode.create:
      return reply(result.err, { kind: "CreateResponse", path: result.path ?? "" });
    case OpCode.create2:
    case OpCode.createTTL:
    case OpCode.createContainer:
      if (result.err !== Code.OK || result.stat === null) return reply(result.err || Code.SYSTEMERROR, null);
      return reply(Code.OK, { kind: "Create2Response", path: result.path ?? "", stat: result.stat });
    case OpCode.delete:
    case OpCode.deleteContainer:
      return reply(result.err, EMPTY);
    case OpCode.setData:
      if (result.err !== Code.OK || result.stat === null) return reply(result.err || Code.SYSTEMERROR, null);
      return reply(Code.OK, { kind: "SetDataResponse", stat: result.stat });
    case OpCode.setACL:
      if (result.err !== Code.OK || result.stat === null) return reply(result.err || Code.SYSTEMERROR, null);
      return reply(Code.OK, { kind: "SetACLResponse", stat: result.stat });
    case OpCode.reconfig:
      // FinalRequestProcessor answers with the config node's data and stat.
      if (result.err !== Code.OK || result.stat === null) return reply(result.err || Code.SYSTEMERROR, null);
      return reply(Code.OK, { kind: "GetDataResponse", data: txn?.kind === "SetDataTxn" ? txn.data : null, stat: result.stat });
    case OpCode.closeSession:
      return { err: result.err, response: null, disposition: "replyThenClose" };
    case OpCode.createSession:
      return reply(result.err, null);
    case OpCode.check:
      // 3.8 answers a successful standalone check with an unserialisable SetDataResponse.
      return { err: result.err, response: null, disposition: "closeWithoutReply" };
    default:
      return reply(Code.OK, null);
  }
}

function multiReply(result: ProcessTxnResult): FinalReply {
  const results: MultiResult[] = [];
  for (const sub of result.multiResult ?? []) {
    if (sub.type === OpCode.error && sub.err === Code.SESSIONMOVED) {
      return { err: Code.SESSIONMOVED, response: null, disposition: "closeWithoutReply" };
    }
    results.push(multiSubResult(sub));
  }
  return { err: Code.OK, response: { kind: "MultiResponse", results }, disposition: "reply" };
}

/** OpResult of one sub-txn: stat-bearing creates report type create2 (`CreateResult`). */
function multiSubResult(sub: ProcessTxnResult): MultiResult {
  switch (sub.type) {
    case OpCode.check:
      return { type: OpCode.check, err: Code.OK, response: null };
    case OpCode.create:
      return { type: OpCode.create, err: Code.OK, response: { kind: "CreateResponse", path: sub.path ?? "" } };
    case OpCode.create2:
    case OpCode.createTTL:
    case OpCode.createContainer:
      if (sub.stat === null) return { type: OpCode.create, err: Code.OK, response: { kind: "CreateResponse", path: sub.path ?? "" } };
      return { type: OpCode.create2, err: Code.OK, response: { kind: "Create2Response", path: sub.path ?? "", stat: sub.stat } };
    case OpCode.delete:
    case OpCode.deleteContainer:
      return { type: OpCode.delete, err: Code.OK, response: null };
    case OpCode.setData:
      if (sub.stat === null) return errorResult(sub.err || Code.SYSTEMERROR);
      return { type: OpCode.setData, err: Code.OK, response: { kind: "SetDataResponse", stat: sub.stat } };
    case OpCode.error:
      return errorResult(sub.err);
    default:
      throw new Error(`multi: impossible sub-txn type ${sub.type}`);
  }
}

function errorResult(err: number): MultiResult {
  return { type: OpCode.error, err, response: { kind: "ErrorResponse", err } };
}

// ---- reads -------------------------------------------------------------------------------

interface ReadContext {
  tree: DataTree;
  watcher: ServerWatcher;
  authInfo: readonly Id[];
  sessionId: SessionId;
  opts: ReadOptions;
}

/**
 * Evaluates a read-side request on the local tree: exists, getData, getChildren[2], getACL,
 * getAllChildrenNumber, getEphemerals, multiRead, addWatch, checkWatches, removeWatches,
 * whoAmI, setWatches[2], sync, ping. `watcher` is the requesting connection. The session check
 * happened before (prep on the leader); an unknown op answers UNIMPLEMENTED and closes.
 */
export function processRead(
  tree: DataTree,
  type: number,
  request: RequestRecord,
  watcher: ServerWatcher,
  authInfo: readonly Id[],
  sessionId: SessionId,
  opts: ReadOptions = {},
): FinalReply {
  const ctx: ReadContext = { tree, watcher, authInfo, sessionId, opts };
  const r = dispatchRead(ctx, type, request);
  if (r === null) return { err: Code.UNIMPLEMENTED, response: null, disposition: "replyThenClose" };
  return r;
}

function dispatchRead(ctx: ReadContext, type: number, request: RequestRecord): FinalReply | null {
  switch (type) {
    case OpCode.exists:
      return request.kind === "ExistsRequest" ? doExists(ctx, request.path, request.watch) : marshalling();
    case OpCode.getData:
      return request.kind === "GetDataRequest" ? fromRead(doGetData(ctx, request.path, request.watch)) : marshalling();
    case OpCode.getChildren:
      return request.kind === "GetChildrenRequest" ? fromRead(doGetChildren(ctx, request.path, request.watch, false)) : marshalling();
    case OpCode.getChildren2:
      return request.kind === "GetChildren2Request" ? fromRead(doGetChildren(ctx, request.path, request.watch, true)) : marshalling();
    case OpCode.getACL:
      return request.kind === "GetACLRequest" ? doGetACL(ctx, request.path) : marshalling();
    case OpCode.getAllChildrenNumber:
      return request.kind === "GetAllChildrenNumberRequest" ? doGetAllChildrenNumber(ctx, request.path) : marshalling();
    case OpCode.getEphemerals:
      if (request.kind !== "GetEphemeralsRequest") return marshalling();
      return reply(Code.OK, { kind: "GetEphemeralsResponse", ephemerals: ctx.tree.getEphemerals(ctx.sessionId, request.prefixPath) });
    case OpCode.multiRead:
      return request.kind === "MultiOperationRecord" ? doMultiRead(ctx, request) : marshalling();
    case OpCode.addWatch:
      if (request.kind !== "AddWatchRequest") return marshalling();
      if (!ctx.tree.addWatch(request.path, ctx.watcher, request.mode)) return marshalling();
      return reply(Code.OK, { kind: "ErrorResponse", err: 0 });
    case OpCode.checkWatches:
    case OpCode.removeWatches:
      return doWatchesRequest(ctx, type, request);
    case OpCode.whoAmI:
      return reply(Code.OK, { kind: "WhoAmIResponse", clientInfo: clientInfos(ctx.authInfo, ctx.opts.authProviders) });
    case OpCode.setWatches:
    case OpCode.setWatches2:
      return doSetWatches(ctx, request);
    case OpCode.sync:
      return request.kind === "SyncRequest" ? reply(Code.OK, { kind: "SyncResponse", path: request.path }) : marshalling();
    case OpCode.ping:
      return reply(Code.OK, EMPTY);
    default:
      return null;
  }
}

function marshalling(): FinalReply {
  return reply(Code.MARSHALLINGERROR, null);
}

type ReadOutcome = { err: number; response: ResponseRecord | null };

function fromRead(r: ReadOutcome): FinalReply {
  return reply(r.err, r.response);
}

function allowed(ctx: ReadContext, path: string, perm: number): boolean {
  return checkACL(ctx.tree.aclForNode(path) ?? [], perm, ctx.authInfo, { skipACL: ctx.opts.skipACL === true, ...(ctx.opts.authProviders !== undefined ? { authProviders: ctx.opts.authProviders } : {}) });
}

/** exists: NUL → BADARGUMENTS; the watch is registered even when the node is missing. */
function doExists(ctx: ReadContext, path: string, watch: boolean): FinalReply {
  if (path.includes("\0")) return reply(Code.BADARGUMENTS, null);
  const stat = ctx.tree.statNode(path, watch ? ctx.watcher : null);
  if (stat === null) return reply(Code.NONODE, null);
  return reply(Code.OK, { kind: "ExistsResponse", stat });
}

function doGetData(ctx: ReadContext, path: string, watch: boolean): ReadOutcome {
  if (ctx.tree.getNode(path) === undefined) return { err: Code.NONODE, response: null };
  if (!allowed(ctx, path, Perms.READ)) return { err: Code.NOAUTH, response: null };
  const r = ctx.tree.getData(path, watch ? ctx.watcher : null);
  if (r === null) return { err: Code.NONODE, response: null };
  return { err: Code.OK, response: { kind: "GetDataResponse", data: r.data, stat: r.stat } };
}

function doGetChildren(ctx: ReadContext, path: string, watch: boolean, withStat: boolean): ReadOutcome {
  if (ctx.tree.getNode(path) === undefined) return { err: Code.NONODE, response: null };
  if (!allowed(ctx, path, Perms.READ)) return { err: Code.NOAUTH, response: null };
  const r = ctx.tree.getChildren(path, watch ? ctx.watcher : null);
  if (r === null) return { err: Code.NONODE, response: null };
  const response: ResponseRecord = withStat
    ? { kind: "GetChildren2Response", children: r.children, stat: r.stat }
    : { kind: "GetChildrenResponse", children: r.children };
  return { err: Code.OK, response };
}

/** getACL: READ or ADMIN; without ADMIN digest ids are masked to `user:x`. */
function doGetACL(ctx: ReadContext, path: string): FinalReply {
  const r = ctx.tree.getACL(path);
  if (r === null) return reply(Code.NONODE, null);
  if (!allowed(ctx, path, Perms.READ | Perms.ADMIN)) return reply(Code.NOAUTH, null);
  const acl = allowed(ctx, path, Perms.ADMIN) ? r.acl : maskDigestAcl(r.acl);
  return reply(Code.OK, { kind: "GetACLResponse", acl, stat: r.stat });
}

function doGetAllChildrenNumber(ctx: ReadContext, path: string): FinalReply {
  if (ctx.tree.getNode(path) === undefined) return reply(Code.NONODE, null);
  if (!allowed(ctx, path, Perms.READ)) return reply(Code.NOAUTH, null);
  return reply(Code.OK, { kind: "GetAllChildrenNumberResponse", totalNumber: ctx.tree.getAllChildrenNumber(path) });
}

/** multiRead: each getData/getChildren evaluated independently; errors become ErrorResults. */
function doMultiRead(ctx: ReadContext, request: { ops: { type: number; request: RequestRecord }[] }): FinalReply {
  const results: MultiResult[] = [];
  for (const op of request.ops) {
    const r = op.request;
    let outcome: ReadOutcome;
    if (op.type === OpCode.getData && r.kind === "GetDataRequest") outcome = doGetData(ctx, r.path, r.watch);
    else if (op.type === OpCode.getChildren && r.kind === "GetChildrenRequest") outcome = doGetChildren(ctx, r.path, r.watch, false);
    else return marshalling();
    if (outcome.err !== Code.OK) results.push(errorResult(outcome.err));
    else results.push({ type: op.type, err: Code.OK, response: outcome.response as MultiResult["response"] });
  }
  return reply(Code.OK, { kind: "MultiResponse", results });
}

/** checkWatches / removeWatches: NOWATCHER if this connection has no such watch (§2.7). */
function doWatchesRequest(ctx: ReadContext, type: number, request: RequestRecord): FinalReply {
  const expected = type === OpCode.checkWatches ? "CheckWatchesRequest" : "RemoveWatchesRequest";
  if (request.kind !== expected || !("type" in request)) return marshalling();
  // 3.8 knows Children/Data/Any only; Persistent(4)/PersistentRecursive(5) fail to decode.
  if (!isKnownWatcherType(request.type)) return marshalling();
  const found =
    type === OpCode.checkWatches
      ? ctx.tree.watches.containsWatcher(request.path, request.type, ctx.watcher)
      : ctx.tree.watches.removeWatch(request.path, request.type, ctx.watcher);
  return found ? reply(Code.OK, EMPTY) : reply(Code.NOWATCHER, null);
}

function doSetWatches(ctx: ReadContext, request: RequestRecord): FinalReply {
  if (request.kind === "SetWatches") {
    ctx.tree.setWatches(request.relativeZxid, request.dataWatches, request.existWatches, request.childWatches, [], [], ctx.watcher);
    return reply(Code.OK, EMPTY);
  }
  if (request.kind === "SetWatches2") {
    ctx.tree.setWatches(
      request.relativeZxid,
      request.dataWatches,
      request.existWatches,
      request.childWatches,
      request.persistentWatches,
      request.persistentRecursiveWatches,
      ctx.watcher,
    );
    return reply(Code.OK, EMPTY);
  }
  return marshalling();
}
