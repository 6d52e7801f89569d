/**
 * `ClientCnxn`: the client's connection state machine (docs/zookeeper.md §3.5, §2.6, §9; *From Paxos to
 * ZooKeeper* §7.3.3–7.4.5). One instance per `ZooKeeper` handle. It plays the roles of Java's
 * SendThread (connect, handshake, outgoing/pending queues, pings, timeouts, reconnect) and
 * EventThread (ordered delivery of watch events and completions), as synchronous handlers
 * of network events and timers.
 *
 * Timers (T = requested session timeout before the first handshake, negotiated after):
 * - connectTimeout = T / hosts: an attempt (TCP connect, then the ConnectResponse) is
 *   abandoned when nothing has been sent for that long;
 * - readTimeout = 2T/3: a connected session whose connection has been silent that long is
 *   declared dead (Disconnected; every pending and queued request fails CONNECTIONLOSS);
 * - ping (xid −2) when the time to the next ping, readTimeout/2 − idleSend (− 1000 ms once
 *   idleSend exceeds 1 s), is ≤ 0, or when nothing was sent for 10 s.
 * Like Java's SendThread loop, the deadlines are re-evaluated at every wake-up: the tick
 * timer, every frame received and every request submitted.
 *
 * Reconnect: the next host of the shuffled list; a random sleep in [0, 1000) ms before every
 * attempt but the very first; 1000 ms more after a full cycle of hosts failed. The
 * ConnectRequest carries lastZxidSeen and the session id/password once a session exists.
 * After the handshake: auth packets (xid −4) are re-sent, then SetWatches (xid −8;
 * SetWatches2 if persistent watches exist) with relativeZxid = lastZxid, batched at
 * 128 KB of path text, then the queued requests.
 *
 * Read-only (a handle made with canBeReadOnly; docs/zookeeper.md §3.7): every ConnectRequest
 * asks for read-only; a session established on a read-only server puts the handle in
 * CONNECTEDREADONLY (ConnectedReadOnly to the default watcher). Until the handle has once been
 * connected to a read/write server (`seenRwServerBefore`) its ConnectRequests carry session id 0,
 * so a read-only session is never re-attached: the first read/write server gives a new session.
 * While CONNECTEDREADONLY, `pingRwServer` looks for a read/write server: the next host of the
 * list is asked `isro` on a separate connection, first 100 ms after the SendThread started, then
 * after a pause that doubles each time up to 60 s (and falls back to 100 ms once one is found).
 * As in Java, the probe runs inside the SendThread and blocks it: nothing is sent or read on the
 * session's connection until the probe ends — an answer, a refused connect, the 1 s read timeout
 * after connecting, or, for a host that never answers the connect (a pulled cable), the OS's
 * connect timeout (Java's `new Socket(host, port)` sets none). An "rw" answer drops the read-only
 * connection (Disconnected, pending requests CONNECTIONLOSS) and connects to that server next.
 *
 * Invariants:
 * - Replies arrive in request order: a reply must match the head of the pending queue by xid,
 *   else the connection is dropped ("xid out of order"), as Java does.
 * - lastZxid only grows from replies to requests (never pings or notifications), zxid > 0.
 * - xids are 1, 2, …, 2^31 − 1, then 1 again; pings, auth and setWatches use fixed xids.
 * - Once CLOSED or AUTH_FAILED the machine is terminal: no timer, no socket, and anything
 *   submitted fails at once (SESSIONEXPIRED / AUTHFAILED).
 * - "Event thread": watch events and completions are delivered strictly in the order they
 *   were produced, one at a time, even when a watcher re-enters the client. Watchers are
 *   called synchronously; a completion settles a `ctx.deferred` promise whose continuation
 *   runs right after the current simulation event, so a watch event received before a reply
 *   is always seen before that reply's continuation (docs/zookeeper.md §2.5).
 * - Every piece of state belongs to this node incarnation: a crash of the client node simply
 *   stops everything (the kernel drops its timers and connections).
 */
import type { NodeContext, TimerHandle, Endpoint, RandomStream } from "../../world/index.js";
import { invariant } from "../../base/errors.js";
import { decodeConnectResponse, decodeReply, decodeReplyBody, decodeReplyHeader, encodeClientFrame } from "../proto/codec.js";
import { Code } from "../proto/error-code.js";
import { isJuteError, JuteReader } from "../proto/jute.js";
import { OpCode, Xid } from "../proto/op-code.js";
import type { RequestRecord, ResponseRecord } from "../proto/packets.js";
import { EventType, KeeperState, eventTypeName, keeperStateName, type Zxid } from "../proto/records.js";
import { fourLetterWordPacket, isZkPacket, type ZkPacket } from "../proto/wire.js";
import type { Chroot } from "./chroot.js";
import { KeeperException } from "./keeper-exception.js";
import { SPIN_DELAY_MS, StaticHostProvider, type HostAddress } from "./host-provider.js";
import type { WatchedEvent, Watcher, WatchRegistration, ZKWatchManager } from "./watch-manager.js";
import type { ClientStateFields } from "../trace-events.js";
import { ZooKeeperSaslClient, type SaslCredentials } from "./sasl-client.js";

