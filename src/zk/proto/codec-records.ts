/**
 * Jute record bodies of the client protocol (docs/zookeeper.md §9.3, §4, §1.6): the shared records
 * (Stat, Id, ACL, WatcherEvent, MultiHeader), every request record and every response record,
 * each written and read field by field in `zookeeper.jute` order. The frames around them are
 * codec.ts; txn records codec-txn.ts.
 */
import { invariant, unreachable } from "../../base/errors.js";
import { JuteError, JuteReader, JuteWriter, type JuteSink } from "./jute.js";
import { OpCode, opName } from "./op-code.js";
import type { MultiOp, MultiResult, RequestRecord, ResponseRecord } from "./packets.js";
import { type ACL, type ClientInfo, type Id, type RequestACL, type Stat, type WatcherEvent } from "./records.js";
import { MULTI_OP_KIND_BY_TYPE, MULTI_RESULT_KIND_BY_TYPE, type RequestKind, type ResponseKind } from "./registry-doc.js";

// ---- shared records -----------------------------------------------------------------------

/** Stat on the wire: 5 longs-as-zxid/time, 3 ints, 1 long, 2 ints, 1 long (§1.6). */
export const STAT_SIZE_BYTES = 68;

/**
 * One scratch writer for every encode: it grows once and is reused, and the result is copied
 * out (a frame costs one allocation instead of a sizing pass, a buffer and a DataView).
 * Encoding never calls back into user code, so it cannot be re-entered.
 */
const SCRATCH = new JuteWriter(4096);
export function scratchWriter(): JuteWriter {
  SCRATCH.reset();
  return SCRATCH;
}

export function writeStat(s: JuteSink, stat: Stat): void {
  s.writeLong(stat.czxid);
  s.writeLong(stat.mzxid);
  s.writeLongNumber(stat.ctime);
  s.writeLongNumber(stat.mtime);
  s.writeInt(stat.version);
  s.writeInt(stat.cversion);
  s.writeInt(stat.aversion);
  s.writeLong(stat.ephemeralOwner);
  s.writeInt(stat.dataLength);
  s.writeInt(stat.numChildren);
  s.writeLong(stat.pzxid);
}

/** The Stat held as member `stat` of the record named `record` (its fields named `record.stat.czxid`, …). */
export function readStat(r: JuteReader, record: string): Stat {
  return {
    czxid: r.readLong(record, "stat.czxid"),
    mzxid: r.readLong(record, "stat.mzxid"),
    ctime: r.readLongNumber(record, "stat.ctime"),
    mtime: r.readLongNumber(record, "stat.mtime"),
    version: r.readInt(record, "stat.version"),
    cversion: r.readInt(record, "stat.cversion"),
    aversion: r.readInt(record, "stat.aversion"),
    ephemeralOwner: r.readLong(record, "stat.ephemeralOwner"),
    dataLength: r.readInt(record, "stat.dataLength"),
    numChildren: r.readInt(record, "stat.numChildren"),
    pzxid: r.readLong(record, "stat.pzxid"),
  };
}

export function writeId(s: JuteSink, id: Id | RequestACL["id"]): void {
  s.writeUString(id.scheme);
  s.writeUString(id.id);
}
export function readId(r: JuteReader, field: string): Id {
  return { scheme: r.readString(`${field}.scheme`), id: r.readString(`${field}.id`) };
}

export function writeACL(s: JuteSink, acl: ACL | RequestACL): void {
  s.writeInt(acl.perms);
  writeId(s, acl.id);
}
export function readACL(r: JuteReader, field: string): ACL {
  return { perms: r.readInt(`${field}.perms`), id: readId(r, `${field}.id`) };
}

export function writeAclVector(s: JuteSink, acl: readonly (ACL | RequestACL)[]): void {
  s.writeVector(acl, writeACL);
}
/** A request's ACL: its scheme and id may be Jute's null string (records.ts `RequestACL`). */
function readRequestACL(r: JuteReader, field: string): RequestACL {
  const perms = r.readInt(`${field}.perms`);
  return { perms, id: { scheme: r.readUString(`${field}.id.scheme`), id: r.readUString(`${field}.id.id`) } };
}

function readRequestAclVector(r: JuteReader, record: string, member: string): RequestACL[] {
  const field = `${record}.${member}`;
  return r.readVector(field, (rr, i) => readRequestACL(rr, `${field}[${i}]`));
}

export function readAclVector(r: JuteReader, record: string, member: string): ACL[] {
  const field = `${record}.${member}`;
  return r.readVector(field, (rr, i) => readACL(rr, `${field}[${i}]`));
}

