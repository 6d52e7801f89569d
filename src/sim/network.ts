/**
 * The simulated network: two kinds of channel over directed links (the links' state, cut or
 * clogged, and their settings: link-table.ts).
 *
 * Datagrams (teaching protocols): per-link delay drawn uniformly from [minDelayUs, maxDelayUs],
 * loss, duplication and reordering (a fraction of datagrams gets an extra delay). A datagram
 * that reaches a cut link is dropped. A datagram is on the wire once sent, as on a real network:
 * it is still delivered if its sender crashed after sending it, and if its receiver crashed and
 * restarted before it arrived (the new process gets it); only a receiver that is down when it
 * arrives loses it.
 *
 * Connections (ZooKeeper runs over TCP): FIFO and reliable while the link is up. A cut link
 * silently holds traffic — nobody is told, like a pulled cable; endpoints must notice through
 * their own timeouts. When the link heals, held traffic is delivered in order (TCP
 * retransmission). A process crash resets its connections: the peer gets a reset. Connecting
 * to a node whose process is down, or to a port nobody listens on, is refused; a connect whose
 * SYN meets a cut link waits (SYN retransmission) and times out unless the link heals first.
 *
 * Invariants (checked by `check/kernel`): per connection and direction, deliveries happen in
 * send order; nothing is delivered over a link while it is cut; a crashed sender's in-flight
 * connection segments are never delivered (its connections died with it); no datagram is
 * delivered to a node while it is down.
 */
import type { Rng } from "./rng.js";
import { Ev, type SimEvent, type SimNode, type Simulator } from "./simulator.js";
import { hashString } from "./trace.js";
import { UserInputError } from "../base/errors.js";
import { LinkTable, validateLinkConfig, type LinkConfig, type LinkState } from "./link-table.js";
import type * as world from "../world/index.js";
import type { CloseReason, ConnectOptions } from "../world/network.js";

export type { CloseReason, ConnectOptions } from "../world/network.js";

export type { LinkConfig };

const SEND_HASH = hashString("send");
const DELIVER_HASH = hashString("deliver");

export interface NetworkConfig extends LinkConfig {
  /** Kernel connect timeout (the SYN retry budget) when the caller gives none. */
  connectTimeoutUs: number;
}

export const DEFAULT_NETWORK: NetworkConfig = {
  minDelayUs: 500,
  maxDelayUs: 1500,
  lossRate: 0,
  duplicateRate: 0,
  reorderRate: 0,
  reorderExtraUs: 10_000,
  connectTimeoutUs: 30_000_000,
};

/** A connection's handlers as the kernel calls them: with its own endpoints (a process's handlers, world.ConnectionHandlers, take any endpoint). */
export interface ConnectionHandlers {
  onOpen?(endpoint: Endpoint): void;
  onMessage(endpoint: Endpoint, message: unknown): void;
  onClose?(endpoint: Endpoint, reason: CloseReason): void;
}

/** Control segments of the connection model. */
const enum Ctrl {
  Data = 0,
  Syn = 1,
  SynAck = 2,
  Refused = 3,
  Fin = 4,
  Rst = 5,
}

interface Segment {
  conn: Connection;
  /** Direction: 0 = client → server, 1 = server → client. */
  dir: 0 | 1;
  /** Position in its direction's byte stream (TCP sequence number, counted in segments). */
  seq: number;
  ctrl: Ctrl;
  payload: unknown;
  id: number;
  type: string;
}

interface DatagramMsg {
  src: SimNode;
  dst: SimNode;
  payload: unknown;
  id: number;
  type: string;
}

/** One side of a connection, as a process holds it. */
export class Endpoint implements world.Endpoint {
  /** Established and not closed on this side. */
  open = false;
  /** Closed on this side (by close, reset, refusal, timeout or crash). */
  closed = false;
  handlers: ConnectionHandlers;

  constructor(
    readonly connection: Connection,
    readonly side: 0 | 1,
    handlers: ConnectionHandlers,
  ) {
    this.handlers = handlers;
  }

