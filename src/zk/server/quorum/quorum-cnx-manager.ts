/**
 * The election connections between servers (`QuorumCnxManager` in ZooKeeper 3.8).
 *
 * Every pair of servers talks over one TCP connection on the election port (3888). Whoever
 * connects first sends an initial message carrying its sid; the 3.8 rule then keeps only a
 * connection *initiated by the larger sid*:
 * - an initiator whose target has a larger sid writes its initial message and closes at once;
 * - a receiver that sees a smaller sid closes that connection, drops any connection it still
 *   believes it has to that sid, and dials back;
 * - otherwise both ends keep the new connection and retire any older one for that sid.
 *
 * Per peer there is a send queue of capacity one (`CircularBlockingQueue(SEND_CAPACITY=1)`): a
 * newer message replaces an unsent older one, so a peer that is unreachable only ever gets the
 * latest notification. The last message handed to a connection is remembered
 * (`lastMessageSent`) and sent again when a new connection to that peer starts with an empty
 * queue, since the old connection may have died with it unread; receivers tolerate
 * duplicates. Messages to oneself are looped back (asynchronously, like Java's receive queue).
 *
 * The Java worker threads become state: a `PeerConnection` is a SendWorker/RecvWorker pair;
 * its queue drains as soon as the connection is open, because a SendWorker thread takes a
 * message the moment it is queued. Nothing here notices a silent partition: a held connection
 * stays "connected" (RecvWorker reads with no timeout), exactly as in 3.8.
 *
 * Invariants: at most one running PeerConnection per sid; a message reaches the receive
 * callback only from a running connection (or the loopback) and never after `halt`.
 */
import type { NodeContext, Endpoint } from "../../../world/index.js";
import type { QuorumVerifier } from "./quorum-verifier.js";

/** The election port (`server.N=host:2888:3888`). */
export const ELECTION_PORT = 3888;
/** Connect timeout for election connections (`zookeeper.cnxTimeout`, default 5000 ms). */
export const CNX_TIMEOUT_MS = 5000;
/** The protocol version written first in the initial message (3.5+ without multi-address). */
export const PROTOCOL_VERSION_V1 = -65536n;

/** The first message on a new election connection (protocol version, sid, election address). */
export interface QuorumCnxInitialMessage {
  kind: "qcm.initial";
  protocolVersion: bigint;
  sid: number;
  electionAddr: string;
}

/** What the manager carries for the election algorithm (e.g. an `fle.notification`). */
export interface ElectionMessage {
  kind: string;
}

export type ElectionMessageHandler = (sid: number, message: ElectionMessage) => void;

export interface QuorumCnxManagerOptions {
  electionPort?: number;
  cnxTimeoutMs?: number;
  /** Receives every message from a peer (or the loopback); can also be set later. */
  onMessage?: ElectionMessageHandler;
  /** The last proposed configuration (`getLastSeenQuorumVerifier`): a peer found only there is dialled too. */
  lastSeenView?: () => QuorumVerifier;
}

/** A SendWorker/RecvWorker pair: one live election connection to `sid`. */
class PeerConnection {
  running = true;
  constructor(
    readonly sid: number,
    readonly endpoint: Endpoint,
  ) {}
}

export class QuorumCnxManager {
  readonly electionPort: number;
  readonly cnxTimeoutMs: number;
  private handler: ElectionMessageHandler | undefined;
  /** `senderWorkerMap`. */
  private readonly workers = new Map<number, PeerConnection>();
  /** `queueSendMap`: a key means a queue exists; the array holds at most one message. */
  private readonly queueSendMap = new Map<number, ElectionMessage[]>();
  private readonly lastMessageSent = new Map<number, ElectionMessage>();
  private readonly inprogressConnections = new Set<number>();
  private shutdown = false;
  private listening = false;
  private readonly lastSeenView: () => QuorumVerifier;

  constructor(
    private readonly ctx: NodeContext,
    readonly mySid: number,
    private view: QuorumVerifier,
    options: QuorumCnxManagerOptions = {},
  ) {
    this.electionPort = options.electionPort ?? ELECTION_PORT;
    this.cnxTimeoutMs = options.cnxTimeoutMs ?? CNX_TIMEOUT_MS;
    this.handler = options.onMessage;
    this.lastSeenView = options.lastSeenView ?? (() => this.view);
  }

