import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Simulator } from "../../src/sim/simulator.js";
import type { Endpoint } from "../../src/sim/network.js";
import { applyFault, type FaultAction } from "../../src/sim/faults.js";
import { offer } from "../../src/check/checker.js";
import { ConnectionFifoChecker } from "../../src/check/kernel/connection-fifo.js";
import { NoDeliveryAcrossCutChecker } from "../../src/check/kernel/no-delivery-across-cut.js";
import { addNode, eventsOf, makeSim } from "../helpers/sim.js";

/** a streams numbered messages to b over one connection; b records what it receives. */
function streamPair(sim: Simulator, count: number, gapUs = 1_000) {
  const received: number[] = [];
  const closes: string[] = [];
  let client: Endpoint | undefined;
  addNode(sim, "b", (ctx) => {
    ctx.listen(1, () => ({ onMessage: (_e, m) => received.push(m as number) }));
  });
  addNode(sim, "a", (ctx) => {
    client = ctx.connect("b", 1, {
      onOpen: (ep) => {
        for (let i = 1; i <= count; i++) ctx.setTimer(i * gapUs, () => ep.send(i));
      },
      onMessage: () => undefined,
      onClose: (_e, reason) => closes.push(reason),
    });
  });
  sim.start("b");
  sim.start("a");
  return { received, closes, client: () => client! };
}

describe("sim: network: datagrams", () => {
  it("delivers after a delay within the configured bounds", () => {
    const sim = makeSim({ network: { minDelayUs: 300, maxDelayUs: 700 } });
    const at: number[] = [];
    addNode(sim, "b", () => ({ onDatagram: () => void at.push(sim.nowUs) }));
    addNode(sim, "a", (ctx) => {
      for (let i = 0; i < 200; i++) ctx.send("b", i);
    });
    sim.start("b");
    sim.start("a");
    sim.runSync();
    expect(at).toHaveLength(200);
    expect(Math.min(...at)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...at)).toBeLessThanOrEqual(700);
  });

  it("loss and duplication happen at their rates, and are traced", () => {
    const sim = makeSim({ network: { lossRate: 0.3, duplicateRate: 0.2 } });
    let got = 0;
    addNode(sim, "b", () => ({ onDatagram: () => void got++ }));
    addNode(sim, "a", (ctx) => {
      for (let i = 0; i < 2000; i++) ctx.send("b", i);
    });
    sim.start("b");
    sim.start("a");
    sim.runSync();
    const lost = eventsOf(sim, "drop").filter((e) => e.detail === "loss").length;
    const dup = eventsOf(sim, "duplicate").length;
    expect(lost).toBeGreaterThan(500);
    expect(lost).toBeLessThan(700);
    expect(dup).toBeGreaterThan(230);
    expect(dup).toBeLessThan(330);
    expect(got).toBe(2000 - lost + dup);
  });

  it("reordering: some datagrams overtake others", () => {
    const sim = makeSim({ network: { minDelayUs: 100, maxDelayUs: 100, reorderRate: 0.5, reorderExtraUs: 5_000 } });
    const got: number[] = [];
    addNode(sim, "b", () => ({ onDatagram: (_f, p) => void got.push(p as number) }));
    addNode(sim, "a", (ctx) => {
      for (let i = 0; i < 50; i++) ctx.setTimer(i * 100, () => ctx.send("b", i));
    });
    sim.start("b");
    sim.start("a");
    sim.runSync();
    expect(got).toHaveLength(50);
    expect(got).not.toEqual([...got].sort((x, y) => x - y));
  });

  it("a cut link drops datagrams", () => {
    const sim = makeSim();
    let got = 0;
    addNode(sim, "b", () => ({ onDatagram: () => void got++ }));
    addNode(sim, "a", (ctx) => void ctx.setTimer(10, () => ctx.send("b", 1)));
    sim.start("b");
    sim.start("a");
    sim.network.cut(["a"], ["b"], true);
    sim.runSync();
    expect(got).toBe(0);
    expect(eventsOf(sim, "drop")[0]!.detail).toBe("partition");
  });

  it("a datagram on the wire survives its sender's crash", () => {
    const sim = makeSim({ network: { minDelayUs: 1000, maxDelayUs: 1000 } });
    const got: unknown[] = [];
    addNode(sim, "b", () => ({ onDatagram: (_f, p) => void got.push(p) }));
    addNode(sim, "a", (ctx) => {
      ctx.send("b", 1);
      ctx.setTimer(2_000, () => ctx.send("b", 2)); // never: the crash cancels the timer
    });
    sim.start("b");
    sim.start("a");
    sim.schedule(500, () => sim.crash("a")); // message 1 in flight
    sim.runSync();
    expect(got).toEqual([1]);
    expect(eventsOf(sim, "drop")).toEqual([]);
  });

  it("a datagram reaching a down receiver is lost; one arriving after it restarted reaches the new process", () => {
    const sim = makeSim({ network: { minDelayUs: 1000, maxDelayUs: 1000 } });
    const got: [number, unknown][] = [];
    addNode(sim, "b", (ctx) => ({ onDatagram: (_f, p) => void got.push([ctx.incarnation, p]) }));
    addNode(sim, "a", (ctx) => {
      ctx.send("b", 1); // arrives at 1000 µs: b is down
      ctx.setTimer(1_500, () => ctx.send("b", 2)); // leaves at 1500 µs, b restarts at 2000 µs, arrives at 2500 µs
    });
    sim.start("b");
    sim.start("a");
    sim.schedule(500, () => sim.crash("b"));
    sim.schedule(2_000, () => sim.start("b"));
    sim.runSync();
    expect(got).toEqual([[3, 2]]);
    expect(eventsOf(sim, "drop").map((e) => e.detail)).toEqual(["receiver-down"]);
  });

  it("a datagram sent to a node's previous incarnation reaches its new one", () => {
    const sim = makeSim({ network: { minDelayUs: 1000, maxDelayUs: 1000 } });
    const got: [number, unknown][] = [];
    addNode(sim, "b", (ctx) => ({ onDatagram: (_f, p) => void got.push([ctx.incarnation, p]) }));
    addNode(sim, "a", (ctx) => void ctx.send("b", "hello"));
    sim.start("b");
    sim.start("a");
    sim.schedule(300, () => sim.restart("b")); // crash and start again while "hello" is on the wire
    sim.runSync();
    expect(got).toEqual([[3, "hello"]]);
  });
});

