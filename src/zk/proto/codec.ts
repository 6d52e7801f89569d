/**
 * The ZooKeeper 3.8 client wire protocol and txn records over Jute (docs/zookeeper.md §9, §4, §1.6):
 * ConnectRequest/Response, RequestHeader + request record, ReplyHeader + response record,
 * notifications, multi, TxnHeader + txn bodies, the 4-byte length framing and the
 * four-letter-word sniffing of a fresh connection.
 *
 * Invariants:
 * - Encoding the records of `packets.ts`/`txn.ts` gives the bytes the Java classes of
 *   `zookeeper.jute` give; decoding them gives back an equal record (bar the null/[]
 *   and string notes in `jute.ts`).
 * - Encoding a packet whose record does not fit its op type is a bug and fails an
 *   invariant; decoding bad bytes is an expected failure and throws a `JuteError`.
 * - A reply carries a record only when `err == 0` (`ClientCnxn.readResponse`); the record's
 *   shape comes from the op type of the request, which the caller supplies.
 * - Like Java, decoders ignore trailing bytes after a record; a ConnectRequest/Response
 *   whose trailing `readOnly` boolean is missing is an old peer, not an error.
 * - `clientFrameSize`/`serverFrameSize` run the same writers into a byte counter, so they
 *   equal the encoded payload length by construction (the 4-byte frame prefix excluded,
 *   as jute.maxbuffer is checked against the payload length).
 */
import { invariant, unreachable } from "../../base/errors.js";
import { JuteError, JuteReader, JuteSizer, JuteWriter, type JuteSink } from "./jute.js";
import { OpCode, Xid, opName } from "./op-code.js";
import type {
  ClientFrame,
  ConnectRequest,
  ConnectResponse,
  MultiOp,
  MultiResult,
  ReplyHeader,
  RequestHeader,
  RequestRecord,
  ResponseRecord,
  ServerFrame,
} from "./packets.js";
import { JUTE_MAX_BUFFER_BYTES, type ACL, type ClientInfo, type Id, type Stat, type WatcherEvent } from "./records.js";
import {
  FOUR_LETTER_WORDS,
  MULTI_OP_KIND_BY_TYPE,
  MULTI_RESULT_KIND_BY_TYPE,
  REQUEST_KIND_BY_OP,
  RESPONSE_KIND_BY_OP,
  TELNET_CLOSE_WORD,
  TXN_KIND_BY_TYPE,
  UNSUPPORTED_REQUEST_OPS,
  type FourLetterWord,
  type RequestKind,
  type ResponseKind,
  type TxnKind,
} from "./registry-doc.js";
import type { MultiSubTxn, Txn, TxnEntry, TxnHeader } from "./txn.js";

// ---- shared records -----------------------------------------------------------------------

/** Stat on the wire: 5 longs-as-zxid/time, 3 ints, 1 long, 2 ints, 1 long (§1.6). */
export const STAT_SIZE_BYTES = 68;

/**
 * One scratch writer for every encode: it grows once and is reused, and the result is copied
 * out (a frame costs one allocation instead of a sizing pass, a buffer and a DataView).
 * Encoding never calls back into user code, so it cannot be re-entered.
 */