/** `ZooKeeper.States`. */
export const States = {
  CONNECTING: "CONNECTING",
  ASSOCIATING: "ASSOCIATING",
  CONNECTED: "CONNECTED",
  CONNECTEDREADONLY: "CONNECTEDREADONLY",
  CLOSED: "CLOSED",
  AUTH_FAILED: "AUTH_FAILED",
  NOT_CONNECTED: "NOT_CONNECTED",
} as const;
export type ZooKeeperState = (typeof States)[keyof typeof States];

export function isAlive(state: ZooKeeperState): boolean {
  return state !== States.CLOSED && state !== States.AUTH_FAILED;
}

export function isConnected(state: ZooKeeperState): boolean {
  return state === States.CONNECTED || state === States.CONNECTEDREADONLY;
}

export const PASSWORD_BYTES = 16;
/** `SET_WATCHES_MAX_LENGTH`: path characters per SetWatches packet. */
export const SET_WATCHES_MAX_LENGTH = 128 * 1024;
/** A ping goes out at the latest after this much send-silence. */
export const MAX_SEND_PING_INTERVAL_MS = 10_000;
/** Upper bound of the random sleep before a reconnect attempt. */
export const RECONNECT_JITTER_MS = 1000;
/** `pingRwServer`'s pause between probes: from this… */
export const MIN_PING_RW_TIMEOUT_MS = 100;
/** …doubling up to this. */
export const MAX_PING_RW_TIMEOUT_MS = 60_000;
/** The probe's `setSoTimeout(1000)`: how long it waits for the `isro` answer once connected. */
export const PING_RW_READ_TIMEOUT_MS = 1000;
/**
 * The probe's connect has no timeout of its own in Java (`new Socket(host, port)`): a host that
 * never answers is given up by the OS, after Linux's default 6 SYN retries: 1+2+4+8+16+32+64 s.
 */
export const PING_RW_CONNECT_TIMEOUT_MS = 127_000;
const MAX_XID = 0x7fffffff;

/** What a request packet ends with. */
export interface PacketReply {
  err: number;
  /** The reply header's zxid, when the server answered. */
  zxid: Zxid | undefined;
  response: ResponseRecord | null;
  /** False when the client produced the result itself (connection loss, dead handle). */
  fromServer: boolean;
  /** Whether the request had been written to a connection (it may have run). */
  sent: boolean;
  /** The xid it was written with, when sent (with the session, it names the txn it may have become). */
  xid?: number;
}

/** Java `WatchDeregistration`: what a removeWatches/checkWatches reply removes locally. */
export interface WatchDeregistration {
  clientPath: string;
  watcher: Watcher | undefined;
  type: number;
  local: boolean;
}

/** A request on its way (Java `Packet`). */
export interface Packet {
  opCode: number;
  request: RequestRecord;
  /** Trace label of the simulated message (`ZkPacket.kind`). */
  label: string;
  /** −2 ping, −4 auth, −8 setWatches; normal requests get the next xid when written. */
  fixedXid?: number;
  watchRegistration?: WatchRegistration;
  watchDeregistration?: WatchDeregistration;
  onFinish?: (reply: PacketReply) => void;
  /** Assigned when written. */
  xid?: number;
  sent?: boolean;
}

/**
 * A Packet with every field present, in one order: all packets then share one object shape,
 * which keeps the loads on the per-request path (flush, readResponse, finishPacket) monomorphic.
 */
export function newPacket(
  opCode: number,
  request: RequestRecord,
  label: string,
  fixedXid: number | undefined,
  onFinish: ((reply: PacketReply) => void) | undefined,
  watchRegistration?: WatchRegistration,
  watchDeregistration?: WatchDeregistration,
): Packet {
  return { opCode, request, label, fixedXid, watchRegistration, watchDeregistration, onFinish, xid: undefined, sent: false };
}

export interface ClientCnxnOptions {
  hosts: readonly HostAddress[];
  chroot: Chroot;
  sessionTimeoutMs: number;
  sessionId: bigint;
  sessionPasswd: Uint8Array;
  watchManager: ZKWatchManager;
  rng: RandomStream;
  /** `canBeReadOnly`: ask for read-only, accept a read-only server (default false). */
  canBeReadOnly?: boolean;
  /** The JAAS `Client` section's DigestLoginModule login: every connection authenticates with SASL DIGEST-MD5. */
  sasl?: SaslCredentials;
  canary?: ClientCanary;
}

/**
 * Deliberately broken clients, for checkers to catch (src/scenario/canaries.ts):
 * - `forget-last-zxid`: the ConnectRequest carries lastZxidSeen 0 instead of the highest zxid
 *   the client has seen, so a server that is behind the client accepts it instead of refusing;
 * - `rare-pings`: the client pings no more often than its read timeout, so an idle connection
 *   with healthy links times out;
 * - `lifo-send`: the requests queued while the client had no connection are written newest
 *   first, so a pipelining session's requests are applied out of submission order;
 * - `chroot-lost`: a chrooted handle sends a multi's operations without its chroot (the handle
 *   reads it; see ZooKeeper.multi);
 * - `rw-probe-ignored`: a read-only client's probe that finds a read/write server is ignored,
 *   so the client stays read-only as long as its read-only server does;
 * - `names-as-count`: the history records every list of names (getChildren…) as a bare count
 *   (the handle reads it; see ZooKeeper's completions);
 * - `state-cause-dropped`: the history's state changes never say why (a CLOSED handle does not
 *   say whether it was closed or its session expired);
 * - `removal-untold`: a removal of watches takes the watchers out of the tables but queues no
 *   ChildWatchRemoved / DataWatchRemoved / PersistentWatchRemoved event for them.
 */
