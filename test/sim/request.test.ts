import { describe, expect, it } from "vitest";
import { RpcClient, RpcServer, isRpcReply, isRpcRequest, rpcTruth, type Outcome } from "../../src/sim/request.js";
import type { Simulator } from "../../src/sim/simulator.js";
import { addNode, eventsOf, makeSim } from "../helpers/sim.js";

/** A server that answers after `processMs`, failing odd numbers. */
function setup(sim: Simulator, processMs: number) {
  const outcomes: Outcome[] = [];
  const ids: number[] = [];
  addNode(sim, "server", (ctx) => {
    const server = new RpcServer(ctx, (_from, body, respond) => {
      ctx.setTimerMs(processMs, () => ((body as number) % 2 ? respond.fail("odd") : respond.ok((body as number) * 10)));
    });
    return { onDatagram: (from, m) => isRpcRequest(m) && server.receiveDatagram(from, m) };
  });
  let client!: RpcClient;
  addNode(sim, "client", (ctx) => {
    client = new RpcClient(ctx);
    return { onDatagram: (_f, m) => isRpcReply(m) && client.handleReply(m) };
  });
  sim.start("server");
  sim.start("client");
  const call = (n: number, timeoutMs: number) => ids.push(client.callDatagram("server", n, timeoutMs * 1000, (o) => outcomes.push(o)));
  return { outcomes, ids, call };
}

describe("sim: request: the three states", () => {
  it("success and failure are answers", () => {
    const sim = makeSim();
    const { outcomes, call } = setup(sim, 1);
    call(2, 100);
    call(3, 100);
    sim.runSync();
    expect(outcomes).toEqual([{ kind: "ok", value: 20 }, { kind: "error", error: "odd" }]);
  });

  it("a timeout is unknown to the caller, but the trace records the ground truth", () => {
    const sim = makeSim();
    const { outcomes, ids, call } = setup(sim, 50);
    call(4, 10); // processed and answered, but only after the caller gave up
    sim.runSync();
    expect(outcomes).toEqual([{ kind: "timeout" }]);
    const t = eventsOf(sim, "rpc.timeout")[0]!;
    expect(t.fields).toEqual({ delivered: true, processed: true, answered: false });
    expect(eventsOf(sim, "rpc.late").map((e) => e.detail)).toEqual(["answered"]);
    expect(rpcTruth(sim, ids[0]!)).toMatchObject({ delivered: true, answered: true, timedOut: true });
  });

  it("a request lost to a partition times out with delivered=false", () => {
    const sim = makeSim();
    const { outcomes, call } = setup(sim, 1);
    sim.network.cut(["client"], ["server"], true);
    call(2, 10);
    sim.runSync();
    expect(outcomes).toEqual([{ kind: "timeout" }]);
    expect(eventsOf(sim, "rpc.timeout")[0]!.fields).toEqual({ delivered: false, processed: false, answered: false });
  });

  it("a reply lost on the way back: delivered, processed and answered, yet the caller only knows timeout", () => {
    const sim = makeSim();
    const { outcomes, call } = setup(sim, 1);
    sim.network.cut(["server"], ["client"], true);
    call(2, 10);
    sim.runSync();
    expect(outcomes).toEqual([{ kind: "timeout" }]);
    expect(eventsOf(sim, "rpc.timeout")[0]!.fields).toEqual({ delivered: true, processed: true, answered: true });
  });
});