  get id(): number {
    return this.connection.id;
  }
  get localId(): string {
    return this.connection.nodes[this.side]!.id;
  }
  get remoteId(): string {
    return this.connection.nodes[1 - this.side]!.id;
  }
  /** On the accepting side, the address the connector gave (`ConnectOptions.sourceAddress`); else undefined (the peer node's own). */
  get remoteAddress(): string | undefined {
    return this.side === 1 ? this.connection.sourceAddress : undefined;
  }

  send(message: unknown): void {
    this.connection.network.connSend(this, message);
  }

  close(): void {
    this.connection.network.connClose(this);
  }
}

export class Connection {
  readonly ends: [Endpoint, Endpoint | undefined];
  readonly incs: [number, number];
  readonly lastDeliverUs: [number, number] = [0, 0];
  readonly held: [SimEvent[], SimEvent[]] = [[], []];
  /** Segments sent per direction, and the next one the receiver will take. */
  readonly sent: [number, number] = [0, 0];
  readonly nextSeq: [number, number] = [0, 0];
  /** Reassembly buffer: segments that arrived ahead of a held or parked predecessor. */
  readonly early: [Map<number, SimEvent>, Map<number, SimEvent>] = [new Map(), new Map()];
  established = false;
  /** The connect timeout while the connect is pending (cancelled once it opens or closes: it would do nothing). */
  connectTimer: SimEvent | undefined;
  /** `ConnectOptions.sourceAddress`, if the connector gave one. */
  sourceAddress: string | undefined;

  constructor(
    readonly network: Network,
    readonly id: number,
    readonly port: number,
    readonly nodes: [SimNode, SimNode],
    clientInc: number,
    clientHandlers: ConnectionHandlers,
  ) {
    this.incs = [clientInc, -1];
    this.ends = [new Endpoint(this, 0, clientHandlers), undefined];
  }
}

export function messageType(payload: unknown): string {
  if (typeof payload === "object" && payload !== null) {
    const kind = (payload as { kind?: unknown }).kind;
    if (typeof kind === "string") return kind;
  }
  return typeof payload;
}

export class Network {
  readonly defaults: NetworkConfig;
  private readonly linkTable: LinkTable;
  /** The link table's rows, read directly on the message paths. */
  private readonly links: LinkState[][];
  private readonly listeners: Map<number, (endpoint: Endpoint) => ConnectionHandlers>[] = [];
  private readonly connsByNode: Set<Connection>[] = [];
  private readonly connsWithHeld = new Set<Connection>();
  private nextMsgId = 0;
  private nextConnId = 0;
  /** Canary only: a deliberately broken connection that reorders (proves the FIFO checker bites). */
  canaryReorderConnections = false;

  constructor(
    private readonly sim: Simulator,
    private readonly rng: Rng,
    config: Partial<NetworkConfig>,
  ) {
    this.defaults = { ...DEFAULT_NETWORK, ...config };
    validateLinkConfig(this.defaults, "network");
    this.linkTable = new LinkTable(sim, this.defaults);
    this.links = this.linkTable.rows;
  }

  addNode(node: SimNode): void {
    this.linkTable.addNode(node);
    this.listeners.push(new Map());
    this.connsByNode.push(new Set());
  }

  /** Messages sent so far (datagrams and connection segments). */
  get messagesSent(): number {
    return this.nextMsgId;
  }

  isCut(from: string, to: string): boolean {
    return this.linkTable.isCut(from, to);
  }

  private link(src: SimNode, dst: SimNode): LinkState {
    return this.links[src.index]![dst.index]!;
  }

  private delayUs(link: LinkState): number {
    const c = link.config;
    const span = c.maxDelayUs - c.minDelayUs;
    const base = span === 0 ? c.minDelayUs : c.minDelayUs + Math.floor(this.rng.next() * (span + 1));
    return base + link.clogUs;
  }

  // ---- datagrams -----------------------------------------------------------------------

