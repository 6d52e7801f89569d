/**
 * `ServerCnxn`: one client connection on a server. It decodes frames (the first one is the
 * ConnectRequest), enforces `jute.maxbuffer`, closes on a malformed packet, carries the
 * connection's auth ids, and is the `ServerWatcher` the DataTree notifies. Replies and
 * notifications leave in the order they are produced, so a watch event always precedes the
 * reply of any later request on the same connection (docs/zookeeper.md §2.5).
 */
import type { Endpoint } from "../../sim/process-api.js";
import { Code } from "../proto/error-code.js";
import { Xid, opName } from "../proto/op-code.js";
import { JUTE_MAX_BUFFER_BYTES, type Id, type SessionId, type WatcherEvent, type Zxid } from "../proto/records.js";
import type { ConnectResponse, ResponseRecord } from "../proto/packets.js";
import { encodeServerFrame, notificationFrame } from "../proto/codec.js";
import { FOUR_LETTER_WORD_KIND, fourLetterWordPacket, type ZkPacket } from "../proto/wire.js";
import type { ServerWatcher } from "./watch-manager.js";

export type CnxnState = "awaitingConnect" | "connecting" | "connected" | "closed";

export interface CnxnHost {
  /** A frame arrived on this connection (already size-checked). */
  receive(cnxn: ServerCnxn, bytes: Uint8Array): void;
  /** The connection is gone (closed by either side, reset, or the server). */
  closed(cnxn: ServerCnxn): void;
  /** The connection's first packet was a four-letter word: its answer (the connection then closes). */
  fourLetterWord(word: string): string;
}

const EMPTY_PASSWD = new Uint8Array(16);

export class ServerCnxn implements ServerWatcher {
  state: CnxnState = "awaitingConnect";
  sessionId: SessionId = 0n;
  sessionTimeoutMs = 0;
  /** Whether the client sent the trailing readOnly flag (mirrored in the response). */
  readOnlyField = true;
  readonly authInfo: Id[];
  packetsReceived = 0;
  packetsSent = 0;

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

  /** ServerWatcher: 3.8 sends notifications with zxid −1 (§2.3). */
  process(event: WatcherEvent, _zxid: Zxid): void {
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
