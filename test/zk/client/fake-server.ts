/**
 * A scripted fake ZooKeeper server for client tests: sim nodes that listen on 2181, decode
 * client frames with the real codec and answer as each test scripts them. It is not a
 * ZooKeeper: it does only what a test tells it, plus a few defaults (accept connects,
 * answer pings, auth and setWatches, reply then close on closeSession).
 *
 * Everything a fake server sees is logged (`FakeZk.log`) with its virtual time, so tests
 * assert on what the client sent, when, and to whom.
 */
import { Simulator } from "../../../src/sim/simulator.js";
import type { Endpoint } from "../../../src/sim/network.js";
import type { NodeContext } from "../../../src/sim/node-context.js";
import { decodeClientFrame, encodeServerFrame, notificationFrame } from "../../../src/zk/proto/codec.js";
import { OpCode, Xid, opName } from "../../../src/zk/proto/op-code.js";
import type { ConnectRequest, RequestHeader, RequestRecord, ResponseRecord } from "../../../src/zk/proto/packets.js";
import { emptyStat, type Stat, type WatcherEvent, type Zxid } from "../../../src/zk/proto/records.js";
import { CLIENT_PORT, isZkPacket } from "../../../src/zk/proto/wire.js";
import { createClient, type ClientOptions, type ZooKeeper } from "../../../src/zk/client/index.js";

export type LogEntry =
  | { kind: "connect"; atMs: number; server: string; conn: number; request: ConnectRequest }
  | { kind: "request"; atMs: number; server: string; conn: number; header: RequestHeader; request: RequestRecord };

export type ConnectAction = "accept" | "expire" | "close" | "ignore";

export class FakeConn {
  connectRequest: ConnectRequest | undefined;
  closed = false;
  constructor(
    readonly zk: FakeZk,
    readonly server: string,
    readonly endpoint: Endpoint,
  ) {}

  get id(): number {
    return this.endpoint.id;
  }

  acceptSession(timeOut: number, sessionId: bigint, passwd: Uint8Array): void {
    this.endpoint.send({ kind: "connect", bytes: encodeServerFrame({ kind: "connect", response: { kind: "ConnectResponse", protocolVersion: 0, timeOut, sessionId, passwd, readOnly: false } }) });
  }

  /** The "session expired" answer: timeOut 0, id 0, zero password, then close (§3.4). */
  expireSession(): void {
    this.acceptSession(0, 0n, new Uint8Array(16));
    this.close();
  }

  reply(xid: number, opts: { zxid?: Zxid; err?: number; response?: ResponseRecord | null } = {}): void {
    const header = { xid, zxid: opts.zxid ?? this.zk.zxid, err: opts.err ?? 0 };
    const response = opts.response === undefined ? { kind: "Empty" as const } : opts.response;
    this.endpoint.send({ kind: "reply", bytes: encodeServerFrame({ kind: "reply", header, response }) });
  }

  notify(event: WatcherEvent): void {
    this.endpoint.send({ kind: "notification", bytes: encodeServerFrame(notificationFrame(event)) });
  }

  close(): void {
    this.closed = true;
    this.endpoint.close();
  }
}

export interface FakeScript {
  /** What to do with a ConnectRequest (default "accept"). */
  onConnect?(conn: FakeConn, request: ConnectRequest): ConnectAction | void;
  /** Timeout to negotiate (default: the requested one). */
  negotiate?(requestedMs: number): number;
  /** A request other than ping/auth/setWatches/closeSession; the default leaves it unanswered. */
  onRequest?(conn: FakeConn, header: RequestHeader, request: RequestRecord): void;
  /** Ping/auth/setWatches too go here first when set; return true if handled. */
  onSpecial?(conn: FakeConn, header: RequestHeader, request: RequestRecord): boolean;
}

export class FakeZk {
  readonly log: LogEntry[] = [];
  readonly conns: FakeConn[] = [];
  script: FakeScript = {};
  zxid: Zxid = 0n;
  private nextSession = 0x100n;
  readonly passwords = new Map<bigint, Uint8Array>();

  constructor(readonly sim: Simulator) {}

  /** Adds a fake server node (not started). */
  addServer(id: string): void {
    this.sim.addNode(id, (ctx) => {
      ctx.listen(CLIENT_PORT, (ep) => this.accept(ctx, ep));
      return {};
    });
  }

  private accept(ctx: NodeContext, ep: Endpoint) {
    const conn = new FakeConn(this, ctx.id, ep);
    this.conns.push(conn);
    return {
      onMessage: (_ep: Endpoint, message: unknown) => {
        if (!isZkPacket(message) || conn.closed) return;
        const atMs = this.sim.nowUs / 1000;
        if (conn.connectRequest === undefined) {
          const frame = decodeClientFrame(message.bytes, "connect");
          if (frame.kind !== "connect") return;
          conn.connectRequest = frame.request;
          this.log.push({ kind: "connect", atMs, server: ctx.id, conn: conn.id, request: frame.request });
          this.onConnect(conn, frame.request);
          return;
        }
        const frame = decodeClientFrame(message.bytes, "request");
        if (frame.kind !== "request") return;
        this.log.push({ kind: "request", atMs, server: ctx.id, conn: conn.id, header: frame.header, request: frame.request });
        this.onRequest(conn, frame.header, frame.request);
      },
      onClose: () => {
        conn.closed = true;
      },
    };
  }