export function writeWatcherEvent(s: JuteSink, e: WatcherEvent): void {
  s.writeInt(e.type);
  s.writeInt(e.state);
  s.writeUString(e.path);
}
export function readWatcherEvent(r: JuteReader, field: string): WatcherEvent {
  return {
    type: r.readInt(field, "type"),
    state: r.readInt(field, "state"),
    path: r.readString(field, "path"),
  };
}

function writeClientInfo(s: JuteSink, c: ClientInfo): void {
  s.writeUString(c.authScheme);
  s.writeUString(c.user);
}

/** `MultiHeader{type, done, err}`; the list terminator is `{-1, true, -1}` (§4). */
function writeMultiHeader(s: JuteSink, type: number, done: boolean, err: number): void {
  s.writeInt(type);
  s.writeBool(done);
  s.writeInt(err);
}
function readMultiHeader(r: JuteReader, field: string): { type: number; done: boolean; err: number } {
  return { type: r.readInt(`${field}.type`), done: r.readBool(`${field}.done`), err: r.readInt(`${field}.err`) };
}

// ---- request records ----------------------------------------------------------------------

export function writeRequestRecord(s: JuteSink, rec: RequestRecord): void {
  switch (rec.kind) {
    case "CreateRequest":
    case "CreateTTLRequest":
      s.writeUString(rec.path);
      s.writeBuffer(rec.data);
      writeAclVector(s, rec.acl);
      s.writeInt(rec.flags);
      if (rec.kind === "CreateTTLRequest") s.writeLongNumber(rec.ttl);
      return;
    case "DeleteRequest":
    case "CheckVersionRequest":
      s.writeUString(rec.path);
      s.writeInt(rec.version);
      return;
    case "ExistsRequest":
    case "GetDataRequest":
    case "GetChildrenRequest":
    case "GetChildren2Request":
      s.writeUString(rec.path);
      s.writeBool(rec.watch);
      return;
    case "SetDataRequest":
      s.writeUString(rec.path);
      s.writeBuffer(rec.data);
      s.writeInt(rec.version);
      return;
    case "ReconfigRequest":
      s.writeUString(rec.joiningServers);
      s.writeUString(rec.leavingServers);
      s.writeUString(rec.newMembers);
      s.writeLong(rec.curConfigId);
      return;
    case "GetACLRequest":
    case "SyncRequest":
    case "GetAllChildrenNumberRequest":
    case "DeleteContainerRequest":
      s.writeUString(rec.path);
      return;
    case "SetACLRequest":
      s.writeUString(rec.path);
      writeAclVector(s, rec.acl);
      s.writeInt(rec.version);
      return;
    case "MultiOperationRecord":
      return writeMultiOperation(s, rec.ops);
    case "CheckWatchesRequest":
    case "RemoveWatchesRequest":
      s.writeUString(rec.path);
      s.writeInt(rec.type);
      return;
    case "AuthPacket":
      s.writeInt(rec.type);
      s.writeUString(rec.scheme);
      s.writeBuffer(rec.auth);
      return;
    case "SetWatches":
    case "SetWatches2":
      s.writeLong(rec.relativeZxid);
      s.writeStringVector(rec.dataWatches);
      s.writeStringVector(rec.existWatches);
      s.writeStringVector(rec.childWatches);
      if (rec.kind === "SetWatches2") {
        s.writeStringVector(rec.persistentWatches);
        s.writeStringVector(rec.persistentRecursiveWatches);
      }
      return;
    case "GetEphemeralsRequest":
      s.writeUString(rec.prefixPath);
      return;
    case "AddWatchRequest":
      s.writeUString(rec.path);
      s.writeInt(rec.mode);
      return;
    case "GetSASLRequest":
      s.writeBuffer(rec.token);
      return;
    case "Empty":
      return;
    default:
      unreachable(rec);
  }
}

function writeMultiOperation(s: JuteSink, ops: readonly MultiOp[]): void {
  for (const op of ops) {
    const kind = MULTI_OP_KIND_BY_TYPE.get(op.type);
    if (kind !== op.request.kind) invariant(false, `multi sub-op ${opName(op.type)} cannot carry ${op.request.kind}`);
    writeMultiHeader(s, op.type, false, -1);
    writeRequestRecord(s, op.request);
  }
  writeMultiHeader(s, -1, true, -1);
}