export type ClientCanary = "forget-last-zxid" | "rare-pings" | "lifo-send" | "chroot-lost" | "rw-probe-ignored" | "names-as-count" | "state-cause-dropped" | "removal-untold";

/** The events a removal of watches makes (finishPacket): the only ones whose state is not SyncConnected by construction. */
const REMOVAL_EVENTS: ReadonlySet<number> = new Set([EventType.ChildWatchRemoved, EventType.DataWatchRemoved, EventType.PersistentWatchRemoved]);

type DeliveryItem = { kind: "event"; event: WatchedEvent; watchers: Set<Watcher> } | { kind: "completion"; onFinish: (reply: PacketReply) => void; reply: PacketReply };

type Phase = "none" | "tcp" | "handshake" | "connected";

export class ClientCnxn {
  state: ZooKeeperState = States.NOT_CONNECTED;
  sessionId: bigint;
  sessionPasswd: Uint8Array;
  readonly sessionTimeoutMs: number;
  negotiatedSessionTimeoutMs = 0;
  connectTimeoutMs: number;
  readTimeoutMs: number;
  lastZxid: Zxid = 0n;
  /** The next xid (`@VisibleForTesting` in Java too). */
  xid = 1;
  /** The address of the current (or last) connection attempt. */
  currentAddress: HostAddress | undefined;
  readonly hostProvider: StaticHostProvider;
  readonly outgoing: Packet[] = [];
  pending: Packet[] = [];
  private readonly authInfo: { scheme: string; auth: Uint8Array }[] = [];
  private seenRwServerBefore: boolean;
  private firstAttempt = true;
  private closing = false;
  private socket: Endpoint | undefined;
  private phase: Phase = "none";
  private lastSendUs = 0;
  private lastRecvUs = 0;
  private wake: TimerHandle | undefined;
  private wakeAtUs = 0;
  private sleep: TimerHandle | undefined;
  private readonly waiting: DeliveryItem[] = [];
  private delivering = false;
  private readonly watchManager: ZKWatchManager;
  private readonly chroot: Chroot;
  private readonly rng: RandomStream;
  private readonly canary: ClientCanary | undefined;
  private readonly canBeReadOnly: boolean;
  /** pingRwServer: when the last probe started (the SendThread's start before the first)… */
  private lastPingRwServerUs = 0;
  /** …the pause before the next one… */
  private pingRwTimeoutMs = MIN_PING_RW_TIMEOUT_MS;
  /** …the probe in flight, which blocks the SendThread… */
  private rwProbe: Endpoint | undefined;
  private rwProbeTimer: TimerHandle | undefined;
  /** …what the session's connection delivered meanwhile, handled once it returns… */
  private readonly blockedByProbe: (() => void)[] = [];
  /** …and the read/write server it found, connected to next. */
  private rwServerAddress: HostAddress | undefined;
  /** SASL: the login, this connection's exchange (`zooKeeperSaslClient`), and the cnonce stream (made on first use). */
  private readonly saslCredentials: SaslCredentials | undefined;
  private saslClient: ZooKeeperSaslClient | undefined;
  private saslRng: RandomStream | undefined;

  constructor(
    private readonly ctx: NodeContext,
    options: ClientCnxnOptions,
  ) {
    this.hostProvider = new StaticHostProvider(options.hosts, options.rng);
    this.rng = options.rng;
    this.canary = options.canary;
    this.canBeReadOnly = options.canBeReadOnly === true;
    this.saslCredentials = options.sasl;
    this.chroot = options.chroot;
    this.watchManager = options.watchManager;
    this.sessionTimeoutMs = options.sessionTimeoutMs;
    this.sessionId = options.sessionId;
    this.sessionPasswd = options.sessionPasswd;
    // A handle given a session id to re-attach presents it from the first attempt on.
    this.seenRwServerBefore = options.sessionId !== 0n;
    this.connectTimeoutMs = Math.floor(this.sessionTimeoutMs / this.hostProvider.size);
    this.readTimeoutMs = Math.floor((this.sessionTimeoutMs * 2) / 3);
  }

  start(): void {
    invariant(this.state === States.NOT_CONNECTED, "ClientCnxn started twice");
    this.changeState(States.CONNECTING);
    this.lastPingRwServerUs = this.ctx.nowUs();
    this.startNextAttempt();
  }

  /** The session id as hex (cached: it goes into every history annotation). */
  get sessionIdHex(): string {
    if (this.sessionHexOf !== this.sessionId) {
      this.sessionHexOf = this.sessionId;
      this.sessionHex = sessionIdHex(this.sessionId);
    }
    return this.sessionHex;
  }
  private sessionHexOf: bigint = -1n;
  private sessionHex = "";

  /** Whether close() has been asked for (later requests fail CONNECTIONLOSS, as in Java). */
  get isClosing(): boolean {
    return this.closing;
  }

  // ---- submitting --------------------------------------------------------------------------