  private onConnect(conn: FakeConn, req: ConnectRequest): void {
    const action = this.script.onConnect?.(conn, req) ?? "accept";
    switch (action) {
      case "accept": {
        let id = req.sessionId;
        if (id === 0n) {
          id = this.nextSession++;
          this.passwords.set(id, passwordFor(id));
        }
        const timeOut = this.script.negotiate?.(req.timeOut) ?? req.timeOut;
        conn.acceptSession(timeOut, id, this.passwords.get(id) ?? passwordFor(id));
        return;
      }
      case "expire":
        conn.expireSession();
        return;
      case "close":
        conn.close();
        return;
      case "ignore":
        return;
    }
  }

  private onRequest(conn: FakeConn, header: RequestHeader, request: RequestRecord): void {
    if (this.script.onSpecial?.(conn, header, request) === true) return;
    switch (header.type) {
      case OpCode.ping:
        conn.reply(Xid.ping);
        return;
      case OpCode.auth:
        conn.reply(Xid.auth, { zxid: 0n });
        return;
      case OpCode.setWatches:
      case OpCode.setWatches2:
        conn.reply(Xid.setWatches);
        return;
      case OpCode.closeSession:
        this.zxid++;
        conn.reply(header.xid);
        conn.close();
        return;
    }
    this.script.onRequest?.(conn, header, request);
  }

  // ---- queries -----------------------------------------------------------------------------

  connects(): Extract<LogEntry, { kind: "connect" }>[] {
    return this.log.filter((e): e is Extract<LogEntry, { kind: "connect" }> => e.kind === "connect");
  }

  requests(type?: number): Extract<LogEntry, { kind: "request" }>[] {
    return this.log.filter((e): e is Extract<LogEntry, { kind: "request" }> => e.kind === "request" && (type === undefined || e.header.type === type));
  }

  /** Op names of the requests, in arrival order (for ordering assertions). */
  requestNames(): string[] {
    return this.requests().map((e) => opName(e.header.type));
  }

  /** The connection currently open from the client, if any. */
  openConn(): FakeConn | undefined {
    return [...this.conns].reverse().find((c) => !c.closed && c.connectRequest !== undefined);
  }
}

export function passwordFor(id: bigint): Uint8Array {
  return Uint8Array.from({ length: 16 }, (_, i) => (Number(id & 0xffn) + i) & 0xff);
}

export function statWith(fields: Partial<Stat>): Stat {
  return { ...emptyStat(), ...fields };
}

export interface World {
  sim: Simulator;
  zk: FakeZk;
  /** The client handle (made when the client node starts). */
  client(): ZooKeeper;
  /** Runs the simulation for `ms` of virtual time (draining promise continuations). */
  runMs(ms: number): Promise<void>;
  nowMs(): number;
}

/** A world of fake servers `servers` and a started client node "c" running `createClient(options)`. */
export function world(options: Partial<ClientOptions> & { seed?: number; servers?: string[] } = {}): World {
  const { seed, servers: serverList, ...rest } = options;
  const sim = new Simulator({ seed: seed ?? 1, retainTrace: true });
  const zk = new FakeZk(sim);
  const servers = serverList ?? ["s1"];
  for (const s of servers) zk.addServer(s);
  let handle: ZooKeeper | undefined;
  const clientOptions: ClientOptions = { connectString: servers.join(","), sessionTimeoutMs: 30_000, ...rest };
  sim.addNode("c", (ctx) => {
    handle = createClient(ctx, clientOptions);
    return {};
  });
  for (const s of servers) sim.start(s);
  sim.start("c");
  return {
    sim,
    zk,
    client: () => handle!,
    runMs: async (ms: number) => {
      await sim.run({ untilUs: sim.nowUs + Math.round(ms * 1000) });
    },
    nowMs: () => sim.nowUs / 1000,
  };
}

/** A promise's outcome, observable synchronously once settled (and never an unhandled rejection). */
export interface Tracked<T> {
  done: boolean;
  value?: T;
  error?: unknown;
  atMs?: number;
}

export function track<T>(sim: Simulator, p: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { done: false };
  p.then(
    (v) => Object.assign(t, { done: true, value: v, atMs: sim.nowUs / 1000 }),
    (e: unknown) => Object.assign(t, { done: true, error: e, atMs: sim.nowUs / 1000 }),
  );
  return t;
}

/** Trace annotations of one kind, as field records. */
export function annotations(sim: Simulator, kind: string): Record<string, unknown>[] {
  return sim.trace.events.filter((e) => e.kind === kind).map((e) => e.fields ?? {});
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const dec = (b: Uint8Array | null): string => (b === null ? "<null>" : new TextDecoder().decode(b));