export function readRequestRecord(r: JuteReader, kind: RequestKind): RequestRecord {
  switch (kind) {
    case "CreateRequest":
    case "CreateTTLRequest": {
      const path = r.readString(kind, "path");
      const data = r.readBuffer(kind, "data");
      const acl = readRequestAclVector(r, kind, "acl");
      const flags = r.readInt(kind, "flags");
      if (kind === "CreateRequest") return { kind, path, data, acl, flags };
      return { kind, path, data, acl, flags, ttl: r.readLongNumber(kind, "ttl") };
    }
    case "DeleteRequest":
    case "CheckVersionRequest":
      return { kind, path: r.readString(kind, "path"), version: r.readInt(kind, "version") };
    case "ExistsRequest":
    case "GetDataRequest":
    case "GetChildrenRequest":
    case "GetChildren2Request":
      return { kind, path: r.readString(kind, "path"), watch: r.readBool(kind, "watch") };
    case "SetDataRequest":
      return {
        kind,
        path: r.readString(kind, "path"),
        data: r.readBuffer(kind, "data"),
        version: r.readInt(kind, "version"),
      };
    case "ReconfigRequest":
      return {
        kind,
        joiningServers: r.readUString(kind, "joiningServers"),
        leavingServers: r.readUString(kind, "leavingServers"),
        newMembers: r.readUString(kind, "newMembers"),
        curConfigId: r.readLong(kind, "curConfigId"),
      };
    case "GetACLRequest":
    case "SyncRequest":
    case "GetAllChildrenNumberRequest":
    case "DeleteContainerRequest":
      return { kind, path: r.readString(kind, "path") };
    case "SetACLRequest":
      return {
        kind,
        path: r.readString(kind, "path"),
        acl: readRequestAclVector(r, kind, "acl"),
        version: r.readInt(kind, "version"),
      };
    case "MultiOperationRecord":
      return { kind, ops: readMultiOperation(r) };
    case "CheckWatchesRequest":
    case "RemoveWatchesRequest":
      return { kind, path: r.readString(kind, "path"), type: r.readInt(kind, "type") };
    case "AuthPacket":
      return {
        kind,
        type: r.readInt(kind, "type"),
        scheme: r.readString(kind, "scheme"),
        auth: r.readBufferNonNull(kind, "auth"),
      };
    case "SetWatches":
    case "SetWatches2":
      return readSetWatches(r, kind);
    case "GetEphemeralsRequest":
      return { kind, prefixPath: r.readString(kind, "prefixPath") };
    case "AddWatchRequest":
      return { kind, path: r.readString(kind, "path"), mode: r.readInt(kind, "mode") };
    case "GetSASLRequest":
      return { kind, token: r.readBufferNonNull(kind, "token") };
    case "Empty":
      return { kind };
    default:
      return unreachable(kind);
  }
}

function readSetWatches(r: JuteReader, kind: "SetWatches" | "SetWatches2"): RequestRecord {
  const relativeZxid = r.readLong(kind, "relativeZxid");
  const dataWatches = r.readStringVector(kind, "dataWatches");
  const existWatches = r.readStringVector(kind, "existWatches");
  const childWatches = r.readStringVector(kind, "childWatches");
  if (kind === "SetWatches") return { kind, relativeZxid, dataWatches, existWatches, childWatches };
  return {
    kind,
    relativeZxid,
    dataWatches,
    existWatches,
    childWatches,
    persistentWatches: r.readStringVector(kind, "persistentWatches"),
    persistentRecursiveWatches: r.readStringVector(kind, "persistentRecursiveWatches"),
  };
}

/** `MultiOperationRecord.deserialize`: sub-ops until a header with `done`. */
function readMultiOperation(r: JuteReader): MultiOp[] {
  const ops: MultiOp[] = [];
  for (;;) {
    const field = `MultiOperationRecord.ops[${ops.length}]`;
    const at = r.offset;
    const h = readMultiHeader(r, `${field}.header`);
    if (h.done) return ops;
    const kind = MULTI_OP_KIND_BY_TYPE.get(h.type);
    if (kind === undefined) throw new JuteError("malformed", `${field}.header.type`, `invalid type of op ${h.type}`, at);
    ops.push({ type: h.type, request: readRequestRecord(r, kind) as MultiOp["request"] });
  }
}

// ---- response records ---------------------------------------------------------------------