  /** `queuePacket`: a request joins the outgoing queue (or fails at once on a dead handle). */
  queuePacket(p: Packet): void {
    if (!isAlive(this.state) || this.closing) {
      this.finishPacket(p, this.clientReply(p, this.deadCode()));
      return;
    }
    if (p.opCode === OpCode.closeSession) {
      this.closing = true;
      if (this.socket === undefined) {
        // Between attempts there is nothing to close on the server side: give up at once.
        this.ctx.cancelTimer(this.sleep);
        this.sleep = undefined;
        this.outgoing.push(p);
        this.cleanup();
        return;
      }
    }
    this.outgoing.push(p);
    this.pump();
    this.flush();
  }

  /** `addAuthInfo`: remembered for every reconnect, and sent now. */
  addAuthInfo(scheme: string, auth: Uint8Array): void {
    if (!isAlive(this.state)) return;
    this.authInfo.push({ scheme, auth });
    this.queuePacket(authPacket(scheme, auth));
  }

  /** `disconnect`: the handle is finished (after closeSession, or on a dead session). */
  disconnect(): void {
    if (!isAlive(this.state)) return;
    this.changeState(States.CLOSED, "closed");
    this.terminate();
  }

  // ---- connecting --------------------------------------------------------------------------

  private startNextAttempt(): void {
    if (!isAlive(this.state)) return;
    invariant(this.socket === undefined && this.sleep === undefined, "a connection attempt is already under way");
    // A read/write server found by pingRwServer is tried next, without asking the host list.
    const found = this.rwServerAddress;
    this.rwServerAddress = undefined;
    const { address, spin } = found !== undefined ? { address: found, spin: false } : this.hostProvider.next();
    let delayMs = spin ? SPIN_DELAY_MS : 0;
    if (!this.firstAttempt) delayMs += Math.floor(this.rng.next() * RECONNECT_JITTER_MS);
    this.firstAttempt = false;
    if (delayMs === 0) {
      this.startConnect(address);
      return;
    }
    this.sleep = this.ctx.setTimerMs(
      delayMs,
      () => {
        this.sleep = undefined;
        this.startConnect(address);
      },
      "zk-client.reconnect",
    );
  }

  private startConnect(address: HostAddress): void {
    if (!isAlive(this.state)) return;
    this.currentAddress = address;
    this.phase = "tcp";
    // `startConnect`: a fresh SASL client per connection; its exchange starts once connected.
    this.saslClient = this.saslCredentials === undefined ? undefined : new ZooKeeperSaslClient(this.saslCredentials, (n) => this.saslCnonce(n));
    this.lastSendUs = this.ctx.nowUs();
    this.lastRecvUs = this.lastSendUs;
    const socket = this.ctx.connect(
      address.host,
      address.port,
      {
        onOpen: (ep) => {
          if (ep === this.socket) this.primeConnection();
        },
        onMessage: (ep, message) => {
          if (ep === this.socket) this.whenSendThreadFree(ep, () => this.onFrame(message));
        },
        onClose: (ep, reason) => {
          if (ep === this.socket) this.whenSendThreadFree(ep, () => this.connectionLost(`connection ${reason}`));
        },
      },
      { timeoutUs: this.connectTimeoutMs * 1000 },
    );
    this.socket = socket;
    // `conn` names the connection so a checker can tell two handles on one node apart.
    const fields = { client: this.ctx.id, server: address.host, session: this.sessionIdHex, conn: socket.id };
    this.ctx.annotate("client.connect", this.canBeReadOnly ? { ...fields, readOnly: true } : fields);
    this.pump();
  }

  /** `primeConnection`: ConnectRequest now; auth and SetWatches go first once connected. */
  private primeConnection(): void {
    this.phase = "handshake";
    const request = {
      kind: "ConnectRequest" as const,
      protocolVersion: 0,
      // The canary forgets what it has seen: a lagging server can then take it back in time.
      lastZxidSeen: this.canary === "forget-last-zxid" ? 0n : this.lastZxid,
      timeOut: this.sessionTimeoutMs,
      sessionId: this.seenRwServerBefore ? this.sessionId : 0n,
      passwd: this.sessionPasswd,
      readOnly: this.canBeReadOnly,
    };
    this.write({ kind: "connect", bytes: encodeClientFrame({ kind: "connect", request }) });
    this.lastRecvUs = this.lastSendUs;
    const prime = [...this.authInfo.map((a) => authPacket(a.scheme, a.auth)), ...this.setWatchesPackets()];
    this.outgoing.unshift(...prime);
    this.pump();
  }

  /** SetWatches / SetWatches2 batches of at most ~128 KB of path text (`primeConnection`). */
  private setWatchesPackets(): Packet[] {
    const lists = this.watchManager.watchLists();
    const queue: [keyof typeof lists, string][] = [];
    for (const key of ["dataWatches", "existWatches", "childWatches", "persistentWatches", "persistentRecursiveWatches"] as const) {
      for (const p of lists[key]) queue.push([key, this.chroot.prepend(p)]);
    }
    const packets: Packet[] = [];
    for (let i = 0; i < queue.length; ) {
      const batch = { dataWatches: [], existWatches: [], childWatches: [], persistentWatches: [], persistentRecursiveWatches: [] } as Record<keyof typeof lists, string[]>;
      // Like Java, the last path may overshoot the limit a little.
      for (let length = 0; length < SET_WATCHES_MAX_LENGTH && i < queue.length; i++) {
        const [key, path] = queue[i]!;
        batch[key].push(path);
        length += path.length;
      }
      const persistent = batch.persistentWatches.length > 0 || batch.persistentRecursiveWatches.length > 0;
      const common = { relativeZxid: this.lastZxid, dataWatches: batch.dataWatches, existWatches: batch.existWatches, childWatches: batch.childWatches };
      packets.push(
        persistent
          ? newPacket(
              OpCode.setWatches2,
              { kind: "SetWatches2", ...common, persistentWatches: batch.persistentWatches, persistentRecursiveWatches: batch.persistentRecursiveWatches },
              "setWatches",
              Xid.setWatches,
              undefined,
            )
          : newPacket(OpCode.setWatches, { kind: "SetWatches", ...common }, "setWatches", Xid.setWatches, undefined),
      );
    }
    return packets;
  }