  sendDatagram(src: SimNode, to: string, payload: unknown): void {
    const dst = this.sim.node(to);
    const link = this.links[src.index]![dst.index]!;
    const id = ++this.nextMsgId;
    const type = messageType(payload);
    const now = this.sim.nowUs;
    this.sim.trace.recordMessage(now, "send", SEND_HASH, src.id, src.idHash, dst.id, dst.idHash, id, type);
    const cfg = link.config;
    if (this.rng.chance(cfg.lossRate)) {
      this.sim.trace.record(now, "drop", src.id, dst.id, id, "loss");
      return;
    }
    const msg: DatagramMsg = { src, dst, payload, id, type };
    this.sim.schedule(now + this.datagramDelayUs(link), deliverDatagram, msg, this);
    if (this.rng.chance(cfg.duplicateRate)) {
      this.sim.trace.record(now, "duplicate", src.id, dst.id, id, type);
      this.sim.schedule(now + this.datagramDelayUs(link), deliverDatagram, msg, this);
    }
  }

  private datagramDelayUs(link: LinkState): number {
    let delay = this.delayUs(link);
    if (this.rng.chance(link.config.reorderRate)) delay += Math.floor(this.rng.next() * (link.config.reorderExtraUs + 1));
    return delay;
  }

  /**
   * @internal A datagram arrives: whoever runs on the receiver now gets it (a process started
   * since it was sent included), whatever became of its sender; a receiver that is down loses it.
   */
  deliverDatagramNow(ev: SimEvent, msg: DatagramMsg): void {
    const { src, dst } = msg;
    const now = this.sim.nowUs;
    if (dst.status === "down") {
      this.sim.trace.record(now, "drop", dst.id, src.id, msg.id, "receiver-down");
      return;
    }
    if (this.links[src.index]![dst.index]!.cut) {
      this.sim.trace.record(now, "drop", dst.id, src.id, msg.id, "partition");
      return;
    }
    if (dst.status === "paused") {
      park(ev, dst);
      return;
    }
    this.sim.trace.recordMessage(now, "deliver", DELIVER_HASH, dst.id, dst.idHash, src.id, src.idHash, msg.id, msg.type);
    dst.process?.onDatagram?.(src.id, msg.payload);
  }

  // ---- connections ---------------------------------------------------------------------

  listen(node: SimNode, port: number, onAccept: (endpoint: Endpoint) => ConnectionHandlers): void {
    this.listeners[node.index]!.set(port, onAccept);
  }

  unlisten(node: SimNode, port: number): void {
    this.listeners[node.index]!.delete(port);
  }

  connect(src: SimNode, inc: number, to: string, port: number, handlers: ConnectionHandlers, options: ConnectOptions): Endpoint {
    const dst = this.sim.node(to);
    const conn = new Connection(this, ++this.nextConnId, port, [src, dst], inc, handlers);
    conn.sourceAddress = options.sourceAddress;
    const client = conn.ends[0];
    if (src.incarnation !== inc || src.status === "down") {
      client.closed = true;
      return client;
    }
    this.connsByNode[src.index]!.add(conn);
    this.sim.trace.record(this.sim.nowUs, "conn.connect", src.id, dst.id, conn.id, String(port));
    this.sendSegment(conn, 0, Ctrl.Syn, undefined, "syn");
    const timeoutUs = options.timeoutUs ?? this.defaults.connectTimeoutUs;
    conn.connectTimer = this.sim.scheduleOnNode(src, this.sim.nowUs + Math.max(1, Math.ceil(timeoutUs)), connectTimeout, conn, this);
    return client;
  }

  /** @internal */
  connectTimedOut(conn: Connection): void {
    const client = conn.ends[0];
    if (client.open || client.closed) return;
    this.closeLocally(client, "timeout", true);
  }

  connSend(endpoint: Endpoint, message: unknown): void {
    if (!endpoint.open) return; // writing to a closed socket: the bytes go nowhere
    const conn = endpoint.connection;
    if (conn.nodes[endpoint.side].incarnation !== conn.incs[endpoint.side]) return;
    this.sendSegment(conn, endpoint.side, Ctrl.Data, message, messageType(message));
  }

  connClose(endpoint: Endpoint): void {
    if (endpoint.closed) return;
    const conn = endpoint.connection;
    const wasStarted = endpoint.open || endpoint.side === 0;
    endpoint.closed = true;
    endpoint.open = false;
    if (endpoint.side === 0) this.settleConnect(conn);
    this.sim.trace.record(this.sim.nowUs, "conn.close", endpoint.localId, endpoint.remoteId, conn.id);
    if (wasStarted) this.sendSegment(conn, endpoint.side, Ctrl.Fin, undefined, "fin");
    this.forget(conn);
  }

