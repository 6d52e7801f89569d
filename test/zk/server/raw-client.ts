/**
 * A raw Jute client for server tests: it speaks the wire protocol directly (no client library),
 * so tests can send exactly the bytes a real client — or a misbehaving one — would.
 */
import type { NodeContext } from "../../../src/sim/node-context.js";
import type { Endpoint } from "../../../src/sim/network.js";
import { encodeClientFrame, decodeConnectResponse, decodeReply } from "../../../src/zk/proto/codec.js";
import { OpCode, opName } from "../../../src/zk/proto/op-code.js";
import type { ConnectResponse, ReplyHeader, RequestRecord, ResponseRecord } from "../../../src/zk/proto/packets.js";
import type { ZkPacket } from "../../../src/zk/proto/wire.js";
import { CLIENT_PORT } from "../../../src/zk/proto/wire.js";

export interface Reply {
  header: ReplyHeader;
  response: ResponseRecord | null;
  atUs: number;
}

export class RawClient {
  ep: Endpoint | undefined;
  connectResponse: ConnectResponse | undefined;
  readonly replies: Reply[] = [];
  readonly notifications: Reply[] = [];
  closedReason: string | undefined;
  private xid = 0;
  private readonly opByXid = new Map<number, number>();

  constructor(
    readonly ctx: NodeContext,
    readonly server = "s1",
  ) {}

  connect(opts: { timeoutMs?: number; sessionId?: bigint; passwd?: Uint8Array; lastZxidSeen?: bigint } = {}): void {
    this.ep = this.ctx.connect(this.server, CLIENT_PORT, {
      onOpen: (ep) => {
        const bytes = encodeClientFrame({
          kind: "connect",
          request: {
            kind: "ConnectRequest",
            protocolVersion: 0,
            lastZxidSeen: opts.lastZxidSeen ?? 0n,
            timeOut: opts.timeoutMs ?? 10_000,
            sessionId: opts.sessionId ?? 0n,
            passwd: opts.passwd ?? new Uint8Array(16),
            readOnly: false,
          },
        });
        ep.send({ kind: "connect", bytes } satisfies ZkPacket);
      },
      onMessage: (_e, m) => this.onPacket((m as ZkPacket).bytes),
      onClose: (_e, reason) => (this.closedReason = reason),
    });
  }

  private onPacket(bytes: Uint8Array): void {
    if (this.connectResponse === undefined) {
      this.connectResponse = decodeConnectResponse(bytes).response;
      return;
    }
    const frame = decodeReply(bytes, (xid) => this.opByXid.get(xid));
    if (frame.kind !== "reply") return;
    const reply = { header: frame.header, response: frame.response, atUs: this.ctx.sim.nowUs };
    if (frame.header.xid === -1) this.notifications.push(reply);
    else this.replies.push(reply);
  }

  /** Sends a request; returns its xid. */
  send(type: number, request: RequestRecord, xid = ++this.xid): number {
    this.opByXid.set(xid, type);
    this.sendRaw(encodeClientFrame({ kind: "request", header: { xid, type }, request }), opName(type));
    return xid;
  }

  sendRaw(bytes: Uint8Array, kind = "raw"): void {
    this.ep!.send({ kind, bytes } satisfies ZkPacket);
  }

  ping(): void {
    this.send(OpCode.ping, { kind: "Empty" }, -2);
  }

  replyTo(xid: number): Reply | undefined {
    return this.replies.find((r) => r.header.xid === xid);
  }
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const dec = (b: Uint8Array | null | undefined): string => (b ? new TextDecoder().decode(b) : "");