  // ---- receiving ---------------------------------------------------------------------------

  private onFrame(message: unknown): void {
    this.lastRecvUs = this.ctx.nowUs();
    if (!isZkPacket(message)) {
      this.connectionLost("not a ZooKeeper frame");
      return;
    }
    if (this.phase === "handshake") this.onConnectResponse(message.bytes);
    else this.readResponse(message.bytes);
    if (this.socket !== undefined) this.pump();
  }

  /** `onConnected`: a session (re)established, or the news that it has expired. */
  private onConnectResponse(bytes: Uint8Array): void {
    let rsp;
    try {
      rsp = decodeConnectResponse(bytes).response;
    } catch (err) {
      if (!isJuteError(err)) throw err;
      this.connectionLost(`bad ConnectResponse: ${err.message}`);
      return;
    }
    if (rsp.timeOut <= 0) {
      this.changeState(States.CLOSED, "expired");
      this.queueEvent({ type: EventType.None, state: KeeperState.Expired, path: null });
      this.terminate();
      return;
    }
    this.negotiatedSessionTimeoutMs = rsp.timeOut;
    this.readTimeoutMs = Math.floor((rsp.timeOut * 2) / 3);
    this.connectTimeoutMs = Math.floor(rsp.timeOut / this.hostProvider.size);
    this.hostProvider.onConnected();
    this.sessionId = rsp.sessionId;
    this.sessionPasswd = rsp.passwd;
    this.phase = "connected";
    this.changeState(rsp.readOnly ? States.CONNECTEDREADONLY : States.CONNECTED);
    this.seenRwServerBefore ||= !rsp.readOnly;
    this.queueEvent({ type: EventType.None, state: rsp.readOnly ? KeeperState.ConnectedReadOnly : KeeperState.SyncConnected, path: null });
    if (this.saslClient !== undefined) this.outgoing.push(this.saslPacket(this.saslClient, this.saslClient.initialToken()));
    this.flush();
  }

  // ---- SASL (ZooKeeperSaslClient) ----------------------------------------------------------

  /** `sendSaslPacket`: a `sasl` request (a normal xid) carrying one token of `sasl`'s exchange. */
  private saslPacket(sasl: ZooKeeperSaslClient, token: Uint8Array): Packet {
    return newPacket(OpCode.sasl, { kind: "GetSASLRequest", token }, "sasl", undefined, (reply) => this.onSaslReply(sasl, reply));
  }

  /**
   * `ServerSaslResponseCallback` then the SendThread's look at the SASL state: the next token, or
   * SaslAuthenticated (and the held packets go), or AuthFailed. A reply of an older connection's
   * exchange, or a loss, is ignored: the next connection authenticates anew.
   */
  private onSaslReply(sasl: ZooKeeperSaslClient, reply: PacketReply): void {
    if (sasl !== this.saslClient || !reply.fromServer || !isAlive(this.state)) return;
    const token = reply.response?.kind === "SetSASLResponse" ? reply.response.token : null;
    const next = sasl.respond(token ?? new Uint8Array(0));
    if (next !== null) {
      this.queuePacket(this.saslPacket(sasl, next));
      return;
    }
    if (sasl.state === "FAILED") {
      this.ctx.annotate("client.sasl", { client: this.ctx.id, session: this.sessionIdHex, result: "failed", reason: sasl.failure });
      this.authFailed();
      return;
    }
    this.ctx.annotate("client.sasl", { client: this.ctx.id, session: this.sessionIdHex, result: "authenticated" });
    this.queueEvent({ type: EventType.None, state: KeeperState.SaslAuthenticated, path: null });
    this.flush();
    this.pump();
  }

  /** `clientTunneledAuthenticationInProgress`: until the exchange ends only its packets are written. */
  private get saslInProgress(): boolean {
    return this.saslClient !== undefined && this.saslClient.state === "INTERMEDIATE";
  }

  /** The first queued `sasl` packet (`findSendablePacket` while the exchange is in progress). */
  private takeSaslPacket(): Packet | undefined {
    const i = this.outgoing.findIndex((p) => p.opCode === OpCode.sasl);
    return i < 0 ? undefined : this.outgoing.splice(i, 1)[0];
  }

  private saslCnonce(bytes: number): Uint8Array {
    const rng = (this.saslRng ??= this.rng.fork("sasl-cnonce"));
    return Uint8Array.from({ length: bytes }, () => rng.int(0, 255));
  }