export function writeResponseRecord(s: JuteSink, rec: ResponseRecord): void {
  switch (rec.kind) {
    case "CreateResponse":
    case "SyncResponse":
      s.writeUString(rec.path);
      return;
    case "Create2Response":
      s.writeUString(rec.path);
      writeStat(s, rec.stat);
      return;
    case "ExistsResponse":
    case "SetDataResponse":
    case "SetACLResponse":
      writeStat(s, rec.stat);
      return;
    case "GetDataResponse":
      s.writeBuffer(rec.data);
      writeStat(s, rec.stat);
      return;
    case "GetACLResponse":
      writeAclVector(s, rec.acl);
      writeStat(s, rec.stat);
      return;
    case "GetChildrenResponse":
    case "GetChildren2Response":
      s.writeStringVector(rec.children);
      if (rec.kind === "GetChildren2Response") writeStat(s, rec.stat);
      return;
    case "GetEphemeralsResponse":
      s.writeStringVector(rec.ephemerals);
      return;
    case "GetAllChildrenNumberResponse":
      s.writeInt(rec.totalNumber);
      return;
    case "ErrorResponse":
      s.writeInt(rec.err);
      return;
    case "WhoAmIResponse":
      s.writeVector(rec.clientInfo, writeClientInfo);
      return;
    case "SetSASLResponse":
      s.writeBuffer(rec.token);
      return;
    case "MultiResponse":
      return writeMultiResults(s, rec.results);
    case "WatcherEvent":
      return writeWatcherEvent(s, rec.event);
    case "Empty":
      return;
    default:
      unreachable(rec);
  }
}

/**
 * `MultiResponse.serialize`: header `{type, false, err}` where err is the code for an error
 * result and 0 otherwise; error results carry ErrorResponse, delete/check nothing.
 */
function writeMultiResults(s: JuteSink, results: readonly MultiResult[]): void {
  for (const res of results) {
    const kind = MULTI_RESULT_KIND_BY_TYPE.get(res.type);
    if (kind === undefined) invariant(false, `MultiResponse cannot carry a result of type ${opName(res.type)}`);
    if (res.type === OpCode.error) {
      writeMultiHeader(s, res.type, false, res.err);
      s.writeInt(res.err);
      continue;
    }
    writeMultiHeader(s, res.type, false, 0);
    if (kind === null) continue;
    if (res.response?.kind !== kind) invariant(false, `multi result ${opName(res.type)} needs ${kind}`);
    writeResponseRecord(s, res.response);
  }
  writeMultiHeader(s, -1, true, -1);
}

export function readResponseRecord(r: JuteReader, kind: ResponseKind): ResponseRecord {
  switch (kind) {
    case "CreateResponse":
    case "SyncResponse":
      return { kind, path: r.readString(kind, "path") };
    case "Create2Response":
      return { kind, path: r.readString(kind, "path"), stat: readStat(r, kind) };
    case "ExistsResponse":
    case "SetDataResponse":
    case "SetACLResponse":
      return { kind, stat: readStat(r, kind) };
    case "GetDataResponse":
      return { kind, data: r.readBuffer(kind, "data"), stat: readStat(r, kind) };
    case "GetACLResponse":
      return { kind, acl: readAclVector(r, kind, "acl"), stat: readStat(r, kind) };
    case "GetChildrenResponse":
      return { kind, children: r.readStringVector(kind, "children") };
    case "GetChildren2Response":
      return { kind, children: r.readStringVector(kind, "children"), stat: readStat(r, kind) };
    case "GetEphemeralsResponse":
      return { kind, ephemerals: r.readStringVector(kind, "ephemerals") };
    case "GetAllChildrenNumberResponse":
      return { kind, totalNumber: r.readInt(kind, "totalNumber") };
    case "ErrorResponse":
      return { kind, err: r.readInt(kind, "err") };
    case "WhoAmIResponse":
      return {
        kind,
        clientInfo: r.readVector(`${kind}.clientInfo`, (rr, i) => ({
          authScheme: rr.readString(`${kind}.clientInfo[${i}].authScheme`),
          user: rr.readString(`${kind}.clientInfo[${i}].user`),
        })),
      };
    case "SetSASLResponse":
      return { kind, token: r.readBuffer(kind, "token") };
    case "MultiResponse":
      return { kind, results: readMultiResults(r) };
    case "WatcherEvent":
      return { kind, event: readWatcherEvent(r, "WatcherEvent") };
    case "Empty":
      return { kind };
    default:
      return unreachable(kind);
  }
}

/** `MultiResponse.deserialize`: the code of an error result is its ErrorResponse body. */
function readMultiResults(r: JuteReader): MultiResult[] {
  const results: MultiResult[] = [];
  for (;;) {
    const field = `MultiResponse.results[${results.length}]`;
    const at = r.offset;
    const h = readMultiHeader(r, `${field}.header`);
    if (h.done) return results;
    const kind = MULTI_RESULT_KIND_BY_TYPE.get(h.type);
    if (kind === undefined) {
      throw new JuteError("malformed", `${field}.header.type`, `invalid type ${h.type} in MultiResponse`, at);
    }
    if (kind === null) {
      results.push({ type: h.type, err: 0, response: null });
      continue;
    }
    const response = readResponseRecord(r, kind) as NonNullable<MultiResult["response"]>;
    const err = response.kind === "ErrorResponse" ? response.err : 0;
    results.push({ type: h.type, err, response });
  }
}