  private sendSegment(conn: Connection, dir: 0 | 1, ctrl: Ctrl, payload: unknown, type: string): void {
    const src = conn.nodes[dir];
    const dst = conn.nodes[1 - dir]!;
    const id = ++this.nextMsgId;
    const now = this.sim.nowUs;
    if (ctrl === Ctrl.Data) this.sim.trace.recordMessage(now, "send", SEND_HASH, src.id, src.idHash, dst.id, dst.idHash, id, type, conn.id);
    const seg: Segment = { conn, dir, seq: conn.sent[dir]++, ctrl, payload, id, type };
    const delay = this.delayUs(this.links[src.index]![dst.index]!);
    // The canary breaks FIFO on purpose (extra random delay, no ordering): checkers must notice.
    const at = this.canaryReorderConnections
      ? now + delay + Math.floor(this.rng.next() * 5 * (delay + 1))
      : Math.max(now + delay, conn.lastDeliverUs[dir]);
    conn.lastDeliverUs[dir] = Math.max(at, conn.lastDeliverUs[dir]);
    this.sim.schedule(at, deliverSegment, seg, this);
  }

  /**
   * @internal A segment reaches its receiver. Segments are taken strictly in sequence order
   * (TCP reassembly): one that arrives ahead of a predecessor held by a partition or parked on
   * a paused receiver waits in the reassembly buffer.
   */
  deliverSegmentNow(ev: SimEvent, seg: Segment): void {
    const { conn, dir } = seg;
    if (this.canaryReorderConnections) {
      this.takeSegment(ev, seg); // no reassembly: segments are taken as they arrive
      return;
    }
    if (seg.seq !== conn.nextSeq[dir]) {
      conn.early[dir].set(seg.seq, ev);
      return;
    }
    if (!this.takeSegment(ev, seg)) return; // held or parked: the stream waits
    conn.nextSeq[dir]++;
    const early = conn.early[dir];
    while (early.size > 0) {
      const next = early.get(conn.nextSeq[dir]);
      if (next === undefined) return;
      early.delete(conn.nextSeq[dir]);
      if (!this.takeSegment(next, next.a as Segment)) return;
      conn.nextSeq[dir]++;
    }
  }

  /** Handles the in-sequence segment; false when it must wait (held by a cut, or parked). */
  private takeSegment(ev: SimEvent, seg: Segment): boolean {
    const { conn, dir } = seg;
    const src = conn.nodes[dir];
    const dst = conn.nodes[1 - dir]!;
    const now = this.sim.nowUs;
    // A crashed sender's in-flight bytes die with it (the reset it causes is sent separately).
    if (seg.ctrl !== Ctrl.Rst && seg.ctrl !== Ctrl.Refused && src.incarnation !== conn.incs[dir]) {
      if (seg.ctrl === Ctrl.Data) this.sim.trace.record(now, "drop", dst.id, src.id, seg.id, "sender-crashed", undefined, conn.id);
      return true;
    }
    if (this.links[src.index]![dst.index]!.cut) {
      // Held, SYNs included: TCP retransmits, so traffic (and a connect) resumes after a heal —
      // unless the endpoint's own timeout gives up first.
      conn.held[dir].push(ev);
      this.connsWithHeld.add(conn);
      this.sim.trace.record(now, "hold", dst.id, src.id, seg.id, seg.type, undefined, conn.id);
      return false;
    }
    if (seg.ctrl === Ctrl.Syn) return this.acceptSyn(ev, seg);
    const end = conn.ends[1 - dir];
    if (end === undefined || end.closed || dst.incarnation !== conn.incs[1 - dir] || dst.status === "down") {
      if (seg.ctrl === Ctrl.Data) this.sim.trace.record(now, "drop", dst.id, src.id, seg.id, "receiver-closed", undefined, conn.id);
      return true;
    }
    if (dst.status === "paused") {
      park(ev, dst);
      return false;
    }
    this.deliverToEnd(end, seg);
    return true;
  }

