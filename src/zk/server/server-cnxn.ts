/**
 * `ServerCnxn`: one client connection on a server. It decodes frames (the first one is the
 * ConnectRequest), enforces `jute.maxbuffer`, closes on a malformed packet, carries the
 * connection's auth ids, and is the `ServerWatcher` the DataTree notifies. Replies and
 * notifications leave in the order they are produced, so a watch event always precedes the
 * reply of any later request on the same connection (docs/zookeeper.md §2.5).
 *
 * It keeps 3.8's per-connection figures that the `cons` four-letter word prints (`CnxnStats`):
 * last op, cxid and zxid, latencies in the server's elapsed ms. As in Java they start at 0 /
 * null (so `minlat` stays 0 until a `crst` resets them to "none yet") and only the final stage's
 * answers update them (`updateStatsForResponse`); auth packets and re-attaches do not.
 */
import type { Endpoint } from "../../world/index.js";
import { Code } from "../proto/error-code.js";
import { OpCode, Xid, opName } from "../proto/op-code.js";
import { JUTE_MAX_BUFFER_BYTES, type Id, type SessionId, type WatcherEvent, type Zxid } from "../proto/records.js";
import type { ConnectResponse, ResponseRecord, SetSASLResponse } from "../proto/packets.js";
import { encodeReplyWithRecord, encodeServerFrame, notificationFrame } from "../proto/codec.js";
import { FOUR_LETTER_WORD_KIND, fourLetterWordPacket, type ZkPacket } from "../proto/wire.js";
import type { ServerWatcher } from "./watch-manager.js";
import type { DigestMd5Server } from "./digest-md5.js";

export type CnxnState = "awaitingConnect" | "connecting" | "connected" | "closed";

export interface CnxnHost {
  /** A frame arrived on this connection (already size-checked). */
  receive(cnxn: ServerCnxn, bytes: Uint8Array): void;
  /** The connection is gone (closed by either side, reset, or the server). */
  closed(cnxn: ServerCnxn): void;
  /** The connection's first packet was a four-letter word: its answer (the connection then closes). */
  fourLetterWord(word: string): string;
  /** A watch of this connection fired after the connection closed (the server kept it: a leak). */
  closedCnxnWatchFired?(cnxn: ServerCnxn, event: WatcherEvent): void;
}

const EMPTY_PASSWD = new Uint8Array(16);

/** ServerCnxn's connection figures (`updateStatsForResponse`, `resetStats`). */
export interface CnxnStats {
  lastOp: string;
  /** −1 after a reset: `cons` then leaves lcxid out. */
  lastCxid: number;
  lastZxid: Zxid;
  lastResponseMs: number;
  lastLatencyMs: number;
  /** Long.MAX_VALUE in Java after a reset; printed as 0 then. */
  minLatencyMs: number;
  maxLatencyMs: number;
  count: number;
  totalLatencyMs: number;
}

/** The figures of a new connection: Java's field defaults (lastOp null, min latency 0). */
function initialCnxnStats(): CnxnStats {
  return { lastOp: "null", lastCxid: 0, lastZxid: 0n, lastResponseMs: 0, lastLatencyMs: 0, minLatencyMs: 0, maxLatencyMs: 0, count: 0, totalLatencyMs: 0 };
}

export class ServerCnxn implements ServerWatcher {
  state: CnxnState = "awaitingConnect";
  /**
   * Frames that arrived while the session was being established ("connecting"): 3.8 stops reading
   * the socket then (`disableRecv` in processConnectRequest, `enableRecv` in finishSessionInit),
   * so they are read, in order, once the ConnectResponse is out.
   */
  readonly heldFrames: Uint8Array[] = [];
  sessionId: SessionId = 0n;
  sessionTimeoutMs = 0;
  /** Whether the client sent the trailing readOnly flag (mirrored in the response). */
  readOnlyField = true;
  readonly authInfo: Id[];
  /** The connection's SASL DIGEST-MD5 exchange, from its first `sasl` packet on. */
  saslServer: DigestMd5Server | undefined;
  packetsReceived = 0;
  packetsSent = 0;
  /** The server's wall clock (ms since the epoch) when the connection was accepted. */
  establishedMs = 0;
  stats: CnxnStats = initialCnxnStats();

  constructor(
    readonly watcherId: number,
    readonly endpoint: Endpoint,
    readonly remoteAddress: string,
    private readonly host: CnxnHost,
    private readonly maxBufferBytes = JUTE_MAX_BUFFER_BYTES,
    /** Canary: drop NodeDataChanged notifications. */
    private readonly dropDataChanged = false,
  ) {
    this.authInfo = [{ scheme: "ip", id: remoteAddress }];
  }

  /** `updateStatsForResponse`: a negative (special) xid does not replace the last real cxid. */
  updateStatsForResponse(cxid: number, zxid: Zxid, op: string, startMs: number, endMs: number): void {
    const s = this.stats;
    if (cxid >= 0) s.lastCxid = cxid;
    s.lastZxid = zxid;
    s.lastOp = op;
    s.lastResponseMs = endMs;
    const elapsed = endMs - startMs;
    s.lastLatencyMs = elapsed;
    s.minLatencyMs = Math.min(s.minLatencyMs, elapsed);
    s.maxLatencyMs = Math.max(s.maxLatencyMs, elapsed);
    s.count++;
    s.totalLatencyMs += elapsed;
  }