describe("sim: network: connections", () => {
  it("FIFO and reliable while up", () => {
    const sim = makeSim({ network: { minDelayUs: 100, maxDelayUs: 5_000 } });
    const { received } = streamPair(sim, 300, 50);
    sim.runSync();
    expect(received).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });

  it("a partition silently holds traffic; nobody is told; heal delivers it in order", () => {
    const sim = makeSim();
    const { received, closes } = streamPair(sim, 100);
    sim.schedule(20_000, () => sim.network.partition([["a"], ["b"]]));
    let atHeal = -1;
    sim.schedule(80_000, () => {
      atHeal = received.length;
      sim.network.heal();
    });
    sim.runSync();
    expect(atHeal).toBeLessThan(25);
    expect(received).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(closes).toEqual([]);
    expect(eventsOf(sim, "hold").length).toBeGreaterThanOrEqual(1);
    expect(eventsOf(sim, "deliver").every((e) => e.atUs < 20_000 || e.atUs >= 80_000)).toBe(true);
  });

  it("a crashed peer resets the connection", () => {
    const sim = makeSim();
    const { closes } = streamPair(sim, 100);
    sim.schedule(30_000, () => sim.crash("b"));
    sim.runSync();
    expect(closes).toEqual(["reset"]);
  });

  it("connecting to a node that is down, or a port nobody listens on, is refused", () => {
    const sim = makeSim();
    const reasons: string[] = [];
    addNode(sim, "b", (ctx) => ctx.listen(1, () => ({ onMessage: () => undefined })));
    addNode(sim, "a", (ctx) => {
      ctx.connect("b", 2, { onMessage: () => undefined, onClose: (_e, r) => reasons.push(`port2:${r}`) });
      ctx.connect("c", 1, { onMessage: () => undefined, onClose: (_e, r) => reasons.push(`c:${r}`) });
    });
    addNode(sim, "c");
    sim.start("b");
    sim.start("a");
    sim.runSync();
    expect(reasons.sort()).toEqual(["c:refused", "port2:refused"]);
  });

  it("a connect across a cut link times out", () => {
    const sim = makeSim();
    const reasons: string[] = [];
    addNode(sim, "b", (ctx) => ctx.listen(1, () => ({ onMessage: () => undefined })));
    addNode(sim, "a", (ctx) => {
      ctx.connect("b", 1, { onMessage: () => undefined, onClose: (_e, r) => reasons.push(`${r}@${sim.nowUs}`) }, { timeoutUs: 250_000 });
    });
    sim.start("b");
    sim.network.cut(["a"], ["b"]);
    sim.start("a");
    sim.runSync();
    expect(reasons).toEqual(["timeout@250000"]);
  });

  it("close: the peer sees 'closed' after the data sent before it", () => {
    const sim = makeSim();
    const log: string[] = [];
    addNode(sim, "b", (ctx) =>
      ctx.listen(1, () => ({ onMessage: (_e, m) => log.push(`msg ${m}`), onClose: (_e, r) => log.push(r) })),
    );
    addNode(sim, "a", (ctx) => {
      ctx.connect("b", 1, {
        onOpen: (ep) => {
          ep.send(1);
          ep.send(2);
          ep.close();
        },
        onMessage: () => undefined,
      });
    });
    sim.start("b");
    sim.start("a");
    sim.runSync();
    expect(log).toEqual(["msg 1", "msg 2", "closed"]);
  });

  it("a paused receiver gets nothing until it resumes, then everything in order", () => {
    const sim = makeSim();
    const { received } = streamPair(sim, 50);
    let during = -1;
    sim.schedule(10_000, () => sim.pause("b"));
    sim.schedule(40_000, () => (during = received.length));
    sim.schedule(90_000, () => sim.resume("b"));
    sim.runSync();
    expect(during).toBeLessThanOrEqual(10);
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

// ---- properties ------------------------------------------------------------------------

const faultArb: fc.Arbitrary<{ atMs: number; action: FaultAction }> = fc.record({
  // From 5 ms on: the handshake is done (a partition during a connect makes it time out, by design).
  atMs: fc.integer({ min: 5, max: 200 }),
  action: fc.oneof(
    fc.constant<FaultAction>({ kind: "partition", groups: [["a"], ["b"]] }),
    fc.constant<FaultAction>({ kind: "cut", from: ["a"], to: ["b"], oneWay: true }),
    fc.constant<FaultAction>({ kind: "cut", from: ["b"], to: ["a"], oneWay: true }),
    fc.constant<FaultAction>({ kind: "heal" }),
    fc.constant<FaultAction>({ kind: "pause", node: "b" }),
    fc.constant<FaultAction>({ kind: "resume", node: "b" }),
    fc.integer({ min: 0, max: 20 }).map<FaultAction>((ms) => ({ kind: "clog", from: ["a"], to: ["b"], extraDelayMs: ms })),
    fc.integer({ min: 0, max: 5 }).map<FaultAction>((ms) => ({ kind: "delay", minMs: 0, maxMs: ms })),
  ),
});

function runWithFaults(seed: number, faults: { atMs: number; action: FaultAction }[]) {
  const sim = makeSim({ seed, retainTrace: false });
  const fifo = new ConnectionFifoChecker();
  const cut = new NoDeliveryAcrossCutChecker();
  sim.trace.subscribe((e) => {
    offer(fifo, e);
    offer(cut, e);
  });
  const pair = streamPair(sim, 150, 1_000);
  for (const f of faults) sim.schedule(f.atMs * 1000, () => applyFault(sim, f.action));
  sim.schedule(300_000, () => {
    applyFault(sim, { kind: "heal" });
    applyFault(sim, { kind: "resume", node: "b" });
  });
  sim.runSync();
  return { ...pair, violations: [...fifo.finish(), ...cut.finish()], hash: sim.trace.hash() };
}

describe("sim: network: properties", () => {
  it("FIFO and no delivery across a cut under any schedule; after heal every message arrives", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(faultArb, { maxLength: 12 }), (seed, faults) => {
        const r = runWithFaults(seed, faults);
        expect(r.violations).toEqual([]);
        expect(r.closes).toEqual([]); // partitions alone never tell anybody
        expect(r.received).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      }),
      { seed: 11, numRuns: 120 },
    );
  });

  it("same seed and schedule ⇒ same trace hash", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(faultArb, { maxLength: 8 }), (seed, faults) => {
        expect(runWithFaults(seed, faults).hash).toBe(runWithFaults(seed, faults).hash);
      }),
      { seed: 12, numRuns: 40 },
    );
  });

  it("canary: a connection that reorders is caught by the FIFO checker", () => {
    const sim = makeSim({ retainTrace: false, network: { minDelayUs: 100, maxDelayUs: 3_000 } });
    sim.network.canaryReorderConnections = true;
    const fifo = new ConnectionFifoChecker();
    sim.trace.subscribe((e) => fifo.onEvent(e), fifo.kinds);
    streamPair(sim, 100, 200);
    sim.runSync();
    const v = fifo.finish();
    expect(v.length).toBeGreaterThan(0);
    expect(v[0]!.message).toMatch(/FIFO order broken/);
  });
});