  private deliverToEnd(end: Endpoint, seg: Segment): void {
    const now = this.sim.nowUs;
    const conn = seg.conn;
    switch (seg.ctrl) {
      case Ctrl.Data:
        this.sim.trace.recordMessage(now, "deliver", DELIVER_HASH, end.localId, conn.nodes[end.side].idHash, end.remoteId, conn.nodes[1 - end.side]!.idHash, seg.id, seg.type, conn.id);
        end.handlers.onMessage(end, seg.payload);
        return;
      case Ctrl.SynAck:
        end.open = true;
        conn.established = true;
        this.settleConnect(conn);
        this.sim.trace.record(now, "conn.open", end.localId, end.remoteId, conn.id);
        end.handlers.onOpen?.(end);
        return;
      case Ctrl.Refused:
        this.closeLocally(end, "refused", true);
        return;
      case Ctrl.Fin:
        this.closeLocally(end, "closed", true);
        return;
      case Ctrl.Rst:
        this.closeLocally(end, "reset", true);
        return;
      case Ctrl.Syn:
        return; // handled before
    }
  }

  private acceptSyn(ev: SimEvent, seg: Segment): boolean {
    const conn = seg.conn;
    const server = conn.nodes[1];
    const client = conn.nodes[0];
    const now = this.sim.nowUs;
    if (server.status === "paused") {
      park(ev, server); // the backlog waits for the process
      return false;
    }
    const onAccept = server.status === "up" ? this.listeners[server.index]!.get(conn.port) : undefined;
    if (onAccept === undefined) {
      this.sim.trace.record(now, "conn.refuse", server.id, client.id, conn.id, String(conn.port));
      this.sendSegment(conn, 1, Ctrl.Refused, undefined, "refused");
      return true;
    }
    conn.incs[1] = server.incarnation;
    const end = new Endpoint(conn, 1, { onMessage: () => undefined });
    conn.ends[1] = end;
    end.open = true;
    this.connsByNode[server.index]!.add(conn);
    this.sim.trace.record(now, "conn.accept", server.id, client.id, conn.id, String(conn.port));
    this.sendSegment(conn, 1, Ctrl.SynAck, undefined, "synack");
    end.handlers = onAccept(end);
    if (conn.ends[0].closed) this.sendSegment(conn, 0, Ctrl.Rst, undefined, "rst");
    return true;
  }

  /** Closes one end because of the network (not the process): tell the process. */
  private closeLocally(end: Endpoint, reason: CloseReason, notify: boolean): void {
    if (end.closed) return;
    end.closed = true;
    end.open = false;
    const conn = end.connection;
    if (end.side === 0) this.settleConnect(conn);
    this.sim.trace.record(this.sim.nowUs, `conn.${reason}`, end.localId, end.remoteId, conn.id);
    this.forget(conn);
    if (notify) end.handlers.onClose?.(end, reason);
  }

  /**
   * The connect is over (open, or its end closed): its timeout would do nothing when it fires,
   * so it is cancelled — still run as an event (the run is the same), but no pending event for
   * the stepper or the model checker to list.
   */
  private settleConnect(conn: Connection): void {
    if (conn.connectTimer === undefined) return;
    this.sim.cancelEvent(conn.connectTimer);
    conn.connectTimer = undefined;
  }

  private forget(conn: Connection): void {
    const [a, b] = conn.ends;
    if (a.closed && (b === undefined || b.closed)) {
      this.connsByNode[conn.nodes[0].index]!.delete(conn);
      this.connsByNode[conn.nodes[1].index]!.delete(conn);
    }
  }

  /** A process crash: its listeners vanish, its connections reset at the peer. */
  onCrash(node: SimNode): void {
    this.listeners[node.index]!.clear();
    const conns = [...this.connsByNode[node.index]!];
    for (const conn of conns) {
      const side: 0 | 1 = conn.nodes[0] === node ? 0 : 1;
      const end = conn.ends[side];
      if (end !== undefined && !end.closed) {
        end.closed = true;
        end.open = false;
      }
      const peer = conn.ends[1 - side];
      if (side === 0 || (peer !== undefined && !peer.closed)) this.sendSegment(conn, side, Ctrl.Rst, undefined, "rst");
      this.connsByNode[node.index]!.delete(conn);
    }
  }