  /** `resetStats` (the `crst` four-letter word). */
  resetStats(): void {
    this.packetsReceived = 0;
    this.packetsSent = 0;
    this.stats = { lastOp: "NA", lastCxid: -1, lastZxid: -1n, lastResponseMs: 0, lastLatencyMs: 0, minLatencyMs: Number.MAX_SAFE_INTEGER, maxLatencyMs: 0, count: 0, totalLatencyMs: 0 };
  }

  get isOpen(): boolean {
    return this.state !== "closed" && this.endpoint.open;
  }

  onMessage(message: unknown): void {
    if (this.state === "closed") return;
    const bytes = (message as ZkPacket).bytes;
    if (!(bytes instanceof Uint8Array) || bytes.length > this.maxBufferBytes) {
      this.close(); // a frame longer than jute.maxbuffer (or not a frame at all) closes the connection
      return;
    }
    this.packetsReceived++;
    if (this.state === "awaitingConnect" && (message as ZkPacket).kind === FOUR_LETTER_WORD_KIND) {
      this.answerFourLetterWord(new TextDecoder().decode(bytes));
      return;
    }
    this.host.receive(this, bytes);
  }

  onClose(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.host.closed(this);
  }

  close(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.endpoint.close();
    this.host.closed(this);
  }

  /** As NIOServerCnxn: the word's answer, then the connection closes. */
  private answerFourLetterWord(word: string): void {
    this.packetsSent++;
    this.endpoint.send(fourLetterWordPacket(this.host.fourLetterWord(word)));
    this.close();
  }

  sendConnectResponse(response: ConnectResponse): void {
    this.send("connected", encodeServerFrame({ kind: "connect", response }, { readOnlyField: this.readOnlyField }));
  }

  /** The "session invalid" answer: timeOut 0, sessionId 0, 16 zero bytes; the caller then closes. */
  sendInvalidSession(readOnly = false): void {
    this.sendConnectResponse({ kind: "ConnectResponse", protocolVersion: 0, timeOut: 0, sessionId: 0n, passwd: EMPTY_PASSWD, readOnly });
  }

  sendReply(xid: number, zxid: Zxid, err: number, response: ResponseRecord | null, label: string): void {
    const body = err === Code.OK ? response : null;
    this.send(label, encodeServerFrame({ kind: "reply", header: { xid, zxid, err }, response: body }));
  }

  /** processSasl's answer: the SetSASLResponse goes even after an error code, as 3.8 sends it. */
  sendSaslReply(xid: number, err: number, response: SetSASLResponse): void {
    this.send("sasl", encodeReplyWithRecord({ xid, zxid: 0n, err }, response));
  }

  /** ServerWatcher: closed (3.8's `isStale`): the watch manager takes no new watch of it. */
  get isStale(): boolean {
    return this.state === "closed";
  }

  /** ServerWatcher: 3.8 sends notifications with zxid −1 (§2.3). */
  process(event: WatcherEvent, _zxid: Zxid): void {
    if (this.state === "closed") return this.host.closedCnxnWatchFired?.(this, event);
    if (!this.isOpen) return;
    if (this.dropDataChanged && event.type === 3) return;
    this.send("notification", encodeServerFrame(notificationFrame(event)));
  }

  private send(kind: string, bytes: Uint8Array): void {
    if (!this.isOpen) return;
    this.packetsSent++;
    this.endpoint.send({ kind, bytes } satisfies ZkPacket);
  }
}

/** Trace label of a reply to an op: "reply:create", "ping", "auth", … */
export function replyLabel(type: number, xid: number): string {
  if (xid === Xid.ping) return "ping";
  if (xid === Xid.auth) return "auth";
  if (xid === Xid.setWatches) return "setWatches";
  let label = REPLY_LABELS.get(type);
  if (label === undefined) {
    label = `reply:${opName(type)}`;
    REPLY_LABELS.set(type, label);
  }
  return label;
}
/** One string per op, so the trace hashes a cached string, not a fresh concatenation. */
const REPLY_LABELS = new Map<number, string>();

/** FinalRequestProcessor's `lastOp` name of each op (what `cons` prints as `lop`). */
const LAST_OP_NAMES: ReadonlyMap<number, string> = new Map([
  [OpCode.ping, "PING"], [OpCode.createSession, "SESS"], [OpCode.multi, "MULT"], [OpCode.multiRead, "MLTR"],
  [OpCode.create, "CREA"], [OpCode.create2, "CREA"], [OpCode.createTTL, "CREA"], [OpCode.createContainer, "CREA"],
  [OpCode.delete, "DELE"], [OpCode.deleteContainer, "DELE"], [OpCode.setData, "SETD"], [OpCode.reconfig, "RECO"],
  [OpCode.setACL, "SETA"], [OpCode.closeSession, "CLOS"], [OpCode.sync, "SYNC"], [OpCode.check, "CHEC"],
  [OpCode.exists, "EXIS"], [OpCode.getData, "GETD"], [OpCode.setWatches, "SETW"], [OpCode.setWatches2, "STW2"],
  [OpCode.addWatch, "ADDW"], [OpCode.getACL, "GETA"], [OpCode.getChildren, "GETC"], [OpCode.getChildren2, "GETC"],
  [OpCode.getAllChildrenNumber, "GETACN"], [OpCode.checkWatches, "CHKW"], [OpCode.removeWatches, "REMW"],
  [OpCode.whoAmI, "HOMI"], [OpCode.getEphemerals, "GETE"],
]);

/** The `lastOp` of an answered request: "NA" when Java throws before its switch (a failed txn or session check). */
export function lastOpName(type: number, failedBeforeSwitch: boolean): string {
  return failedBeforeSwitch ? "NA" : (LAST_OP_NAMES.get(type) ?? "NA");
}
