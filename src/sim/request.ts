/**
 * The "three states" of a request across a network (*From Paxos to ZooKeeper*, ch. 1): every call ends in
 * success (an answer), failure (an error answer) or timeout — and on a timeout the caller
 * cannot know whether the request was delivered, processed or answered.
 *
 * `RpcClient` is the caller's side, over datagrams or an open connection; `RpcServer` routes
 * requests to a handler and carries replies back. The caller sees only ok / error / timeout.
 * The trace, however, records the ground truth for every timeout ("rpc.timeout" with
 * delivered / processed / answered as known at that instant) and anything that happens to a
 * timed-out request afterwards ("rpc.late"), so checkers and the UI can show what really
 * happened while the client only knew "unknown".
 */
import type { NodeContext, TimerHandle } from "./node-context.js";
import type { Endpoint } from "./network.js";
import type { Simulator } from "./simulator.js";

export type Outcome<T = unknown> =
  | { kind: "ok"; value: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" };

export interface RpcRequestMsg {
  kind: "rpc.req";
  rpcId: number;
  body: unknown;
}
export interface RpcReplyMsg {
  kind: "rpc.res";
  rpcId: number;
  ok: boolean;
  body: unknown;
}

export function isRpcRequest(m: unknown): m is RpcRequestMsg {
  return typeof m === "object" && m !== null && (m as { kind?: unknown }).kind === "rpc.req";
}
export function isRpcReply(m: unknown): m is RpcReplyMsg {
  return typeof m === "object" && m !== null && (m as { kind?: unknown }).kind === "rpc.res";
}

interface Truth {
  caller: string;
  delivered: boolean;
  processed: boolean;
  answered: boolean;
  timedOut: boolean;
}

/** Ground truth per request, kept by the world (not visible to callers). */
class RpcLedger {
  private nextId = 0;
  readonly truths = new Map<number, Truth>();
  constructor(readonly sim: Simulator) {}

  open(caller: string): number {
    const id = ++this.nextId;
    this.truths.set(id, { caller, delivered: false, processed: false, answered: false, timedOut: false });
    return id;
  }

  mark(rpcId: number, node: string, what: "delivered" | "processed" | "answered"): void {
    const t = this.truths.get(rpcId);
    if (t === undefined || t[what]) return;
    t[what] = true;
    if (t.timedOut) this.sim.trace.record(this.sim.nowUs, "rpc.late", node, t.caller, rpcId, what);
  }

  timeout(rpcId: number): void {
    const t = this.truths.get(rpcId);
    if (t === undefined) return;
    t.timedOut = true;
    this.sim.trace.record(this.sim.nowUs, "rpc.timeout", t.caller, undefined, rpcId, undefined, {
      delivered: t.delivered,
      processed: t.processed,
      answered: t.answered,
    });
  }

  settle(rpcId: number): void {
    const t = this.truths.get(rpcId);
    if (t !== undefined && !t.timedOut) this.truths.delete(rpcId);
  }
}

const ledgers = new WeakMap<Simulator, RpcLedger>();
function ledgerOf(sim: Simulator): RpcLedger {
  let l = ledgers.get(sim);
  if (l === undefined) {
    l = new RpcLedger(sim);
    ledgers.set(sim, l);
  }
  return l;
}

/** Ground truth of a request (for checkers and tests; callers must not use it). */
export function rpcTruth(sim: Simulator, rpcId: number): Readonly<Truth> | undefined {
  return ledgerOf(sim).truths.get(rpcId);
}

interface PendingCall {
  cb: (outcome: Outcome) => void;
  timer: TimerHandle;
}

export class RpcClient {
  private readonly pending = new Map<number, PendingCall>();
  private readonly ledger: RpcLedger;

  constructor(private readonly ctx: NodeContext) {
    this.ledger = ledgerOf(ctx.sim);
  }

  /** Calls `to` over datagrams. Returns the request id (for tests reading the ground truth). */
  callDatagram(to: string, body: unknown, timeoutUs: number, cb: (outcome: Outcome) => void): number {
    const rpcId = this.begin(body, timeoutUs, cb);
    this.ctx.send(to, { kind: "rpc.req", rpcId, body } satisfies RpcRequestMsg);
    return rpcId;
  }

  /** Calls over an open connection (the reply must come back on it). */
  callOnConnection(endpoint: Endpoint, body: unknown, timeoutUs: number, cb: (outcome: Outcome) => void): number {
    const rpcId = this.begin(body, timeoutUs, cb);
    endpoint.send({ kind: "rpc.req", rpcId, body } satisfies RpcRequestMsg);
    return rpcId;
  }

  /** Feed every `rpc.res` the process receives here. Late replies (after a timeout) are ignored. */
  handleReply(msg: RpcReplyMsg): void {
    const call = this.pending.get(msg.rpcId);
    if (call === undefined) return;
    this.pending.delete(msg.rpcId);
    this.ctx.cancelTimer(call.timer);
    this.ledger.settle(msg.rpcId);
    call.cb(msg.ok ? { kind: "ok", value: msg.body } : { kind: "error", error: msg.body });
  }

  get outstanding(): number {
    return this.pending.size;
  }

  private begin(_body: unknown, timeoutUs: number, cb: (outcome: Outcome) => void): number {
    const rpcId = this.ledger.open(this.ctx.id);
    const timer = this.ctx.setTimer(
      timeoutUs,
      () => {
        if (!this.pending.delete(rpcId)) return;
        this.ledger.timeout(rpcId);
        cb({ kind: "timeout" });
      },
      "rpc-timeout",
    );
    this.pending.set(rpcId, { cb, timer });
    return rpcId;
  }
}

/** How a handler answers: exactly once, with a value or an error. */
export interface RpcResponder {
  ok(value: unknown): void;
  fail(error: unknown): void;
}

export class RpcServer {
  private readonly ledger: RpcLedger;

  constructor(
    private readonly ctx: NodeContext,
    private readonly handler: (from: string, body: unknown, respond: RpcResponder) => void,
  ) {
    this.ledger = ledgerOf(ctx.sim);
  }

  /** A request that arrived as a datagram from `from`. */
  receiveDatagram(from: string, msg: RpcRequestMsg): void {
    this.dispatch(from, msg, (reply) => this.ctx.send(from, reply));
  }

  /** A request that arrived on a connection: the reply goes back on it. */
  receiveOnConnection(endpoint: Endpoint, msg: RpcRequestMsg): void {
    this.dispatch(endpoint.remoteId, msg, (reply) => endpoint.send(reply));
  }

  private dispatch(from: string, msg: RpcRequestMsg, sendReply: (reply: RpcReplyMsg) => void): void {
    const { rpcId } = msg;
    this.ledger.mark(rpcId, this.ctx.id, "delivered");
    let answered = false;
    const answer = (ok: boolean, body: unknown) => {
      if (answered || !this.ctx.alive) return;
      answered = true;
      this.ledger.mark(rpcId, this.ctx.id, "answered");
      sendReply({ kind: "rpc.res", rpcId, ok, body });
    };
    this.ledger.mark(rpcId, this.ctx.id, "processed");
    this.handler(from, msg.body, { ok: (v) => answer(true, v), fail: (e) => answer(false, e) });
  }
}