  // ---- partitions, clogging, link configuration (the link table's, link-table.ts) ----------

  /** Cuts links from every node of `from` to every node of `to` (and back unless oneWay). */
  cut(from: readonly string[], to: readonly string[], oneWay = false): void {
    this.linkTable.cut(from, to, oneWay);
  }

  /** Splits the nodes into groups; nodes not listed form one more group. */
  partition(groups: readonly (readonly string[])[]): void {
    this.linkTable.partition(groups);
  }

  /** Heals the given links (both directions unless oneWay), or every link; held traffic resumes. */
  heal(from?: readonly string[], to?: readonly string[], oneWay = false): void {
    this.linkTable.heal(from, to, oneWay);
    this.releaseHeld();
  }

  /** Ends every network fault still in force (`LinkTable.healAll`); held traffic resumes. */
  healAll(): boolean {
    const changed = this.linkTable.healAll();
    // Traffic is held only on cut links, so with none healed there is nothing to release.
    this.releaseHeld();
    return changed;
  }

  /** Adds `extraDelayUs` to every message on the links (0 unclogs). */
  clog(from: readonly string[], to: readonly string[], extraDelayUs: number, oneWay = false): void {
    this.linkTable.clog(from, to, extraDelayUs, oneWay);
  }

  /** Changes delay/loss/duplication/reordering on links (all links when from/to are omitted). */
  configure(change: Partial<LinkConfig>, from?: readonly string[], to?: readonly string[], oneWay = false): void {
    this.linkTable.configure(change, from, to, oneWay);
  }

  /**
   * The connections not yet forgotten (an end still open), oldest first, as plain data: who
   * connected to whom on which port, and the state of each end. (The model checker names a
   * connection by its endpoints and its rank among theirs, never by its id.)
   */
  connectionViews(): ConnectionView[] {
    const seen = new Set<Connection>();
    for (const conns of this.connsByNode) for (const c of conns) seen.add(c);
    return [...seen]
      .sort((a, b) => a.id - b.id)
      .map((c) => ({ id: c.id, client: c.nodes[0].id, server: c.nodes[1].id, port: c.port, established: c.established, ends: c.ends.map((e) => (e === undefined ? "none" : e.closed ? "closed" : e.open ? "open" : "opening")) as [EndState, EndState] }));
  }

  /** Segments held by cut links (they resume, in order, when the link heals), in send order per connection. */
  heldMessages(): SimEvent[] {
    const out: SimEvent[] = [];
    for (const conn of this.connsWithHeld) out.push(...conn.held[0], ...conn.held[1]);
    return out;
  }

  /** The teaching UI drops a pending datagram (connections never lose a segment alone: TCP). */
  dropDatagram(ev: SimEvent): void {
    const m = pendingMessage(ev);
    if (m === undefined || m.channel !== "datagram") throw new UserInputError("only a datagram can be dropped alone (a connection is reliable: cut the link instead)");
    this.sim.cancelEvent(ev);
    this.sim.trace.record(this.sim.nowUs, "drop", m.to, m.from, m.id, "injected");
  }

  /** The teaching UI duplicates a pending datagram: a second copy arrives `afterUs` after the first. */
  duplicateDatagram(ev: SimEvent, atUs: number, afterUs: number): void {
    const m = pendingMessage(ev);
    if (m === undefined || m.channel !== "datagram") throw new UserInputError("only a datagram can be duplicated (a connection delivers each segment once: TCP)");
    this.sim.trace.record(this.sim.nowUs, "duplicate", m.from, m.to, m.id, m.type);
    this.sim.copyEvent(ev, atUs + afterUs);
  }

