/**
 * The client gateway: real TCP connections become simulated client connections.
 *
 * Each member's client port has a real listener (127.0.0.1 unless `bind` says otherwise). A
 * real connection opens a simulated connection from the member's gateway node `cN` to `sN`'s
 * client port; its byte stream is cut into frames (4-byte length + Jute payload, FrameDecoder),
 * and each frame enters the simulated network as a `ZkPacket`, exactly what a simulated client
 * sends. Opening, frames and closing enter through `ClientLinks.inject` (client-links.ts), the
 * one injection function that a replay of a recorded session uses too. Frames the simulated
 * server sends come back out with their length prefix. So a partition, clog or pause between
 * `cN` and `sN` holds the real client's traffic, a crash of `sN` resets the real socket. A refused simulated connect closes it as 3.8 would: a member that
 * is up but not serving (electing, syncing) has its client port open in 3.8 and closes the
 * connection once the first frame arrives (NIOServerCnxn "ZooKeeperServer not running"), so the
 * socket ends with a FIN; a crashed member has no listener, so the socket is reset.
 *
 * As 3.8's NIOServerCnxn: the first 4 bytes may be a four-letter word (answered, then the
 * connection closes); a length outside [0, jute.maxbuffer] closes that connection only; a
 * malformed frame is closed by the simulated server (ServerCnxn) and so here. `maxClientCnxns`
 * limits connections per client address on one port (0 = unlimited). A connection that sends no
 * complete frame within `sessionlessCnxnTimeoutMs` of its last bytes (3.8's
 * `zookeeper.nio.sessionlessCnxnTimeout`, 10 s: NIOServerCnxn's timeout until a session exists)
 * is closed at the expiry interval after that (10–20 s), as 3.8's expirer thread does. The listen backlog is raised above Node's 511 so a burst of connects is queued, not
 * dropped and retried by the kernel seconds later.
 *
 * A reconfig that gives a member another client port moves its listener, as 3.8's QuorumPeer does
 * when it activates such a config (`processReconfig` → `NIOServerCnxnFactory.reconfigure`): the
 * old port is closed (new connects are refused), the member's open connections stay, and the new
 * port is listened on at serve's bind address (3.8 binds the config's address; serve keeps its
 * own, loopback unless asked). A port that cannot be bound leaves the member without a listener,
 * as 3.8 does after logging the error.
 *
 * Invariants: per connection, frames enter the simulation in socket order (frames read before
 * the simulated connection opens wait in order); a socket and its simulated connection close
 * together, whichever side closes first.
 */
import net from "node:net";
import type { CloseReason } from "../sim/network.js";
import { FrameDecoder, frame } from "../zk/proto/codec-framing.js";
import { JUTE_MAX_BUFFER_BYTES } from "../zk/proto/records.js";
import { parseConfigText } from "../zk/server/quorum/quorum-server-spec.js";
import { ClientLinks, type InputListener } from "./client-links.js";
import { answerFourLetterWord, newPortStats, recordLatency, touchRealConnection, type ConnectionInfo, type PortStats } from "./four-letter-words.js";
import { forgetConnection } from "./four-letter-dumps.js";
import type { ServeEnsemble } from "./serve-ensemble.js";
import type { ServeMember } from "./zoo-cfg.js";

/** 3.8's `zookeeper.nio.sessionlessCnxnTimeout` default. */
export const SESSIONLESS_CNXN_TIMEOUT_MS = 10_000;
const LISTEN_BACKLOG = 2048;

interface RealConnection {
  socket: net.Socket;
  info: ConnectionInfo;
  /** Its number in this session's recording (client-links.ts). */
  conn: number;
  /** Whether its simulated connection was opened (at its first frame). */
  linked: boolean;
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
  /** Each input that entered the simulation (the recording; client-links.ts). */
  onInput?: InputListener;
  /** Default SESSIONLESS_CNXN_TIMEOUT_MS. */
  sessionlessCnxnTimeoutMs?: number;
  /** A member's listener moved to `port` (a reconfig), or could not (`error`). */
  onRebind?(member: ServeMember, port: number, error?: string): void;
}

export class ClientGateway {
  private readonly servers = new Map<ServeMember, net.Server>();
  private bind = "127.0.0.1";
  private readonly conns = new Map<ServeMember, Set<RealConnection>>();
  readonly stats = new Map<ServeMember, PortStats>();
  private readonly boundPorts = new Map<ServeMember, number>();
  private readonly links: ClientLinks;
  private connCount = 0;

  constructor(
    private readonly ensemble: ServeEnsemble,
    private readonly hooks: GatewayHooks,
  ) {
    this.links = new ClientLinks(ensemble, hooks.onInput);
    for (const m of ensemble.settings.members) {
      const set = new Set<RealConnection>();
      this.conns.set(m, set);
      this.stats.set(m, newPortStats(() => [...set].map((c) => c.info)));
    }
  }

  /** Listens on every member's client port; resolves with the bound ports (port 0 = any free one). */
  async listen(bind: string): Promise<Map<ServeMember, number>> {
    this.bind = bind;
    const ports = new Map<ServeMember, number>();
    for (const m of this.ensemble.settings.members) ports.set(m, await this.listenFor(m, m.clientPort));
    for (const [m, port] of ports) this.boundPorts.set(m, port);
    if (this.ensemble.settings.reconfigEnabled === true) {
      this.ensemble.sim.trace.subscribe(
        (e) => {
          const m = this.ensemble.settings.members.find((x) => x.sid === e.fields.sid);
          const port = m === undefined ? undefined : clientPortIn(e.fields.config, m.sid);
          if (m !== undefined && port !== undefined && port !== this.boundPorts.get(m)) void this.rebind(m, port);
        },
        ["zab.config.activated"],
      );
    }
    return ports;
  }

