import { describe, expect, it } from "vitest";
import { Simulator } from "../../../../src/sim/simulator.js";
import { QuorumVerifier } from "../../../../src/zk/server/quorum/quorum-verifier.js";
import { ELECTION_PORT, QuorumCnxManager, type ElectionMessage } from "../../../../src/zk/server/quorum/quorum-cnx-manager.js";

interface Msg extends ElectionMessage {
  kind: "test.msg";
  n: number;
}
const msg = (n: number): Msg => ({ kind: "test.msg", n });

/** Nodes s1..sN each running only a QuorumCnxManager; received messages are recorded per sid. */
function managers(n: number, seed = 1, viewOf: (sid: number) => number[] = () => Array.from({ length: n }, (_, i) => i + 1)) {
  const sim = new Simulator({ seed, retainTrace: true });
  const qcm = new Map<number, QuorumCnxManager>();
  const received = new Map<number, [from: number, n: number][]>();
  for (let sid = 1; sid <= n; sid++) {
    received.set(sid, []);
    const qv = new QuorumVerifier(viewOf(sid).map((member) => ({ sid: member, host: `s${member}`, role: "participant" as const })));
    sim.addNode(`s${sid}`, (ctx) => {
      const m = new QuorumCnxManager(ctx, sid, qv, { onMessage: (from, message) => received.get(sid)!.push([from, (message as Msg).n]) });
      m.start();
      qcm.set(sid, m);
      return {};
    });
  }
  return { sim, qcm, received };
}

/** Election connections open at the end, as (initiator, acceptor) node pairs. */
function openConnections(sim: Simulator): string[] {
  const open = new Map<number, string>();
  for (const e of sim.trace.events) {
    if (e.kind === "conn.connect" && e.detail === String(ELECTION_PORT)) open.set(e.id!, `${e.node}>${e.peer}`);
    if (e.kind === "conn.close" || e.kind === "conn.reset" || e.kind === "conn.closed" || e.kind === "conn.refused" || e.kind === "conn.timeout") open.delete(e.id!);
  }
  return [...open.values()];
}

describe("ensemble: qcm", () => {
  it("ensemble: qcm: a smaller sid's connection is closed and the larger sid dials back (N=2)", () => {
    const { sim, qcm, received } = managers(2);
    sim.start("s1");
    sim.start("s2");
    qcm.get(1)!.toSend(2, msg(7));
    sim.runSync();
    expect(received.get(2)).toEqual([[1, 7]]);
    expect(openConnections(sim)).toEqual(["s2>s1"]);
    expect(qcm.get(1)!.connectedToPeer(2)).toBe(true);
    expect(qcm.get(2)!.connectedToPeer(1)).toBe(true);
  });

  it("ensemble: qcm: the larger sid dials back the address a smaller sid's initial message names, though its view lacks that sid (a removed server)", () => {
    // s1 was removed by a reconfig: s2's committed view is {2, 3}, s1's (older) one {1, 2, 3}.
    const { sim, qcm, received } = managers(3, 1, (sid) => (sid === 1 ? [1, 2, 3] : [2, 3]));
    for (const id of ["s1", "s2", "s3"]) sim.start(id);
    qcm.get(1)!.toSend(2, msg(12));
    sim.runSync();
    expect(received.get(2)).toEqual([[1, 12]]);
    expect(openConnections(sim)).toEqual(["s2>s1"]);
    expect(sim.trace.events.filter((e) => e.kind === "qcm.invalid-sid")).toEqual([]);
    // s2 answering s1 needs no view entry either: the connection s2 dialled back carries it.
    qcm.get(2)!.toSend(1, msg(21));
    sim.runSync();
    expect(received.get(1)).toEqual([[2, 21]]);
  });

  it("ensemble: qcm: simultaneous dialling converges on one connection per pair (N=3)", () => {
    const { sim, qcm, received } = managers(3, 5);
    for (const id of ["s1", "s2", "s3"]) sim.start(id);
    for (const a of [1, 2, 3]) for (const b of [1, 2, 3]) if (a !== b) qcm.get(a)!.toSend(b, msg(a * 10 + b));
    sim.runSync();
    expect(openConnections(sim).sort()).toEqual(["s2>s1", "s3>s1", "s3>s2"]);
    // Every message arrives at least once (a replaced connection may repeat the last one).
    for (const b of [1, 2, 3]) {
      const got = new Set(received.get(b)!.map(([from, n]) => `${from}:${n}`));
      for (const a of [1, 2, 3]) if (a !== b) expect(got.has(`${a}:${a * 10 + b}`)).toBe(true);
    }
  });

  it("ensemble: qcm: while a peer is down only the newest message is kept (N=3)", () => {
    const { sim, qcm, received } = managers(3);
    sim.start("s1");
    for (let n = 1; n <= 3; n++) qcm.get(1)!.toSend(3, msg(n));
    sim.runSync();
    expect(qcm.get(1)!.haveDelivered()).toBe(false);
    sim.start("s3");
    qcm.get(1)!.connectAll();
    sim.runSync();
    expect(received.get(3)).toEqual([[1, 3]]);
    expect(qcm.get(1)!.haveDelivered()).toBe(true);
  });

  it("ensemble: qcm: the last message is sent again on a new connection (N=2)", () => {
    const { sim, qcm, received } = managers(2);
    sim.start("s1");
    sim.start("s2");
    qcm.get(2)!.toSend(1, msg(1));
    sim.runSync();
    expect(received.get(1)).toEqual([[2, 1]]);
    sim.restart("s1"); // s2's connection resets; s1's new incarnation knows nothing
    received.set(1, []);
    sim.runSync();
    qcm.get(2)!.connectOne(1);
    sim.runSync();
    expect(received.get(1)).toEqual([[2, 1]]);
  });

  it("ensemble: qcm: messages to oneself loop back asynchronously (N=1)", () => {
    const { sim, qcm, received } = managers(1);
    sim.start("s1");
    qcm.get(1)!.toSend(1, msg(4));
    expect(received.get(1)).toEqual([]);
    sim.runSync();
    expect(received.get(1)).toEqual([[1, 4]]);
  });

  it("ensemble: qcm: haveDelivered is true as soon as any queue is empty, as in 3.8 (N=3)", () => {
    const { sim, qcm } = managers(3);
    sim.start("s1");
    sim.start("s2");
    const m = qcm.get(1)!;
    expect(m.haveDelivered()).toBe(false); // no queue at all
    m.toSend(3, msg(1)); // s3 is down: stays queued
    sim.runSync();
    expect(m.haveDelivered()).toBe(false);
    m.toSend(2, msg(2));
    sim.runSync();
    expect(m.haveDelivered()).toBe(true); // s2's queue drained, s3's did not
  });

  it("ensemble: qcm: nothing is received after halt (N=2)", () => {
    const { sim, qcm, received } = managers(2);
    sim.start("s1");
    sim.start("s2");
    qcm.get(2)!.toSend(1, msg(1));
    sim.runSync();
    qcm.get(1)!.halt();
    qcm.get(2)!.toSend(1, msg(2));
    qcm.get(2)!.connectAll();
    sim.runSync();
    expect(received.get(1)).toEqual([[2, 1]]);
  });
});