  /** After a heal: held connection traffic resumes, in order, where the link is up again. */
  private releaseHeld(): void {
    const now = this.sim.nowUs;
    for (const conn of [...this.connsWithHeld]) {
      for (const dir of [0, 1] as const) {
        const held = conn.held[dir];
        if (held.length === 0) continue;
        const src = conn.nodes[dir];
        const dst = conn.nodes[1 - dir]!;
        const link = this.link(src, dst);
        if (link.cut) continue;
        conn.held[dir] = [];
        for (const ev of held) {
          const at = Math.max(now + this.delayUs(link), conn.lastDeliverUs[dir]);
          conn.lastDeliverUs[dir] = at;
          this.sim.requeue(at, ev);
        }
      }
      if (conn.held[0].length === 0 && conn.held[1].length === 0) this.connsWithHeld.delete(conn);
    }
  }
}

export type EndState = "none" | "opening" | "open" | "closed";

/** A connection as `connectionViews` lists it. */
export interface ConnectionView {
  id: number;
  client: string;
  server: string;
  port: number;
  established: boolean;
  /** The connecting end's state, then the accepting end's ("none" before it accepted). */
  ends: [EndState, EndState];
}

/** A message waiting in the kernel, as the teaching UI's stepping interface lists it. */
export interface PendingMessage {
  channel: "datagram" | "connection";
  /** The message id of its send event (`control` segments have one too, never traced). */
  id: number;
  from: string;
  to: string;
  /** The payload's `kind` (or syn, synack, fin, rst, refused for control segments). */
  type: string;
  payload: unknown;
  conn?: number;
  /** Connections: the next segment its receiver takes (TCP delivers in order: only it can go next). */
  head: boolean;
  /** A connection's control segment (syn, fin, rst…), not data. */
  control: boolean;
  /** Connections: how many segments of its stream go before it (0: the head). Datagrams: 0. */
  position: number;
  /** A data segment whose sender crashed since it was sent (dropped, not delivered). Datagrams: false (on the wire, they arrive). */
  senderCrashed: boolean;
  /**
   * Its receiver cannot take it now: it is down (a datagram is then lost; a segment's
   * connection is gone once its receiver crashed). The same rule as the delivery's, so two
   * messages the kernel will treat alike read alike.
   */
  receiverGone: boolean;
}

/** The message a pending kernel event delivers, or undefined for other events. */
export function pendingMessage(ev: SimEvent): PendingMessage | undefined {
  if (ev.fn === deliverDatagram) {
    const m = ev.a as DatagramMsg;
    return {
      channel: "datagram",
      id: m.id,
      from: m.src.id,
      to: m.dst.id,
      type: m.type,
      payload: m.payload,
      head: true,
      control: false,
      position: 0,
      // A datagram on the wire arrives whatever became of its sender; it is lost only on
      // reaching a receiver that is down.
      senderCrashed: false,
      receiverGone: m.dst.status === "down",
    };
  }
  if (ev.fn === deliverSegment) {
    const seg = ev.a as Segment;
    const conn = seg.conn;
    return {
      channel: "connection",
      id: seg.id,
      from: conn.nodes[seg.dir].id,
      to: conn.nodes[1 - seg.dir]!.id,
      type: seg.type,
      payload: seg.payload,
      conn: conn.id,
      head: seg.seq === conn.nextSeq[seg.dir],
      control: seg.ctrl !== Ctrl.Data,
      position: seg.seq - conn.nextSeq[seg.dir],
      senderCrashed: conn.nodes[seg.dir].incarnation !== conn.incs[seg.dir],
      receiverGone: conn.incs[1 - seg.dir] !== -1 && (conn.nodes[1 - seg.dir]!.incarnation !== conn.incs[1 - seg.dir] || conn.nodes[1 - seg.dir]!.status === "down"),
    };
  }
  return undefined;
}

function deliverDatagram(ev: SimEvent): void {
  (ev.b as Network).deliverDatagramNow(ev, ev.a as DatagramMsg);
}

function deliverSegment(ev: SimEvent): void {
  (ev.b as Network).deliverSegmentNow(ev, ev.a as Segment);
}

function connectTimeout(ev: SimEvent): void {
  (ev.b as Network).connectTimedOut(ev.a as Connection);
}

/** Parks a world-level delivery on a paused node: it re-runs (and re-checks) at resume. */
function park(ev: SimEvent, node: SimNode): void {
  ev.type = Ev.NodeCall;
  ev.node = node.index;
  ev.incarnation = node.incarnation;
  node.parked.push(ev);
}