  /** `readResponse`: a ping reply, an auth reply, a notification, or the head of the pending queue. */
  private readResponse(bytes: Uint8Array): void {
    const reader = new JuteReader(bytes);
    let header;
    try {
      header = decodeReplyHeader(reader);
    } catch (err) {
      if (!isJuteError(err)) throw err;
      this.connectionLost(`bad reply: ${err.message}`);
      return;
    }
    switch (header.xid) {
      case Xid.ping:
        return;
      case Xid.auth:
        if (header.err === Code.AUTHFAILED) this.authFailed();
        return;
      case Xid.notification:
        this.onNotification(bytes);
        return;
    }
    const p = this.pending.shift();
    if (p === undefined) {
      this.connectionLost(`nothing in the queue, but got xid ${header.xid}`);
      return;
    }
    if (p.xid !== header.xid) {
      this.finishPacket(p, this.clientReply(p, Code.CONNECTIONLOSS));
      this.connectionLost(`xid out of order: got ${header.xid} with err ${header.err}, expected ${p.xid}`);
      return;
    }
    if (header.zxid > 0n) this.lastZxid = header.zxid;
    let response: ResponseRecord | null = null;
    if (header.err === Code.OK) {
      try {
        const frame = decodeReplyBody(reader, header, p.opCode);
        response = frame.kind === "reply" ? frame.response : null;
      } catch (err) {
        if (!isJuteError(err)) throw err;
        this.finishPacket(p, this.clientReply(p, Code.CONNECTIONLOSS));
        this.connectionLost(`undecodable reply to xid ${header.xid}: ${err.message}`);
        return;
      }
    }
    this.finishPacket(p, { err: header.err, zxid: header.zxid, response, fromServer: true, sent: true, xid: header.xid });
  }

  private onNotification(bytes: Uint8Array): void {
    let frame;
    try {
      frame = decodeReply(bytes, OpCode.notification);
    } catch (err) {
      if (!isJuteError(err)) throw err;
      this.connectionLost(`bad notification: ${err.message}`);
      return;
    }
    if (frame.kind !== "reply" || frame.response?.kind !== "WatcherEvent") return;
    const e = frame.response.event;
    const path = this.chroot.stripEvent(e.path);
    this.queueEvent({ type: e.type, state: e.state, path });
  }

  // ---- sending and timers ------------------------------------------------------------------

  /** Writes the outgoing queue while a session is established (`doIO`). */
  private flush(): void {
    while (this.phase === "connected" && this.socket !== undefined && this.rwProbe === undefined && this.outgoing.length > 0) {
      // The lifo-send canary writes its queue newest first (client FIFO order broken).
      const p = this.saslInProgress ? this.takeSaslPacket() : this.canary === "lifo-send" ? this.outgoing.pop()! : this.outgoing.shift()!;
      if (p === undefined) return; // only the exchange's packets may go until it ends
      p.xid = p.fixedXid ?? this.nextXid();
      p.sent = true;
      this.write({ kind: p.label, bytes: encodeClientFrame({ kind: "request", header: { xid: p.xid, type: p.opCode }, request: p.request }) });
      if (p.opCode !== OpCode.ping && p.opCode !== OpCode.auth) this.pending.push(p);
    }
  }

  private write(packet: ZkPacket): void {
    this.socket!.send(packet);
    this.lastSendUs = this.ctx.nowUs();
  }

  /** `getXid`: 1, 2, …, skipping from Integer.MAX_VALUE back to 1. */
  private nextXid(): number {
    if (this.xid === MAX_XID) this.xid = 1;
    return this.xid++;
  }

  /** One turn of the SendThread loop: timeouts, pings, and when to look again. */
  private pump(): void {
    if (!isAlive(this.state) || this.socket === undefined || this.rwProbe !== undefined) return;
    const now = this.ctx.nowUs();
    const idleRecvMs = (now - this.lastRecvUs) / 1000;
    const idleSendMs = (now - this.lastSendUs) / 1000;
    const connected = this.phase === "connected";
    let toMs = connected ? this.readTimeoutMs - idleRecvMs : this.connectTimeoutMs - idleSendMs;
    if (toMs <= 0) {
      this.connectionLost(connected ? `read timeout: nothing heard for ${idleRecvMs} ms` : `connect timeout after ${idleSendMs} ms`);
      return;
    }
    if (connected) {
      // The canary's pings come a read timeout apart: the read timeout fires first on an idle connection.
      const halfReadMs = this.canary === "rare-pings" ? this.readTimeoutMs + 1000 : Math.floor(this.readTimeoutMs / 2);
      const timeToNextPingMs = halfReadMs - idleSendMs - (idleSendMs > 1000 ? 1000 : 0);
      if (timeToNextPingMs <= 0 || idleSendMs > MAX_SEND_PING_INTERVAL_MS) {
        this.outgoing.push(pingPacket());
        this.flush();
        toMs = Math.min(toMs, halfReadMs);
      } else {
        toMs = Math.min(toMs, timeToNextPingMs);
      }
    }
    if (this.state === States.CONNECTEDREADONLY) {
      const idlePingRwMs = (now - this.lastPingRwServerUs) / 1000;
      if (idlePingRwMs >= this.pingRwTimeoutMs) {
        this.lastPingRwServerUs = now;
        this.pingRwTimeoutMs = Math.min(2 * this.pingRwTimeoutMs, MAX_PING_RW_TIMEOUT_MS);
        this.pingRwServer();
        return; // the SendThread is blocked in the probe
      }
      toMs = Math.min(toMs, this.pingRwTimeoutMs - idlePingRwMs);
    }
    this.armWake(toMs, now);
  }