const SCRATCH = new JuteWriter(4096);
function scratchWriter(): JuteWriter {
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

export function writeId(s: JuteSink, id: Id): void {
  s.writeUString(id.scheme);
  s.writeUString(id.id);
}
export function readId(r: JuteReader, field: string): Id {
  return { scheme: r.readString(`${field}.scheme`), id: r.readString(`${field}.id`) };
}

export function writeACL(s: JuteSink, acl: ACL): void {
  s.writeInt(acl.perms);
  writeId(s, acl.id);
}
export function readACL(r: JuteReader, field: string): ACL {
  return { perms: r.readInt(`${field}.perms`), id: readId(r, `${field}.id`) };
}

function writeAclVector(s: JuteSink, acl: readonly ACL[]): void {
  s.writeVector(acl, writeACL);
}
function readAclVector(r: JuteReader, record: string, member: string): ACL[] {
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
      const acl = readAclVector(r, kind, "acl");
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
    case "GetACLRequest":
    case "SyncRequest":
    case "GetAllChildrenNumberRequest":
    case "DeleteContainerRequest":
      return { kind, path: r.readString(kind, "path") };
    case "SetACLRequest":
      return {
        kind,
        path: r.readString(kind, "path"),
        acl: readAclVector(r, kind, "acl"),
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

// ---- connect ------------------------------------------------------------------------------

export interface ConnectEncodingOptions {
  /**
   * Whether the trailing `readOnly` boolean is on the wire (default true). An old client
   * omits it, and the server mirrors the client's choice in its ConnectResponse.
   */
  readOnlyField?: boolean;
}

function writeConnectRequest(s: JuteSink, req: ConnectRequest, readOnlyField: boolean): void {
  s.writeInt(req.protocolVersion);
  s.writeLong(req.lastZxidSeen);
  s.writeInt(req.timeOut);
  s.writeLong(req.sessionId);
  s.writeBuffer(req.passwd);
  if (readOnlyField) s.writeBool(req.readOnly);
}

function writeConnectResponse(s: JuteSink, rsp: ConnectResponse, readOnlyField: boolean): void {
  s.writeInt(rsp.protocolVersion);
  s.writeInt(rsp.timeOut);
  s.writeLong(rsp.sessionId);
  s.writeBuffer(rsp.passwd);
  if (readOnlyField) s.writeBool(rsp.readOnly);
}

export interface DecodedConnectRequest {
  request: ConnectRequest;
  /** False for an old client that sent no `readOnly` (then `request.readOnly` is false). */
  readOnlyFieldPresent: boolean;
}

export function decodeConnectRequest(payload: Uint8Array): DecodedConnectRequest {
  const r = new JuteReader(payload);
  const protocolVersion = r.readInt("ConnectRequest.protocolVersion");
  const lastZxidSeen = r.readLong("ConnectRequest.lastZxidSeen");
  const timeOut = r.readInt("ConnectRequest.timeOut");
  const sessionId = r.readLong("ConnectRequest.sessionId");
  const passwd = r.readBufferNonNull("ConnectRequest.passwd");
  const readOnlyFieldPresent = r.remaining > 0;
  const readOnly = readOnlyFieldPresent && r.readBool("ConnectRequest.readOnly");
  return {
    request: { kind: "ConnectRequest", protocolVersion, lastZxidSeen, timeOut, sessionId, passwd, readOnly },
    readOnlyFieldPresent,
  };
}

export interface DecodedConnectResponse {
  response: ConnectResponse;
  /** False for an old server that sent no `readOnly`. */
  readOnlyFieldPresent: boolean;
}

export function decodeConnectResponse(payload: Uint8Array): DecodedConnectResponse {
  const r = new JuteReader(payload);
  const protocolVersion = r.readInt("ConnectResponse.protocolVersion");
  const timeOut = r.readInt("ConnectResponse.timeOut");
  const sessionId = r.readLong("ConnectResponse.sessionId");
  const passwd = r.readBufferNonNull("ConnectResponse.passwd");
  const readOnlyFieldPresent = r.remaining > 0;
  const readOnly = readOnlyFieldPresent && r.readBool("ConnectResponse.readOnly");
  return {
    response: { kind: "ConnectResponse", protocolVersion, timeOut, sessionId, passwd, readOnly },
    readOnlyFieldPresent,
  };
}

// ---- client frames ------------------------------------------------------------------------

export function writeClientFrame(s: JuteSink, frame: ClientFrame, options: ConnectEncodingOptions = {}): void {
  if (frame.kind === "connect") return writeConnectRequest(s, frame.request, options.readOnlyField ?? true);
  const { header, request } = frame;
  const kind = REQUEST_KIND_BY_OP.get(header.type);
  if (kind !== request.kind) invariant(false, `request op ${opName(header.type)} cannot carry ${request.kind}`);
  s.writeInt(header.xid);
  s.writeInt(header.type);
  writeRequestRecord(s, request);
}

/** The payload of a client frame (no length prefix; see `frame`). */
export function encodeClientFrame(frame: ClientFrame, options: ConnectEncodingOptions = {}): Uint8Array {
  const w = scratchWriter();
  writeClientFrame(w, frame, options);
  return w.toBytes();
}

/** Byte length of `encodeClientFrame(frame)`, computed without encoding. */
export function clientFrameSize(frame: ClientFrame, options: ConnectEncodingOptions = {}): number {
  const sizer = new JuteSizer();
  writeClientFrame(sizer, frame, options);
  return sizer.size;
}

export function decodeRequestHeader(r: JuteReader): RequestHeader {
  return { xid: r.readInt("RequestHeader.xid"), type: r.readInt("RequestHeader.type") };
}

/**
 * The record after a RequestHeader. Throws `unsupported` for an op this model does not
 * carry (Java answers unknown ops with UNIMPLEMENTED) and `truncated`/`malformed` for bad
 * bytes (MARSHALLINGERROR). Decode the header first so the error reply can echo its xid.
 */
export function decodeRequestRecord(r: JuteReader, header: RequestHeader): RequestRecord {
  const kind = REQUEST_KIND_BY_OP.get(header.type);
  if (kind === undefined) {
    const detail = UNSUPPORTED_REQUEST_OPS.has(header.type)
      ? `op ${opName(header.type)} is not modelled`
      : `unknown op type ${header.type}`;
    throw new JuteError("unsupported", "RequestHeader.type", detail, r.offset - 4);
  }
  return readRequestRecord(r, kind);
}

/** A client frame: the connection's first frame is a ConnectRequest, later ones requests. */
export function decodeClientFrame(payload: Uint8Array, expect: "connect" | "request"): ClientFrame {
  if (expect === "connect") return { kind: "connect", request: decodeConnectRequest(payload).request };
  const r = new JuteReader(payload);
  const header = decodeRequestHeader(r);
  return { kind: "request", header, request: decodeRequestRecord(r, header) };
}

// ---- server frames ------------------------------------------------------------------------

export function writeServerFrame(s: JuteSink, frame: ServerFrame, options: ConnectEncodingOptions = {}): void {
  if (frame.kind === "connect") return writeConnectResponse(s, frame.response, options.readOnlyField ?? true);
  const { header, response } = frame;
  s.writeInt(header.xid);
  s.writeLong(header.zxid);
  s.writeInt(header.err);
  // Java sends nothing after an error header; a notification's body goes whatever its err.
  if (response !== null && (header.err === 0 || header.xid === Xid.notification)) {
    writeResponseRecord(s, response);
  }
}

export function encodeServerFrame(frame: ServerFrame, options: ConnectEncodingOptions = {}): Uint8Array {
  const w = scratchWriter();
  writeServerFrame(w, frame, options);
  return w.toBytes();
}

/** Byte length of `encodeServerFrame(frame)`, computed without encoding. */
export function serverFrameSize(frame: ServerFrame, options: ConnectEncodingOptions = {}): number {
  const sizer = new JuteSizer();
  writeServerFrame(sizer, frame, options);
  return sizer.size;
}

export function decodeReplyHeader(r: JuteReader): ReplyHeader {
  return { xid: r.readInt("ReplyHeader.xid"), zxid: r.readLong("ReplyHeader.zxid"), err: r.readInt("ReplyHeader.err") };
}

/**
 * The op type of the request a reply answers: a number, or a lookup by xid (the client's
 * pending queue); `undefined` means no such request (Java: "Xid out of order").
 */
export type ReplyOpType = number | ((xid: number) => number | undefined);

/** A reply, as `ClientCnxn.readResponse` reads it. */
export function decodeReply(payload: Uint8Array, opType: ReplyOpType): ServerFrame {
  const r = new JuteReader(payload);
  return decodeReplyBody(r, decodeReplyHeader(r), opType);
}

/** The rest of a reply whose header `r` has just read (the client reads the header first). */
export function decodeReplyBody(r: JuteReader, header: ReplyHeader, opType: ReplyOpType): ServerFrame {
  if (header.xid === Xid.notification) {
    return { kind: "reply", header, response: { kind: "WatcherEvent", event: readWatcherEvent(r, "WatcherEvent") } };
  }
  if (header.err !== 0) return { kind: "reply", header, response: null };
  if (header.xid === Xid.ping || header.xid === Xid.auth) return { kind: "reply", header, response: { kind: "Empty" } };
  const op = typeof opType === "number" ? opType : opType(header.xid);
  if (op === undefined) throw new JuteError("malformed", "ReplyHeader.xid", `no request with xid ${header.xid}`, 0);
  const kind = RESPONSE_KIND_BY_OP.get(op);
  if (kind === undefined) throw new JuteError("unsupported", "ReplyHeader", `no response shape for op ${opName(op)}`, 16);
  return { kind: "reply", header, response: readResponseRecord(r, kind) };
}

export function decodeServerFrame(payload: Uint8Array, expect: "connect" | ReplyOpType): ServerFrame {
  if (expect === "connect") return { kind: "connect", response: decodeConnectResponse(payload).response };
  return decodeReply(payload, expect);
}

/** The frame a server sends for a watch trigger: xid −1, zxid −1, err 0 (`NIOServerCnxn.process`). */
export function notificationFrame(event: WatcherEvent): ServerFrame {
  return { kind: "reply", header: { xid: Xid.notification, zxid: -1n, err: 0 }, response: { kind: "WatcherEvent", event } };
}

// ---- txns ---------------------------------------------------------------------------------

export function writeTxnHeader(s: JuteSink, h: TxnHeader): void {
  s.writeLong(h.clientId);
  s.writeInt(h.cxid);
  s.writeLong(h.zxid);
  s.writeLongNumber(h.time);
  s.writeInt(h.type);
}

export function readTxnHeader(r: JuteReader): TxnHeader {
  return {
    clientId: r.readLong("TxnHeader.clientId"),
    cxid: r.readInt("TxnHeader.cxid"),
    zxid: r.readLong("TxnHeader.zxid"),
    time: r.readLongNumber("TxnHeader.time"),
    type: r.readInt("TxnHeader.type"),
  };
}

export function writeTxn(s: JuteSink, txn: Txn): void {
  switch (txn.kind) {
    case "CreateTxn":
    case "CreateContainerTxn":
    case "CreateTTLTxn":
      s.writeUString(txn.path);
      s.writeBuffer(txn.data);
      writeAclVector(s, txn.acl);
      if (txn.kind === "CreateTxn") s.writeBool(txn.ephemeral);
      s.writeInt(txn.parentCVersion);
      if (txn.kind === "CreateTTLTxn") s.writeLongNumber(txn.ttl);
      return;
    case "DeleteTxn":
      s.writeUString(txn.path);
      return;
    case "SetDataTxn":
      s.writeUString(txn.path);
      s.writeBuffer(txn.data);
      s.writeInt(txn.version);
      return;
    case "SetACLTxn":
      s.writeUString(txn.path);
      writeAclVector(s, txn.acl);
      s.writeInt(txn.version);
      return;
    case "CheckVersionTxn":
      s.writeUString(txn.path);
      s.writeInt(txn.version);
      return;
    case "CreateSessionTxn":
      s.writeInt(txn.timeOut);
      return;
    case "CloseSessionTxn":
      s.writeStringVector(txn.paths2Delete);
      return;
    case "ErrorTxn":
      s.writeInt(txn.err);
      return;
    case "MultiTxn":
      s.writeVector(txn.txns, writeMultiSubTxn);
      return;
    default:
      unreachable(txn);
  }
}

/** `Txn{type, data:buffer}`: the sub-txn body serialised into a length-prefixed buffer. */
function writeMultiSubTxn(s: JuteSink, sub: MultiSubTxn): void {
  assertTxnFitsType(sub.type, sub.txn.kind);
  s.writeInt(sub.type);
  s.writeInt(txnSize(sub.txn));
  writeTxn(s, sub.txn);
}

function assertTxnFitsType(type: number, kind: TxnKind): void {
  if (TXN_KIND_BY_TYPE.get(type) !== kind) invariant(false, `txn type ${opName(type)} cannot carry ${kind}`);
}

export function readTxn(r: JuteReader, type: number): Txn {
  const kind = TXN_KIND_BY_TYPE.get(type);
  if (kind === undefined) r.fail("TxnHeader.type", `no txn body for type ${type}`, "unsupported");
  switch (kind) {
    case "CreateTxn":
    case "CreateContainerTxn":
    case "CreateTTLTxn": {
      const path = r.readString(kind, "path");
      const data = r.readBuffer(kind, "data");
      const acl = readAclVector(r, kind, "acl");
      if (kind === "CreateTxn") {
        const ephemeral = r.readBool(kind, "ephemeral");
        return { kind, path, data, acl, ephemeral, parentCVersion: r.readInt(kind, "parentCVersion") };
      }
      const parentCVersion = r.readInt(kind, "parentCVersion");
      if (kind === "CreateContainerTxn") return { kind, path, data, acl, parentCVersion };
      return { kind, path, data, acl, parentCVersion, ttl: r.readLongNumber(kind, "ttl") };
    }
    case "DeleteTxn":
      return { kind, path: r.readString(kind, "path") };
    case "SetDataTxn":
      return {
        kind,
        path: r.readString(kind, "path"),
        data: r.readBuffer(kind, "data"),
        version: r.readInt(kind, "version"),
      };
    case "SetACLTxn":
      return { kind, path: r.readString(kind, "path"), acl: readAclVector(r, kind, "acl"), version: r.readInt(kind, "version") };
    case "CheckVersionTxn":
      return { kind, path: r.readString(kind, "path"), version: r.readInt(kind, "version") };
    case "CreateSessionTxn":
      return { kind, timeOut: r.readInt(kind, "timeOut") };
    case "CloseSessionTxn":
      return { kind, paths2Delete: r.readStringVector(kind, "paths2Delete") };
    case "ErrorTxn":
      return { kind, err: r.readInt(kind, "err") };
    case "MultiTxn":
      return { kind, txns: r.readVector(`${kind}.txns`, (rr, i) => readMultiSubTxn(rr, `${kind}.txns[${i}]`)) };
    default:
      return unreachable(kind);
  }
}

function readMultiSubTxn(r: JuteReader, field: string): MultiSubTxn {
  const type = r.readInt(`${field}.type`);
  const data = r.readBufferNonNull(`${field}.data`);
  return { type, txn: readTxn(new JuteReader(data), type) };
}

/** Bytes of a txn body alone. */
export function txnSize(txn: Txn): number {
  const sizer = new JuteSizer();
  writeTxn(sizer, txn);
  return sizer.size;
}

/** Bytes of a TxnHeader + body, as logged and proposed. */
export function txnEntrySize(entry: TxnEntry): number {
  const sizer = new JuteSizer();
  writeTxnEntry(sizer, entry);
  return sizer.size;
}

export function writeTxnEntry(s: JuteSink, entry: TxnEntry): void {
  assertTxnFitsType(entry.header.type, entry.txn.kind);
  writeTxnHeader(s, entry.header);
  writeTxn(s, entry.txn);
}

export function encodeTxn(txn: Txn): Uint8Array {
  const w = scratchWriter();
  writeTxn(w, txn);
  return w.toBytes();
}

export function decodeTxn(type: number, bytes: Uint8Array): Txn {
  return readTxn(new JuteReader(bytes), type);
}

export function encodeTxnEntry(entry: TxnEntry): Uint8Array {
  const w = scratchWriter();
  writeTxnEntry(w, entry);
  return w.toBytes();
}

export function decodeTxnEntry(bytes: Uint8Array): TxnEntry {
  const r = new JuteReader(bytes);
  const header = readTxnHeader(r);
  return { header, txn: readTxn(r, header.type) };
}

// ---- framing ------------------------------------------------------------------------------

/** `int length` + payload: how every message travels in both directions. */
export function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setInt32(0, payload.length);
  out.set(payload, 4);
  return out;
}

export type FourLetterCommand = FourLetterWord | "telnet close";

const FOUR_LETTER_BY_INT = new Map<number, FourLetterCommand>([
  ...FOUR_LETTER_WORDS.map((w): [number, FourLetterCommand] => [asciiInt(w), w]),
  [TELNET_CLOSE_WORD, "telnet close"],
]);

function asciiInt(word: string): number {
  return ((word.charCodeAt(0) << 24) | (word.charCodeAt(1) << 16) | (word.charCodeAt(2) << 8) | word.charCodeAt(3)) | 0;
}

/** The known four-letter word spelled by 4 big-endian bytes read as an int, if any. */
export function fourLetterWordOf(lengthField: number): FourLetterCommand | null {
  return FOUR_LETTER_BY_INT.get(lengthField | 0) ?? null;
}

export type FrameEvent =
  | { kind: "frame"; payload: Uint8Array }
  /** A four-letter word instead of a length; `rest` holds the bytes that followed it. */
  | { kind: "fourLetterWord"; command: FourLetterCommand; rest: Uint8Array }
  | { kind: "error"; error: JuteError };

export interface FrameDecoderOptions {
  /** Largest accepted payload length (`len > max` is rejected); default jute.maxbuffer. */
  maxFrameBytes?: number;
  /**
   * Treat the first 4 bytes as a possible four-letter word (the server side of a fresh
   * connection, `NIOServerCnxn.readLength` while `!initialized`). Default false.
   */
  fourLetterWords?: boolean;
}

/**
 * Splits a byte stream into frames. After a four-letter word or an error the decoder is
 * closed (Java closes the connection) and further input is ignored.
 */
export class FrameDecoder {
  private buf = new Uint8Array(0);
  private start = 0;
  private end = 0;
  private closed = false;
  private sniff: boolean;
  private readonly maxFrameBytes: number;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? JUTE_MAX_BUFFER_BYTES;
    this.sniff = options.fourLetterWords ?? false;
    invariant(Number.isInteger(this.maxFrameBytes) && this.maxFrameBytes >= 0, "maxFrameBytes must be >= 0");
  }

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.end - this.start;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(chunk: Uint8Array): FrameEvent[] {
    if (this.closed) return [];
    this.append(chunk);
    const events: FrameEvent[] = [];
    while (!this.closed && this.end - this.start >= 4) {
      const event = this.next();
      if (event === null) break;
      events.push(event);
    }
    return events;
  }

  private next(): FrameEvent | null {
    const len = new DataView(this.buf.buffer, this.buf.byteOffset + this.start, 4).getInt32(0);
    if (this.sniff) {
      this.sniff = false;
      const command = fourLetterWordOf(len);
      if (command !== null) {
        this.closed = true;
        return { kind: "fourLetterWord", command, rest: this.buf.slice(this.start + 4, this.end) };
      }
    }
    if (len < 0 || len > this.maxFrameBytes) {
      this.closed = true;
      const detail = `length ${len} outside [0, ${this.maxFrameBytes}]`;
      return { kind: "error", error: new JuteError(len < 0 ? "malformed" : "oversize", "frame.length", detail, 0) };
    }
    if (this.end - this.start < 4 + len) return null;
    const payload = this.buf.slice(this.start + 4, this.start + 4 + len);
    this.start += 4 + len;
    return { kind: "frame", payload };
  }

  private append(chunk: Uint8Array): void {
    const used = this.end - this.start;
    if (this.buf.length - this.end < chunk.length) {
      if (used + chunk.length <= this.buf.length) {
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        const next = new Uint8Array(Math.max(this.buf.length * 2, used + chunk.length, 64));
        next.set(this.buf.subarray(this.start, this.end));
        this.buf = next;
      }
      this.start = 0;
      this.end = used;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }
}
