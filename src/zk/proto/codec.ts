/**
 * The ZooKeeper 3.8 client wire protocol over Jute (docs/zookeeper.md §9, §4, §1.6):
 * ConnectRequest/Response, RequestHeader + request record, ReplyHeader + response record,
 * notifications. The record bodies are codec-records.ts, TxnHeader + txn bodies codec-txn.ts,
 * the 4-byte length framing and the four-letter-word sniffing codec-framing.ts.
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
import { invariant } from "../../base/errors.js";
import { JuteError, JuteReader, JuteSizer, type JuteSink } from "./jute.js";
import { Xid, opName } from "./op-code.js";
import type { ClientFrame, ConnectRequest, ConnectResponse, ReplyHeader, RequestHeader, RequestRecord, ResponseRecord, ServerFrame } from "./packets.js";
import type { WatcherEvent } from "./records.js";
import { REQUEST_KIND_BY_OP, RESPONSE_KIND_BY_OP, UNSUPPORTED_REQUEST_OPS } from "./registry-doc.js";
import {
  readWatcherEvent,
  readRequestRecord,
  readResponseRecord,
  scratchWriter,
  writeRequestRecord,
  writeResponseRecord,
} from "./codec-records.js";

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

/**
 * A reply whose record follows the header whatever its code: 3.8's processSasl answers a failed
 * SASL token with AUTHFAILED *and* `SetSASLResponse(null)` (4 bytes, token length −1).
 */
export function encodeReplyWithRecord(header: ReplyHeader, response: ResponseRecord): Uint8Array {
  const w = scratchWriter();
  w.writeInt(header.xid);
  w.writeLong(header.zxid);
  w.writeInt(header.err);
  writeResponseRecord(w, response);
  return w.toBytes();
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