  // ---- looking for a read/write server (read-only handles) ---------------------------------

  /** Runs `work` for connection `ep` now, or once the SendThread is out of a `pingRwServer` probe (in arrival order). */
  private whenSendThreadFree(ep: Endpoint, work: () => void): void {
    if (this.rwProbe === undefined) work();
    else this.blockedByProbe.push(() => ep === this.socket && work());
  }

  /** `pingRwServer`: ask the next host of the list `isro` on a connection of its own. */
  private pingRwServer(): void {
    const { address } = this.hostProvider.next();
    const probe = this.ctx.connect(
      address.host,
      address.port,
      {
        onOpen: (ep) => {
          if (ep !== this.rwProbe) return;
          ep.send(fourLetterWordPacket("isro"));
          this.rwProbeTimer = this.ctx.setTimerMs(PING_RW_READ_TIMEOUT_MS, () => this.endRwProbe(address, null), "zk-client.rw-probe");
        },
        onMessage: (ep, message) => {
          if (ep === this.rwProbe) this.endRwProbe(address, isZkPacket(message) ? new TextDecoder().decode(message.bytes) : null);
        },
        onClose: (ep) => {
          if (ep === this.rwProbe) this.endRwProbe(address, null);
        },
      },
      { timeoutUs: PING_RW_CONNECT_TIMEOUT_MS * 1000 },
    );
    this.rwProbe = probe;
  }

  /** The probe is over: the SendThread goes on; an "rw" answer moves the session there. */
  private endRwProbe(address: HostAddress, result: string | null): void {
    const probe = this.rwProbe;
    this.rwProbe = undefined;
    this.ctx.cancelTimer(this.rwProbeTimer);
    this.rwProbeTimer = undefined;
    probe?.close();
    this.ctx.annotate("client.rw-probe", { client: this.ctx.id, server: address.host, result: result ?? "none" });
    if (this.canary === "rw-probe-ignored") result = null; // broken on purpose: the answer is dropped
    if (result === "rw") {
      // RWServerFoundException: thrown before the loop reads the connection again, so whatever
      // arrived on it meanwhile is never read; the pending requests fail CONNECTIONLOSS.
      this.blockedByProbe.length = 0;
      this.pingRwTimeoutMs = MIN_PING_RW_TIMEOUT_MS;
      this.rwServerAddress = address;
      this.connectionLost(`read/write server found at ${address.host}:${address.port}`);
      return;
    }
    for (let work = this.blockedByProbe.shift(); work !== undefined; work = this.blockedByProbe.shift()) work();
    this.flush();
    this.pump();
  }

  /** Keeps one tick timer, armed for the earliest deadline known. */
  private armWake(delayMs: number, now: number): void {
    const atUs = now + Math.max(1, Math.ceil(delayMs * 1000));
    const w = this.wake;
    if (w !== undefined && !w.fired && !w.cancelled && this.wakeAtUs <= atUs) return;
    this.ctx.cancelTimer(w);
    this.wakeAtUs = atUs;
    this.wake = this.ctx.setTimer(atUs - now, () => this.pump(), "zk-client.tick");
  }

  // ---- losing the connection ---------------------------------------------------------------

  /** `cleanAndNotifyState` and the next loop turn: fail everything in flight, tell watchers, retry. */
  private connectionLost(reason: string): void {
    if (this.socket === undefined && this.phase === "none") return;
    this.ctx.annotate("client.disconnect", { client: this.ctx.id, session: this.sessionIdHex, reason, conn: this.socket?.id });
    this.closeSocket();
    this.cleanup();
    if (!isAlive(this.state)) return;
    this.queueEvent({ type: EventType.None, state: KeeperState.Disconnected, path: null });
    if (!isAlive(this.state) || this.socket !== undefined || this.sleep !== undefined) return; // a watcher closed or already retried
    if (this.closing) {
      this.disconnect();
      return;
    }
    this.changeState(States.CONNECTING);
    this.startNextAttempt();
  }

  private authFailed(): void {
    this.changeState(States.AUTH_FAILED, "authFailed");
    this.queueEvent({ type: EventType.None, state: KeeperState.AuthFailed, path: null });
    this.terminate();
  }

  /** The end of the SendThread: no socket, nothing in flight, then a Closed event (3.8). */
  private terminate(): void {
    this.ctx.cancelTimer(this.sleep);
    this.sleep = undefined;
    this.abandonRwProbe();
    this.closeSocket();
    this.cleanup();
    this.queueEvent({ type: EventType.None, state: KeeperState.Closed, path: null });
  }

  /** A dead handle has no SendThread to block: the probe and what waited on it go. */
  private abandonRwProbe(): void {
    const probe = this.rwProbe;
    this.rwProbe = undefined;
    this.ctx.cancelTimer(this.rwProbeTimer);
    this.rwProbeTimer = undefined;
    this.blockedByProbe.length = 0;
    probe?.close();
  }

  private closeSocket(): void {
    this.ctx.cancelTimer(this.wake);
    this.wake = undefined;
    const s = this.socket;
    this.socket = undefined;
    this.phase = "none";
    s?.close();
  }