  /** A reconfig committed: peers are found in the new configuration (`connectNewPeers`). */
  setView(view: QuorumVerifier): void {
    this.view = view;
  }

  /** Sets the receive callback (FastLeaderElection's WorkerReceiver). */
  setMessageHandler(handler: ElectionMessageHandler): void {
    this.handler = handler;
  }

  /** Starts the listener on the election port (`Listener`). Idempotent. */
  start(): void {
    if (this.listening || this.shutdown) return;
    this.listening = true;
    this.ctx.listen(this.electionPort, (endpoint) => this.acceptHandlers(endpoint));
  }

  /** Queues `message` for `sid` (replacing an unsent one) and connects if needed. */
  toSend(sid: number, message: ElectionMessage): void {
    if (this.shutdown) return;
    if (sid === this.mySid) {
      this.ctx.setTimer(0, () => this.deliver(sid, message), "qcm.loopback");
      return;
    }
    let queue = this.queueSendMap.get(sid);
    if (queue === undefined) {
      queue = [];
      this.queueSendMap.set(sid, queue);
    }
    queue.length = 0; // capacity 1: the newest message replaces an unsent older one
    queue.push(message);
    this.connectOne(sid);
    this.pump(sid);
  }

  /**
   * Connects to `sid` unless a connection exists or an attempt is already under way; its
   * address comes from the committed view, else from the last proposed one (3.8's
   * `connectOne(sid)`). A sid in neither is an invalid server id.
   */
  connectOne(sid: number): void {
    if (this.shutdown || this.workers.has(sid)) return;
    const server = this.view.allMembers.get(sid) ?? this.lastSeenView().allMembers.get(sid);
    if (server === undefined) {
      this.ctx.annotate("qcm.invalid-sid", { sid: this.mySid, peer: sid });
      return;
    }
    this.connectTo(sid, server.host, this.electionPort);
  }

  /** 3.8's `connectOne(sid, electionAddr)`: dial the given address, whatever the views say. */
  private connectTo(sid: number, host: string, port: number): void {
    if (this.shutdown || this.workers.has(sid) || this.inprogressConnections.has(sid)) return;
    this.initiateConnection(sid, host, port);
  }

  /** Connects to every peer that has a send queue (`connectAll`). */
  connectAll(): void {
    for (const sid of [...this.queueSendMap.keys()]) this.connectOne(sid);
  }

  /**
   * Java's `haveDelivered`, quirk included: true as soon as *any* send queue is empty (and
   * false when there is no queue at all), not only when all of them are.
   */
  haveDelivered(): boolean {
    for (const queue of this.queueSendMap.values()) if (queue.length === 0) return true;
    return false;
  }

  connectedToPeer(sid: number): boolean {
    return this.workers.has(sid);
  }

  /** Stops everything: no more sends, receives, connections (`halt`). */
  halt(): void {
    this.shutdown = true;
    this.softHalt();
  }

  /**
   * The election was restarted: 3.8 halts this manager and builds a new one, so every
   * connection closes and no queued or last-sent message survives. The listener stays (the
   * new manager listens on the same port).
   */
  reset(): void {
    this.softHalt();
    this.queueSendMap.clear();
    this.lastMessageSent.clear();
  }

  /** Closes every connection; they are re-established on demand (`softHalt`). */
  softHalt(): void {
    for (const worker of [...this.workers.values()]) this.finish(worker);
  }

  // ---- connection set-up ---------------------------------------------------------------

  private initiateConnection(sid: number, host: string, port: number): void {
    this.inprogressConnections.add(sid);
    let opened = false;
    let worker: PeerConnection | undefined;
    this.ctx.connect(
      host,
      port,
      {
        onOpen: (endpoint) => {
          opened = true;
          this.inprogressConnections.delete(sid);
          worker = this.startConnection(endpoint, sid);
        },
        onMessage: (_endpoint, message) => {
          if (worker !== undefined) this.received(worker, message);
        },
        onClose: () => {
          if (!opened) this.inprogressConnections.delete(sid); // refused or timed out
          if (worker !== undefined) this.finish(worker);
        },
      },
      { timeoutUs: this.cnxTimeoutMs * 1000 },
    );
  }

