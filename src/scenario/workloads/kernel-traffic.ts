/**
 * Workload "kernel-traffic": N nodes exercising every kernel facility, for `kernel-smoke`.
 *
 * Each node
 * - keeps a connection to the next node in a ring and streams numbered messages on it,
 *   reconnecting after a close, reset, refusal or connect timeout; the receiver acks each one;
 * - pings random peers with datagrams, and makes three-state RPCs (ok / error / timeout) to them;
 * - appends records to a journal on its disk and fsyncs every third append; after a restart it
 *   reads the journal back and reports what it recovered ("app.recovered"), which the disk
 *   checker holds to the bytes that were durable.
 */
import type { NodeContext, Process } from "../../sim/node-context.js";
import type { Endpoint } from "../../sim/network.js";
import { isTorn } from "../../sim/disk.js";
import { RpcClient, RpcServer, isRpcReply, isRpcRequest } from "../../sim/request.js";
import { intParam, type Workload, type WorkloadContext, type WorkloadDef } from "../workload.js";
import { knownParams } from "./protocol-params.js";

const PORT = 7000;

export const KERNEL_CHECKERS = ["kernel.connection-fifo", "kernel.no-delivery-across-cut", "kernel.disk-crash-loss", "kernel.paused-node-silent"];
const JOURNAL = "journal";

interface Stats {
  streamed: number;
  acked: number;
  reconnects: number;
  rpcOk: number;
  rpcError: number;
  rpcTimeout: number;
  recoveries: number;
}

class TrafficNode implements Process {
  private seq = 0;
  private appends = 0;
  private conn: Endpoint | undefined;
  private readonly rpc: RpcClient;
  private readonly rpcServer: RpcServer;

  constructor(
    private readonly ctx: NodeContext,
    private readonly peers: string[],
    private readonly next: string,
    private readonly stats: Stats,
  ) {
    this.rpc = new RpcClient(ctx);
    this.rpcServer = new RpcServer(ctx, (_from, body, respond) => {
      // Odd requests fail, even ones succeed: both answers of the three states.
      if ((body as number) % 2 === 1) respond.fail("odd");
      else respond.ok(body);
    });
    this.recover();
    ctx.listen(PORT, () => ({
      onMessage: (e, m) => {
        if (isRpcRequest(m)) return this.rpcServer.receiveOnConnection(e, m);
        if ((m as { kind: string }).kind === "data") e.send({ kind: "ack", seq: (m as { seq: number }).seq });
      },
    }));
    this.connect();
    ctx.setTimerMs(20, () => this.stream(), "stream");
    ctx.setTimerMs(30, () => this.ping(), "ping");
    ctx.setTimerMs(50, () => this.journal(), "journal");
    ctx.setTimerMs(100, () => this.call(), "rpc");
  }

  onDatagram(from: string, payload: unknown): void {
    if (isRpcRequest(payload)) return this.rpcServer.receiveDatagram(from, payload);
    if (isRpcReply(payload)) return this.rpc.handleReply(payload);
    if ((payload as { kind: string }).kind === "ping") this.ctx.send(from, { kind: "pong" });
  }

  private recover(): void {
    const records = this.ctx.disk.read(JOURNAL);
    let bytes = 0;
    for (const r of records) bytes += isTorn(r) ? r.keptBytes : (r as { size: number }).size;
    if (records.length > 0) this.stats.recoveries++;
    this.ctx.annotate("app.recovered", { file: JOURNAL, bytes, records: records.length });
  }

  private connect(): void {
    this.conn = this.ctx.connect(this.next, PORT, {
      onMessage: (_e, m) => {
        if ((m as { kind: string }).kind === "ack") this.stats.acked++;
      },
      onClose: () => {
        this.conn = undefined;
        this.stats.reconnects++;
        this.ctx.setTimerMs(200, () => this.connect(), "reconnect");
      },
    }, { timeoutUs: 1_000_000 });
  }

  private stream(): void {
    if (this.conn?.open) {
      this.conn.send({ kind: "data", seq: ++this.seq });
      this.stats.streamed++;
    }
    this.ctx.setTimerMs(20, () => this.stream(), "stream");
  }

  private ping(): void {
    this.ctx.send(this.ctx.rng.pick(this.peers), { kind: "ping" });
    this.ctx.setTimerMs(30, () => this.ping(), "ping");
  }

  private journal(): void {
    const size = this.ctx.rng.int(100, 1000);
    this.ctx.disk.append(JOURNAL, { size, n: ++this.appends }, size);
    if (this.appends % 3 === 0) this.ctx.disk.fsync(JOURNAL);
    this.ctx.setTimerMs(50, () => this.journal(), "journal");
  }

  private call(): void {
    const n = this.ctx.rng.int(0, 9);
    this.rpc.callDatagram(this.ctx.rng.pick(this.peers), n, 20_000, (outcome) => {
      if (outcome.kind === "ok") this.stats.rpcOk++;
      else if (outcome.kind === "error") this.stats.rpcError++;
      else this.stats.rpcTimeout++;
    });
    this.ctx.setTimerMs(100, () => this.call(), "rpc");
  }
}

export const kernelTraffic: WorkloadDef = {
  kind: "kernel-traffic",
  description: "N nodes streaming over connections, pinging, making RPCs and journaling to disk",
  nodes(params) {
    knownParams(params, "kernel-traffic", ["nodes"]);
    const n = intParam(params, "nodes", 5, 2, 26);
    return Array.from({ length: n }, (_, i) => `n${i + 1}`);
  },
  defaultCheckers: () => KERNEL_CHECKERS,
  create(wctx: WorkloadContext): Workload {
    const ids = kernelTraffic.nodes(wctx.params);
    const stats: Stats = { streamed: 0, acked: 0, reconnects: 0, rpcOk: 0, rpcError: 0, rpcTimeout: 0, recoveries: 0 };
    return {
      setup() {
        ids.forEach((id, i) => {
          const peers = ids.filter((p) => p !== id);
          const next = ids[(i + 1) % ids.length]!;
          wctx.sim.addNode(id, (ctx) => new TrafficNode(ctx, peers, next, stats), wctx.scenario.disk);
        });
        for (const id of ids) wctx.sim.start(id);
      },
      narrative() {
        return [
          `${ids.length} nodes streamed ${stats.streamed} messages over ring connections (${stats.acked} acked) and reconnected ${stats.reconnects} times after resets, refusals and timeouts.`,
          `RPCs ended in the three states: ${stats.rpcOk} ok, ${stats.rpcError} error, ${stats.rpcTimeout} timeout (the trace records what really happened to each timeout).`,
          `After restarts, nodes recovered their journals ${stats.recoveries} times; each recovery is checked against the bytes that were fsynced.`,
        ];
      },
    };
  },
};