  /** `cleanup`: every pending and queued request fails (`conLossPacket`). */
  private cleanup(): void {
    const code = this.deadCode();
    const pending = this.pending;
    this.pending = [];
    const queued = this.outgoing.splice(0, this.outgoing.length);
    for (const p of pending) this.finishPacket(p, this.clientReply(p, code));
    for (const p of queued) {
      if (p.opCode !== OpCode.ping && p.opCode !== OpCode.auth) this.finishPacket(p, this.clientReply(p, code));
    }
  }

  /** CONNECTIONLOSS while alive, SESSIONEXPIRED once CLOSED, AUTHFAILED after an auth failure. */
  private deadCode(): number {
    if (this.state === States.AUTH_FAILED) return Code.AUTHFAILED;
    if (this.state === States.CLOSED) return Code.SESSIONEXPIRED;
    return Code.CONNECTIONLOSS;
  }

  private clientReply(p: Packet, err: number): PacketReply {
    // `xid` always present (undefined when unsent), like a server reply's: one shape for both.
    return { err, zxid: undefined, response: null, fromServer: false, sent: p.sent === true, xid: p.sent === true ? p.xid : undefined };
  }

  // ---- finishing packets and delivering events ---------------------------------------------

  /** `finishPacket`: watch (de)registration by the reply code, then the completion, in order. */
  private finishPacket(p: Packet, reply: PacketReply): void {
    if (p.watchRegistration !== undefined) this.watchManager.register(p.watchRegistration, reply.err);
    let final = reply;
    const dereg = p.watchDeregistration;
    if (dereg !== undefined) {
      try {
        const removed = this.watchManager.removeWatcher(dereg.clientPath, dereg.watcher, dereg.type, dereg.local, reply.err);
        const state = reply.err === Code.SESSIONEXPIRED || reply.err === Code.CONNECTIONLOSS ? KeeperState.Disconnected : KeeperState.SyncConnected;
        const groups: [number, Set<Watcher>][] = [
          [EventType.ChildWatchRemoved, removed.childRemoved],
          [EventType.DataWatchRemoved, removed.dataRemoved],
          [EventType.PersistentWatchRemoved, removed.persistentRemoved],
        ];
        for (const [type, watchers] of groups) {
          if (watchers.size === 0) continue;
          // The canary removes the watchers and tells none of them.
          if (this.canary === "removal-untold") continue;
          this.queueEvent({ type, state, path: dereg.clientPath }, watchers);
          final = { ...final, err: Code.OK }; // a local removal succeeds whatever the server said
        }
      } catch (err) {
        if (!(err instanceof KeeperException)) throw err;
        final = { ...final, err: err.code };
      }
    }
    const onFinish = p.onFinish;
    if (onFinish !== undefined) this.deliver({ kind: "completion", onFinish, reply: final });
  }

  /** `EventThread.queueEvent`: the watchers are chosen now (materialized), called in order. */
  queueEvent(event: WatchedEvent, watchers?: Set<Watcher>): void {
    const chosen = watchers ?? this.watchManager.materialize(event.type, event.path);
    if (event.type !== EventType.None) {
      const fields = { client: this.ctx.id, session: this.sessionIdHex, type: eventTypeName(event.type), path: event.path, watchers: chosen.size };
      // A removal's event says which state it carries (a znode event is always SyncConnected).
      this.ctx.annotate("client.watch", REMOVAL_EVENTS.has(event.type) ? { ...fields, state: keeperStateName(event.state) } : fields);
    }
    this.deliver({ kind: "event", event, watchers: chosen });
  }

  private deliver(item: DeliveryItem): void {
    this.waiting.push(item);
    if (this.delivering) return; // re-entered from a watcher: runs after the current item
    this.delivering = true;
    try {
      for (let next = this.waiting.shift(); next !== undefined; next = this.waiting.shift()) this.run(next);
    } finally {
      this.delivering = false;
    }
  }

  private run(item: DeliveryItem): void {
    if (item.kind === "completion") {
      item.onFinish(item.reply);
      return;
    }
    for (const watcher of item.watchers) {
      try {
        watcher(item.event);
      } catch (err) {
        // Java's EventThread logs "Error while calling watcher" and goes on; so do we, visibly.
        this.ctx.annotate("client.watcher-error", { client: this.ctx.id, type: eventTypeName(item.event.type), state: keeperStateName(item.event.state), error: String(err) });
      }
    }
  }

  private changeState(state: ZooKeeperState, cause?: string): void {
    if (this.canary === "state-cause-dropped") cause = undefined; // broken on purpose
    if (this.state === state) return;
    this.state = state;
    const fields: ClientStateFields = { client: this.ctx.id, state, session: this.sessionIdHex, conn: this.socket?.id };
    if (cause !== undefined) fields.cause = cause;
    this.ctx.annotate("client.state", fields);
  }
}

function pingPacket(): Packet {
  return newPacket(OpCode.ping, { kind: "Empty" }, "ping", Xid.ping, undefined);
}

function authPacket(scheme: string, auth: Uint8Array): Packet {
  return newPacket(OpCode.auth, { kind: "AuthPacket", type: 0, scheme, auth }, "auth", Xid.auth, undefined);
}

const MASK_64 = (1n << 64n) - 1n;

/** `0x…` as Java's `Long.toHexString` prints a session id (unsigned). */
export function sessionIdHex(id: bigint): string {
  return `0x${(id & MASK_64).toString(16)}`;
}