  /** The initiator's side: send our sid; keep the connection only if we are the larger. */
  private startConnection(endpoint: Endpoint, sid: number): PeerConnection | undefined {
    if (this.shutdown) {
      endpoint.close();
      return undefined;
    }
    const initial: QuorumCnxInitialMessage = {
      kind: "qcm.initial",
      protocolVersion: PROTOCOL_VERSION_V1,
      sid: this.mySid,
      electionAddr: `${this.ctx.id}:${this.electionPort}`,
    };
    endpoint.send(initial);
    if (sid > this.mySid) {
      endpoint.close(); // lost the challenge: the larger sid will dial back
      return undefined;
    }
    return this.startWorker(sid, endpoint);
  }

  private acceptHandlers(endpoint: Endpoint) {
    let worker: PeerConnection | undefined;
    let identified = false;
    if (this.shutdown) endpoint.close();
    return {
      onMessage: (ep: Endpoint, message: unknown) => {
        if (worker !== undefined) {
          this.received(worker, message);
        } else if (!identified) {
          identified = true;
          worker = this.handleConnection(ep, message);
        }
      },
      onClose: () => {
        if (worker !== undefined) this.finish(worker);
      },
    };
  }

  /** The receiver's side of the initial message (`handleConnection`). */
  private handleConnection(endpoint: Endpoint, message: unknown): PeerConnection | undefined {
    if (this.shutdown || !isInitialMessage(message)) {
      endpoint.close();
      return undefined;
    }
    const sid = message.sid;
    if (sid < this.mySid) {
      // We win the challenge: drop whatever we think we have with sid, and dial back — to the
      // election address its initial message names, so that a server in none of our views (one
      // a reconfig removed, or one not yet added) is reached too.
      const old = this.workers.get(sid);
      if (old !== undefined) this.finish(old);
      endpoint.close();
      const addr = parseElectionAddr(message.electionAddr);
      if (addr !== undefined) this.connectTo(sid, addr.host, addr.port);
      else this.connectOne(sid);
      return undefined;
    }
    if (sid === this.mySid) {
      // ZOOKEEPER-2164: a configuration error. Java logs and leaves the socket; we close it.
      this.ctx.annotate("qcm.own-sid", { sid: this.mySid });
      endpoint.close();
      return undefined;
    }
    return this.startWorker(sid, endpoint);
  }

  // ---- workers -------------------------------------------------------------------------

  private startWorker(sid: number, endpoint: Endpoint): PeerConnection {
    const old = this.workers.get(sid);
    if (old !== undefined) this.finish(old);
    const worker = new PeerConnection(sid, endpoint);
    this.workers.set(sid, worker);
    let queue = this.queueSendMap.get(sid);
    if (queue === undefined) {
      queue = [];
      this.queueSendMap.set(sid, queue);
    }
    // SendWorker.run: with nothing newer to send, repeat the last message (it may have died
    // with the previous connection).
    const last = this.lastMessageSent.get(sid);
    if (queue.length === 0 && last !== undefined) endpoint.send(last);
    this.pump(sid);
    return worker;
  }

  /** The SendWorker loop: hand every queued message to the live connection. */
  private pump(sid: number): void {
    const worker = this.workers.get(sid);
    const queue = this.queueSendMap.get(sid);
    if (worker === undefined || !worker.running || !worker.endpoint.open || queue === undefined) return;
    while (queue.length > 0) {
      const message = queue.shift()!;
      this.lastMessageSent.set(sid, message);
      worker.endpoint.send(message);
    }
  }

  private received(worker: PeerConnection, message: unknown): void {
    if (!worker.running || isInitialMessage(message)) return;
    this.deliver(worker.sid, message as ElectionMessage);
  }

  private deliver(sid: number, message: ElectionMessage): void {
    if (this.shutdown || !this.ctx.alive) return;
    this.handler?.(sid, message);
  }

  /** SendWorker.finish: close the socket and forget the connection if it is still current. */
  private finish(worker: PeerConnection): void {
    if (!worker.running) return;
    worker.running = false;
    worker.endpoint.close();
    if (this.workers.get(worker.sid) === worker) this.workers.delete(worker.sid);
  }
}

/** `host:port` from an initial message; undefined when it names none (Java's empty `electionAddr`). */
function parseElectionAddr(text: string): { host: string; port: number } | undefined {
  const colon = text.lastIndexOf(":");
  const port = Number(text.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  return { host: text.slice(0, colon), port };
}

function isInitialMessage(message: unknown): message is QuorumCnxInitialMessage {
  return typeof message === "object" && message !== null && (message as { kind?: unknown }).kind === "qcm.initial";
}
