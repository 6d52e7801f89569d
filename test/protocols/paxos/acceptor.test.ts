import { describe, expect, it } from "vitest";
import { makeSim, eventsOf } from "../../helpers/sim.js";
import { PaxosAcceptor, ballotOf, roundOf } from "../../../src/protocols/paxos/index.js";

describe("paxos acceptor and ballots", () => {
  it("ballots of different proposers never collide, and each knows its round", () => {
    const seen = new Set<number>();
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 3; i++) {
        const b = ballotOf(round, i, 3);
        expect(seen.has(b)).toBe(false);
        seen.add(b);
        expect(roundOf(b, 3)).toBe(round);
      }
    }
  });

  const acceptorWorld = (variant: "correct" | "promise-before-fsync") => {
    const sim = makeSim({ network: { minDelayUs: 1000, maxDelayUs: 1000 } });
    const got: unknown[] = [];
    sim.addNode("a1", (ctx) => new PaxosAcceptor(ctx, { learners: [], acceptors: 1, variant }), { fsyncLatencyUs: 5000 });
    sim.addNode("p1", () => ({ onDatagram: (_f: string, m: unknown) => got.push(m) }));
    sim.start("a1");
    sim.start("p1");
    return { sim, got };
  };

  it("answers a prepare only once its promise is durable; a restart keeps it", async () => {
    const { sim, got } = acceptorWorld("correct");
    sim.schedule(0, () => sim.node("p1").context!.send("a1", { kind: "prepare", ballot: 3 }));
    await sim.run({ untilUs: 3000 });
    expect(got).toEqual([]);
    await sim.run({ untilUs: 20_000 });
    expect(got).toEqual([{ kind: "promise", ballot: 3, acceptedBallot: 0, acceptedValue: null }]);
    sim.restart("a1");
    expect((sim.node("a1").process as PaxosAcceptor).inspect()).toMatchObject({ role: "acceptor", promisedBallot: 3 });
    sim.node("p1").context!.send("a1", { kind: "accept", ballot: 2, value: "A" });
    await sim.run({ untilUs: 40_000 });
    expect(got[1]).toEqual({ kind: "nack", ballot: 2, promised: 3 });
  });

  it("the broken twin answers first, and a crash in the fsync window forgets the promise", async () => {
    const { sim, got } = acceptorWorld("promise-before-fsync");
    sim.schedule(0, () => sim.node("p1").context!.send("a1", { kind: "prepare", ballot: 3 }));
    sim.schedule(2500, () => sim.crash("a1"));
    sim.schedule(3000, () => sim.start("a1"));
    await sim.run({ untilUs: 10_000 });
    expect(got).toHaveLength(1);
    expect(eventsOf(sim, "paxos.acceptor.recovered").at(-1)!.fields).toMatchObject({ promised: 0 });
  });
});
