/**
 * A node context on the real clock and real TCP: what lets the project's ZooKeeper client
 * (src/zk/client, the promise API the recipes use) talk to a real ZooKeeper 3.8 ensemble or to
 * `zksim serve` over the network (docs/serve.md, "Our client over TCP").
 *
 * The client is written against the world interfaces (src/world/); this class implements them
 * with wall-clock time, `setTimeout` timers, `node:net` sockets and plain promises, where the
 * simulator (sim/node-context.ts) has virtual time and a simulated network. On a connection, each `ZkPacket` the client sends is
 * written with its 4-byte length prefix, and the bytes read are cut back into frames
 * (FrameDecoder), exactly as the serve gateway does it in the other direction. A four-letter-word
 * packet (`FOUR_LETTER_WORD_KIND`, a read-only client's `isro` probe) is written bare, as on the
 * real wire, the output shut down, and whatever text comes back until the server closes is handed
 * over as one packet of that kind.
 *
 * Nothing here is deterministic: it is the real world. The client's own random draws (host
 * order, reconnect jitter) still come from a seeded stream, so the host order is repeatable.
 *
 * Close reasons map as the kernel's: a refused connect is `refused`, a connect that does not
 * finish within `timeoutUs` is `timeout`, an error on an open socket (ECONNRESET, EPIPE) is
 * `reset`, and an orderly end (FIN) is `closed`.
 */
import net from "node:net";
import { performance } from "node:perf_hooks";
import type { AnnotationKind, TraceAnnotations } from "../sim/trace-schema.js";
import type { Deferred } from "../base/deferred.js";
import type { CloseReason, ConnectOptions, ConnectionHandlers, Endpoint, NodeContext, NodeDisk, TimerHandle } from "../world/index.js";
import { Rng } from "../sim/rng.js";
import { FrameDecoder, frame } from "../zk/proto/codec-framing.js";
import { FOUR_LETTER_WORD_KIND, isZkPacket } from "../zk/proto/wire.js";

/** The default connect timeout when the caller gives none (the client always gives one). */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface TcpNodeContextOptions {
  /** Names the node in annotations (default "tcp-client"). */
  id?: string;
  /** Seeds the client's random draws (host order, reconnect jitter); default 0. */
  seed?: number;
  /** Receives the client's trace annotations (connects, state changes, watch deliveries). */
  onAnnotation?: (kind: AnnotationKind, fields: unknown) => void;
}

/** A real timer: the handle the client keeps to cancel it. */
class TcpTimer implements TimerHandle {
  cancelled = false;
  fired = false;
  constructor(
    readonly id: number,
    readonly label: string,
  ) {}
}

/** One real socket as the client sees a connection. */
class TcpEndpoint implements Endpoint {
  open = false;
  closed = false;
  /** A client's connection comes from itself (no relayed address). */
  readonly remoteAddress = undefined;
  private readonly decoder = new FrameDecoder();
  /** Set once a four-letter word went out: the raw answer read so far. */
  private fourLetterAnswer: Buffer[] | undefined;

  constructor(
    readonly id: number,
    readonly localId: string,
    readonly remoteId: string,
    private readonly socket: net.Socket,
    private readonly handlers: ConnectionHandlers,
    timeoutMs: number,
  ) {
    const connectTimer = setTimeout(() => this.finish("timeout"), timeoutMs);
    socket.setNoDelay(true);
    socket.on("connect", () => {
      clearTimeout(connectTimer);
      if (this.closed) return;
      this.open = true;
      handlers.onOpen?.(this);
    });
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.finish("closed"));
    socket.on("error", (err: NodeJS.ErrnoException) => this.finish(err.code === "ECONNREFUSED" ? "refused" : "reset"));
    socket.on("close", () => {
      clearTimeout(connectTimer);
      this.finish(this.open ? "closed" : "refused");
    });
  }

  send(message: unknown): void {
    if (!this.open || this.closed) return;
    if (!isZkPacket(message)) throw new Error(`tcp endpoint ${this.id}: only ZooKeeper frames can be sent, got ${typeof message}`);
    if (message.kind === FOUR_LETTER_WORD_KIND) {
      this.fourLetterAnswer = [];
      this.socket.end(message.bytes); // the word, then shutdownOutput, as ClientCnxn.pingRwServer
      return;
    }
    this.socket.write(frame(message.bytes));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.open = false;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.fourLetterAnswer !== undefined) {
      this.fourLetterAnswer.push(chunk);
      return;
    }
    for (const event of this.decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))) {
      if (this.closed) return;
      if (event.kind === "frame") this.handlers.onMessage(this, { kind: "server-frame", bytes: event.payload });
      else this.finish("reset"); // a malformed length or a four-letter word from a server: not ZooKeeper
    }
  }

  /** Closes once, telling the client why (the first cause wins). */
  private finish(reason: CloseReason): void {
    if (this.closed) return;
    const answer = this.fourLetterAnswer;
    if (answer !== undefined && reason === "closed") {
      this.fourLetterAnswer = undefined;
      this.handlers.onMessage(this, { kind: FOUR_LETTER_WORD_KIND, bytes: new Uint8Array(Buffer.concat(answer)) });
      if (this.closed) return;
    }
    this.closed = true;
    this.open = false;
    this.socket.destroy();
    this.handlers.onClose?.(this, reason);
  }
}

