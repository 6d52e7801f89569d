/**
 * A raw ZooKeeper client over real TCP for the serve tests: it writes frames encoded with the
 * project's codec (ConnectRequest, then RequestHeader + record) and reads the server's frames
 * back, nothing more — no pings, no reconnects — so each test sees exactly what went over the
 * wire. Every wait is bounded.
 */
import { askFourLetterWord } from "../../src/conformance/runner.js";
import net from "node:net";
import { decodeServerFrame, encodeClientFrame } from "../../src/zk/proto/codec.js";
import { FrameDecoder, frame } from "../../src/zk/proto/codec-framing.js";
import type { ServerFrame, RequestRecord } from "../../src/zk/proto/packets.js";
import { QuorumPeer } from "../../src/zk/server/quorum/quorum-peer.js";
import { ZooKeeperServer } from "../../src/zk/server/zoo-keeper-server.js";
import type { ServeSession } from "../../src/serve/serve-session.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import { afterEach } from "vitest";

export class RawZkClient {
  private readonly decoder = new FrameDecoder();
  private readonly payloads: Uint8Array[] = [];
  private waiter: (() => void) | undefined;
  readonly closed: Promise<void>;
  isClosed = false;
  private readonly types = new Map<number, number>();

  private constructor(readonly socket: net.Socket) {
    this.closed = new Promise((resolve) => socket.on("close", () => {
      this.isClosed = true;
      resolve();
      this.waiter?.();
    }));
    socket.on("error", () => undefined); // a reset shows as "close"
    socket.on("data", (chunk: Buffer) => {
      for (const ev of this.decoder.push(new Uint8Array(chunk))) if (ev.kind === "frame") this.payloads.push(ev.payload);
      this.waiter?.();
    });
  }

  static connect(port: number): Promise<RawZkClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(new RawZkClient(socket)));
      socket.once("error", reject);
    });
  }

  writeRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  sendConnect(sessionId = 0n, passwd: Uint8Array = new Uint8Array(16), timeOut = 10_000, readOnly = false): void {
    this.writeRaw(frame(encodeClientFrame({ kind: "connect", request: { kind: "ConnectRequest", protocolVersion: 0, lastZxidSeen: 0n, timeOut, sessionId, passwd, readOnly } })));
  }

  sendRequest(xid: number, type: number, request: RequestRecord): void {
    this.types.set(xid, type);
    this.writeRaw(frame(encodeClientFrame({ kind: "request", header: { xid, type }, request })));
  }

  /** The next frame, decoded as a ConnectResponse (first) or the reply to a sent xid. */
  async next(expect: "connect" | "reply", timeoutMs = 5000): Promise<ServerFrame> {
    const deadline = Date.now() + timeoutMs;
    // Woken by the next chunk or the close; the timer only bounds the wait.
    while (this.payloads.length === 0) {
      if (this.isClosed) throw new Error("connection closed");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const payload = this.payloads.shift()!;
    return decodeServerFrame(payload, expect === "connect" ? "connect" : (xid) => this.types.get(xid));
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Sends a four-letter word on a fresh connection and returns everything the server wrote before closing. */
export function fourLetterWord(port: number, word: string, timeoutMs = 5000): Promise<string> {
  return askFourLetterWord({ host: "127.0.0.1", port }, word, timeoutMs);
}

/**
 * Resolves once `ready` holds: asked now (without an event) and after every event the session's
 * simulation records (with it), with no polling and no fixed sleep, so it wakes on the event
 * that made it true. Bounded: a hang fails with `what` and the ensemble's status.
 */
export function untilSim(s: ServeSession, what: string, ready: (event?: TraceEvent) => boolean, timeoutMs = 15_000): Promise<void> {
  if (ready()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = () => {
      unsubscribe();
      clearTimeout(timer);
    };
    const unsubscribe = s.ensemble.sim.trace.subscribe((event) => {
      if (!ready(event)) return;
      stop();
      resolve();
    });
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out waiting for ${what}: ${s.command("status")}`));
    }, timeoutMs);
  });
}

/** Whether a member's server accepts clients (a quorum peer once synchronised, a standalone server once started). */
export function isServing(s: ServeSession, node: string): boolean {
  const n = s.ensemble.sim.node(node);
  if (n.status !== "up") return false;
  return n.process instanceof QuorumPeer ? n.process.serving : n.process instanceof ZooKeeperServer && n.process.isServing;
}

/** Whether every member that is up serves clients. */
function everyUpServing(s: ServeSession): boolean {
  return s.ensemble.settings.members.every((m) => s.ensemble.sim.node(m.node).status !== "up" || isServing(s, m.node));
}

/** Waits until every member that is up serves clients (a standalone server: once it has started). */
export function allServing(s: ServeSession, timeoutMs = 8000): Promise<void> {
  return untilSim(s, "every member that is up to serve", () => everyUpServing(s), timeoutMs);
}

/** Waits until there is a leader and every member that is up serves clients; returns the leader's node id. */
export async function leaderServing(s: ServeSession, timeoutMs = 8000): Promise<string> {
  const leader = () => s.ensemble.settings.members.map((m) => s.ensemble.sim.node(m.node)).find((n) => n.status === "up" && n.process instanceof QuorumPeer && n.process.state === "LEADING");
  await untilSim(s, "a serving leader", () => leader() !== undefined && everyUpServing(s), timeoutMs);
  return leader()!.id;
}

/** A test file's serve session and raw clients, all closed after each test (`serveFixture()` at module level). */
export interface ServeFixture {
  session: ServeSession | undefined;
  clients: RawZkClient[];
}

export function serveFixture(): ServeFixture {
  const fx: ServeFixture = { session: undefined, clients: [] };
  afterEach(async () => {
    for (const c of fx.clients.splice(0)) c.close();
    await fx.session?.close();
    fx.session = undefined;
  });
  return fx;
}

/** Whether 127.0.0.1:`port` can be listened on now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

let nextPortRun = 20_000 + ((process.pid * 37) % 10_000);

/**
 * The first of `n` consecutive ports free now, below Linux's ephemeral range (32768 up): a port
 * chosen there is not taken meanwhile by another test's outgoing connection, as one next to an
 * OS-assigned port can be (a serve child started on it would exit at once).
 */
export async function freePortRun(n: number): Promise<number> {
  for (;;) {
    const base = nextPortRun;
    nextPortRun = base + n >= 32_000 ? 20_000 : base + n;
    let free = true;
    for (let p = base; p < base + n && free; p++) free = await canListen(p);
    if (free) return base;
  }
}
