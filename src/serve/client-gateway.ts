/**
 * The client gateway: real TCP connections become simulated client connections.
 *
 * Each member's client port has a real listener (127.0.0.1 unless `bind` says otherwise). A
 * real connection opens a simulated connection from the member's gateway node `cN` to `sN`'s
 * client port; its byte stream is cut into frames (4-byte length + Jute payload, FrameDecoder),
 * and each frame enters the simulated network as a `ZkPacket`, exactly what a simulated client
 * sends. Frames the simulated server sends come back out with their length prefix. So a
 * partition, clog or pause between `cN` and `sN` holds the real client's traffic, a crash of
 * `sN` resets the real socket, and a refused simulated connect (server down or not serving)
 * closes it.
 *
 * As 3.8's NIOServerCnxn: the first 4 bytes may be a four-letter word (answered, then the
 * connection closes); a length outside [0, jute.maxbuffer] closes that connection only; a
 * malformed frame is closed by the simulated server (ServerCnxn) and so here. `maxClientCnxns`
 * limits connections per client address on one port (0 = unlimited). A connection that sends no
 * complete frame within `sessionlessCnxnTimeoutMs` of its last bytes (3.8's
 * `zookeeper.nio.sessionlessCnxnTimeout`, 10 s: NIOServerCnxn's timeout until a session exists)
 * is closed. The listen backlog is raised above Node's 511 so a burst of connects is queued, not
 * dropped and retried by the kernel seconds later.
 *
 * Invariants: per connection, frames enter the simulation in socket order (frames read before
 * the simulated connection opens wait in order); a socket and its simulated connection close
 * together, whichever side closes first.
 */
import net from "node:net";
import type { CloseReason, Endpoint } from "../sim/network.js";
import { FrameDecoder, frame } from "../zk/proto/codec-framing.js";
import { JUTE_MAX_BUFFER_BYTES } from "../zk/proto/records.js";
import { CLIENT_PORT, type ZkPacket } from "../zk/proto/wire.js";
import { answerFourLetterWord, newPortStats, recordLatency, type ConnectionInfo, type PortStats } from "./four-letter-words.js";
import type { ServeEnsemble } from "./serve-ensemble.js";
import type { ServeMember } from "./zoo-cfg.js";

/** 3.8's `zookeeper.nio.sessionlessCnxnTimeout` default. */
export const SESSIONLESS_CNXN_TIMEOUT_MS = 10_000;
const LISTEN_BACKLOG = 2048;

/** Frames going into the simulation, labelled for the trace. */
const CLIENT_FRAME = "real-client";

interface RealConnection {
  socket: net.Socket;
  info: ConnectionInfo;
  endpoint: Endpoint | undefined;
  /** Frames read before the simulated connection opened. */
  waiting: Uint8Array[];
  /** Wall-clock start of each request by xid (for the latency figures). */
  startedMs: Map<number, number>;
  connectSeen: boolean;
  /** Closes the connection if no frame comes (cleared by the first frame). */
  sessionless: NodeJS.Timeout | undefined;
}

export interface GatewayHooks {
  /** Something entered the simulation: run it now rather than at the next tick. */
  kick(): void;
  /** The wall clock in ms (for latencies). */
  wallMs(): number;
  /** Default SESSIONLESS_CNXN_TIMEOUT_MS. */
  sessionlessCnxnTimeoutMs?: number;
}

export class ClientGateway {
  private readonly servers: net.Server[] = [];
  private readonly conns = new Map<ServeMember, Set<RealConnection>>();
  readonly stats = new Map<ServeMember, PortStats>();
  private readonly boundPorts = new Map<ServeMember, number>();

  constructor(
    private readonly ensemble: ServeEnsemble,
    private readonly hooks: GatewayHooks,
  ) {
    for (const m of ensemble.settings.members) {
      const set = new Set<RealConnection>();
      this.conns.set(m, set);
      this.stats.set(m, newPortStats(() => [...set].map((c) => c.info)));
    }
  }