/** The process view on the real clock and real sockets, for a client (it listens nowhere and has no disk). */
export class TcpNodeContext implements NodeContext {
  readonly id: string;
  readonly incarnation = 1;
  readonly rng: Rng;
  private readonly startMs = performance.now();
  private nextConnId = 1;
  private nextTimerId = 1;
  private readonly timers = new Map<TcpTimer, NodeJS.Timeout>();
  private readonly endpoints = new Set<TcpEndpoint>();
  private readonly counters = new Map<string, { last: number }>();
  private stopped = false;

  constructor(private readonly options: TcpNodeContextOptions = {}) {
    this.id = options.id ?? "tcp-client";
    this.rng = Rng.root(options.seed ?? 0).fork(this.id);
  }

  get alive(): boolean {
    return !this.stopped;
  }

  nowUs(): number {
    return Math.round((performance.now() - this.startMs) * 1000);
  }

  nowMs(): number {
    return Math.floor(this.nowUs() / 1000);
  }

  setTimer(delayUs: number, fn: () => void, label = "timer"): TimerHandle {
    const handle = new TcpTimer(this.nextTimerId++, label);
    const timeout = setTimeout(() => {
      this.timers.delete(handle);
      if (handle.cancelled || this.stopped) return;
      handle.fired = true;
      fn();
    }, Math.max(0, delayUs / 1000));
    this.timers.set(handle, timeout);
    return handle;
  }

  setTimerMs(delayMs: number, fn: () => void, label = "timer"): TimerHandle {
    return this.setTimer(delayMs * 1000, fn, label);
  }

  cancelTimer(handle: TimerHandle | undefined): void {
    if (!(handle instanceof TcpTimer)) return;
    handle.cancelled = true;
    const timeout = this.timers.get(handle);
    if (timeout !== undefined) clearTimeout(timeout);
    this.timers.delete(handle);
  }

  connect(to: string, port: number, handlers: ConnectionHandlers, options: ConnectOptions = {}): Endpoint {
    const socket = net.connect({ host: to, port });
    const timeoutMs = options.timeoutUs !== undefined ? options.timeoutUs / 1000 : DEFAULT_CONNECT_TIMEOUT_MS;
    const wrapped: ConnectionHandlers = {
      onOpen: (ep) => handlers.onOpen?.(ep),
      onMessage: (ep, m) => handlers.onMessage(ep, m),
      onClose: (ep, reason) => {
        this.endpoints.delete(endpoint);
        handlers.onClose?.(ep, reason);
      },
    };
    const endpoint = new TcpEndpoint(this.nextConnId++, this.id, `${to}:${port}`, socket, wrapped, timeoutMs);
    this.endpoints.add(endpoint);
    return endpoint;
  }

  addressOf(nodeId: string): string {
    return nodeId;
  }

  annotate<K extends AnnotationKind>(kind: K, fields: TraceAnnotations[K]): void {
    this.options.onAnnotation?.(kind, fields);
  }

  traceCounter(name: string): { last: number } {
    let counter = this.counters.get(name);
    if (counter === undefined) this.counters.set(name, (counter = { last: 0 }));
    return counter;
  }

  deferred<T>(): Deferred<T> {
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  }

  sleepMs(ms: number): Promise<void> {
    const d = this.deferred<void>();
    this.setTimerMs(ms, () => d.resolve(), "sleep");
    return d.promise;
  }

  /** `host:port` of the open connection, if there is one (which server the client is on). */
  connectedTo(): string | undefined {
    for (const ep of this.endpoints) if (ep.open) return ep.remoteId;
    return undefined;
  }

  /** Stops every timer and socket (after the client is closed, so the process can exit). */
  shutdown(): void {
    this.stopped = true;
    for (const timeout of this.timers.values()) clearTimeout(timeout);
    this.timers.clear();
    for (const ep of [...this.endpoints]) ep.close();
    this.endpoints.clear();
  }

  get disk(): NodeDisk {
    throw new Error("a TCP client context has no simulated disk");
  }

  listen(): void {
    throw new Error("a TCP client context does not listen");
  }

  unlisten(): void {
    throw new Error("a TCP client context does not listen");
  }

  send(): void {
    throw new Error("a TCP client context has no datagram network");
  }
}