  private async listenFor(m: ServeMember, port: number): Promise<number> {
    const server = net.createServer((socket) => this.accept(m, socket));
    this.servers.set(m, server);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host: this.bind, backlog: LISTEN_BACKLOG }, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return (server.address() as net.AddressInfo).port;
  }

  /** Moves `m`'s listener to `port`: the old one closed (its connections stay), the new one opened. */
  private async rebind(m: ServeMember, port: number): Promise<void> {
    this.boundPorts.set(m, port);
    const old = this.servers.get(m);
    this.servers.delete(m);
    old?.close();
    try {
      await this.listenFor(m, port);
      this.hooks.onRebind?.(m, port);
    } catch (err) {
      this.servers.delete(m);
      this.hooks.onRebind?.(m, port, err instanceof Error ? err.message : String(err));
    }
  }

  /** Closes every real connection (each simulated one closes now, as a client close) and the listeners. */
  async close(): Promise<void> {
    for (const set of this.conns.values()) {
      for (const c of set) {
        if (c.linked) this.links.inject({ kind: "close", conn: c.conn });
        c.socket.destroy();
      }
    }
    await Promise.all([...this.servers.values()].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
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
      conn: ++this.connCount,
      linked: false,
      startedMs: new Map(),
      connectSeen: false,
      sessionless: undefined,
    };
    set.add(c);
    touchRealConnection(this.ensemble.sim.node(m.node), this.stats.get(m)!, c.info);
    this.awaitFrame(c);
    socket.setNoDelay(true);
    const decoder = new FrameDecoder({ fourLetterWords: true, maxFrameBytes: JUTE_MAX_BUFFER_BYTES });
    socket.on("data", (chunk: Buffer) => this.onData(m, c, decoder, chunk));
    socket.on("close", () => {
      clearTimeout(c.sessionless);
      set.delete(c);
      forgetConnection(this.stats.get(m)!, c.info);
      if (c.linked) this.links.inject({ kind: "close", conn: c.conn });
      this.hooks.kick();
    });
    socket.on("error", () => socket.destroy()); // a reset by the peer: "close" follows
  }

  /**
   * (Re)arms the sessionless timer while no frame has come: bytes of a frame still coming count as
   * activity. 3.8's connection ExpiryQueue rounds each expiry up to the next multiple of its
   * interval (the timeout itself), and its expirer closes the connection then: between one and
   * two timeouts after the last bytes.
   */
  private awaitFrame(c: RealConnection): void {
    clearTimeout(c.sessionless);
    const timeoutMs = this.hooks.sessionlessCnxnTimeoutMs ?? SESSIONLESS_CNXN_TIMEOUT_MS;
    const nowMs = Date.now();
    const expiryMs = (Math.floor((nowMs + timeoutMs) / timeoutMs) + 1) * timeoutMs;
    c.sessionless = setTimeout(() => c.socket.destroy(), expiryMs - nowMs);
  }

  private onData(m: ServeMember, c: RealConnection, decoder: FrameDecoder, chunk: Buffer): void {
    touchRealConnection(this.ensemble.sim.node(m.node), this.stats.get(m)!, c.info);
    if (!c.linked) this.awaitFrame(c);
    for (const ev of decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))) {
      switch (ev.kind) {
        case "frame":
          this.toSimulation(m, c, ev.payload);
          break;
        case "fourLetterWord": {
          const stats = this.stats.get(m)!;
          stats.packetsReceived++;
          c.info.packetsReceived++;
          c.info.askingFourLetterWord = true;
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
    if (!c.linked) {
      clearTimeout(c.sessionless);
      c.linked = true;
      this.links.inject({ kind: "connect", conn: c.conn, server: m.node, address: clientAddress(c.socket) }, {
        onMessage: (bytes) => this.fromSimulation(m, c, bytes),
        onClose: (reason: CloseReason) => {
          const notServing = reason === "refused" && this.ensemble.sim.node(m.node).status !== "down";
          if ((reason === "reset" || reason === "refused") && !notServing) c.socket.resetAndDestroy();
          else c.socket.end();
        },
      });
      c.info.connectionId = this.links.endpointId(c.conn);
    }
    this.links.inject({ kind: "frame", conn: c.conn, bytes: payload });
    this.hooks.kick();
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

/**
 * Server `sid`'s client port in config text (`server.N=…;[host:]port` lines), if its line gives
 * one: read by the quorum's own config parser (quorum-server-spec.ts), which writes a bare port as
 * `0.0.0.0:port`.
 */
export function clientPortIn(config: string, sid: number): number | undefined {
  const parsed = parseConfigText(config, 0n, "real");
  const address = parsed.ok ? parsed.value.allMembers.get(sid)?.clientAddress : undefined;
  return address === undefined ? undefined : Number(address.slice(address.lastIndexOf(":") + 1));
}

/** The real client's IP as 3.8 names it in an `ip` id: IPv4 plainly, not as an IPv4-mapped IPv6 address. */
function clientAddress(socket: net.Socket): string {
  const address = socket.remoteAddress ?? "0.0.0.0";
  return address.startsWith("::ffff:") && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}