  /** Listens on every member's client port; resolves with the bound ports (port 0 = any free one). */
  async listen(bind: string): Promise<Map<ServeMember, number>> {
    const ports = new Map<ServeMember, number>();
    for (const m of this.ensemble.settings.members) {
      const server = net.createServer((socket) => this.accept(m, socket));
      this.servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ port: m.clientPort, host: bind, backlog: LISTEN_BACKLOG }, () => {
          server.off("error", reject);
          resolve();
        });
      });
      ports.set(m, (server.address() as net.AddressInfo).port);
    }
    for (const [m, port] of ports) this.boundPorts.set(m, port);
    return ports;
  }

  async close(): Promise<void> {
    for (const set of this.conns.values()) for (const c of set) c.socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  private accept(m: ServeMember, socket: net.Socket): void {
    const set = this.conns.get(m)!;
    const address = socket.remoteAddress ?? "?";
    const limit = this.ensemble.settings.maxClientCnxns;
    if (limit > 0 && [...set].filter((c) => c.socket.remoteAddress === address).length >= limit) {
      socket.destroy(); // 3.8: "Too many connections from <addr> - max is <n>"
      return;
    }
    const c: RealConnection = {
      socket,
      info: { remote: `${address}:${socket.remotePort ?? 0}`, packetsReceived: 0, packetsSent: 0 },
      endpoint: undefined,
      waiting: [],
      startedMs: new Map(),
      connectSeen: false,
      sessionless: undefined,
    };
    set.add(c);
    this.awaitFrame(c);
    socket.setNoDelay(true);
    const decoder = new FrameDecoder({ fourLetterWords: true, maxFrameBytes: JUTE_MAX_BUFFER_BYTES });
    socket.on("data", (chunk: Buffer) => this.onData(m, c, decoder, chunk));
    socket.on("close", () => {
      clearTimeout(c.sessionless);
      set.delete(c);
      c.endpoint?.close();
      this.hooks.kick();
    });
    socket.on("error", () => socket.destroy()); // a reset by the peer: "close" follows
  }

  /** (Re)arms the sessionless timer while no frame has come: bytes of a frame still coming count as activity. */
  private awaitFrame(c: RealConnection): void {
    clearTimeout(c.sessionless);
    c.sessionless = setTimeout(() => c.socket.destroy(), this.hooks.sessionlessCnxnTimeoutMs ?? SESSIONLESS_CNXN_TIMEOUT_MS);
  }

  private onData(m: ServeMember, c: RealConnection, decoder: FrameDecoder, chunk: Buffer): void {
    if (c.endpoint === undefined) this.awaitFrame(c);
    for (const ev of decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))) {
      switch (ev.kind) {
        case "frame":
          this.toSimulation(m, c, ev.payload);
          break;
        case "fourLetterWord": {
          const stats = this.stats.get(m)!;
          stats.packetsReceived++;
          c.info.packetsReceived++;
          const node = this.ensemble.sim.node(m.node);
          if (node.status === "down") c.socket.destroy(); // nobody listens: 3.8's port would refuse
          else c.socket.end(answerFourLetterWord(ev.command, { node, member: m, clientPort: this.boundPorts.get(m) ?? m.clientPort, settings: this.ensemble.settings, stats }));
          return;
        }
        case "error":
          c.socket.destroy(); // "Len error": this connection only
          return;
      }
    }
  }

  private toSimulation(m: ServeMember, c: RealConnection, payload: Uint8Array): void {
    const stats = this.stats.get(m)!;
    stats.packetsReceived++;
    c.info.packetsReceived++;
    if (c.connectSeen && payload.length >= 4) c.startedMs.set(new DataView(payload.buffer, payload.byteOffset).getInt32(0), this.hooks.wallMs());
    c.connectSeen = true;
    if (c.endpoint === undefined) {
      clearTimeout(c.sessionless);
      this.openSimulated(m, c);
    }
    if (c.endpoint!.open) c.endpoint!.send({ kind: CLIENT_FRAME, bytes: payload } satisfies ZkPacket);
    else c.waiting.push(payload);
    this.hooks.kick();
  }

  /** The simulated half: a connection from `cN` to `sN`'s client port. */
  private openSimulated(m: ServeMember, c: RealConnection): void {
    const ctx = this.ensemble.sim.node(this.ensemble.gatewayOf(m)).context!;
    c.endpoint = ctx.connect(m.node, CLIENT_PORT, {
      onOpen: (ep) => {
        for (const bytes of c.waiting) ep.send({ kind: CLIENT_FRAME, bytes } satisfies ZkPacket);
        c.waiting = [];
      },
      onMessage: (_ep, message) => this.fromSimulation(m, c, (message as ZkPacket).bytes),
      onClose: (_ep, reason: CloseReason) => {
        if (reason === "reset" || reason === "refused") c.socket.resetAndDestroy();
        else c.socket.end();
      },
    });
  }

  private fromSimulation(m: ServeMember, c: RealConnection, bytes: Uint8Array): void {
    if (c.socket.destroyed) return;
    const stats = this.stats.get(m)!;
    stats.packetsSent++;
    c.info.packetsSent++;
    if (bytes.length >= 4) {
      const xid = new DataView(bytes.buffer, bytes.byteOffset).getInt32(0);
      const started = c.startedMs.get(xid);
      if (started !== undefined) {
        c.startedMs.delete(xid);
        recordLatency(stats, Math.round(this.hooks.wallMs() - started));
      }
    }
    c.socket.write(frame(bytes));
  }

  /** Real connections now open on a member's port. */
  connectionCount(m: ServeMember): number {
    return this.conns.get(m)!.size;
  }
}
