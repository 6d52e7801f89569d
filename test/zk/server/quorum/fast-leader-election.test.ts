import { describe, expect, it } from "vitest";
import { makeZxid } from "../../../../src/zk/proto/records.js";
import {
  buildEnsemble,
  decisions,
  describeDecisions,
  expectedLeader,
  finalStates,
  nodeOf,
  runUntilDecided,
  settled,
  voters,
  type Decision,
  type ServerSpec,
} from "./harness.js";

/** Every listed server decided; one leader, LEADING itself, everyone else following it. */
function expectAgreement(decided: Decision[] | string, leader: number, trace: string): void {
  expect(typeof decided, `${String(decided)}\n${trace}`).not.toBe("string");
  const ds = decided as Decision[];
  for (const d of ds) {
    expect(d.leader, trace).toBe(leader);
    const role = d.sid === leader ? "LEADING" : "FOLLOWING";
    if (d.state !== "OBSERVING") expect(d.state, trace).toBe(role);
  }
  expect(new Set(ds.map((d) => d.electionEpoch)).size, trace).toBe(1);
}

describe("ensemble: election: all LOOKING", () => {
  const cases: [string, ServerSpec[]][] = [
    // The winner is never simply the largest sid: epoch beats zxid beats sid.
    ["N=3", voters([[2, 5], [2, 9], [1, 50]])],
    ["N=5", voters([[1, 7], [3, 1], [2, 99], [3, 1], [1, 100]])],
    ["N=7", voters([[4, 2], [4, 9], [4, 9], [3, 500], [4, 8], [2, 0], [4, 1]])],
  ];
  for (const [name, specs] of cases) {
    it(`ensemble: election: all LOOKING elect the best (epoch, zxid, sid) (${name})`, () => {
      const ens = buildEnsemble(specs, { seed: `all-looking-${name}` });
      const leader = expectedLeader(specs);
      expect(ens.sim.runSync({ untilUs: 120_000_000 })).toBe("quiescent");
      const sids = specs.map((s) => s.sid);
      expectAgreement(settled(ens, sids), leader, describeDecisions(ens.sim));
      // Each server decided exactly once: no flapping.
      expect(decisions(ens.sim)).toHaveLength(specs.length);
    });
  }

  it("ensemble: election: equal logs elect the largest sid, within a second (N=5)", () => {
    const specs = voters([[1, 3], [1, 3], [1, 3], [1, 3], [1, 3]]);
    const ens = buildEnsemble(specs, { seed: 3 });
    ens.sim.runSync({ untilUs: 60_000_000 });
    expectAgreement(settled(ens, [1, 2, 3, 4, 5]), 5, describeDecisions(ens.sim));
    // finalizeWait is 200 ms; with millisecond links the election ends well within 1 s.
    for (const d of decisions(ens.sim)) expect(d.atUs).toBeLessThan(1_000_000);
  });

  it("ensemble: election: trace annotations carry the vote and the decision (N=3)", () => {
    const specs = voters([[1, 1], [1, 2], [1, 3]]);
    const ens = buildEnsemble(specs, { seed: 4 });
    ens.sim.runSync({ untilUs: 60_000_000 });
    const votes = ens.sim.trace.events.filter((e) => e.kind === "fle.vote");
    expect(votes.find((e) => e.node === "s3")!.fields).toEqual({ sid: 3, proposedLeader: 3, zxid: "0x100000003", electionEpoch: 1, state: "LOOKING" });
    const s1Changes = votes.filter((e) => e.node === "s1").map((e) => (e.fields as { proposedLeader: number }).proposedLeader);
    expect(s1Changes[0]).toBe(1);
    expect(s1Changes.at(-1)).toBe(3);
    const elected = ens.sim.trace.events.find((e) => e.kind === "fle.elected" && e.node === "s3");
    expect(elected?.fields).toEqual({ sid: 3, leader: 3, zxid: "0x100000003", state: "LEADING", electionEpoch: 1 });
  });
});

describe("ensemble: election: observers", () => {
  it("ensemble: election: observers learn the leader but do not vote (N=3+2)", () => {
    // The observers have the most recent logs; they must not be elected nor count as votes.
    const specs: ServerSpec[] = [
      ...voters([[1, 4], [1, 6], [1, 5]]),
      { sid: 4, role: "observer", epoch: 5, zxid: makeZxid(5, 1) },
      { sid: 5, role: "observer", epoch: 5, zxid: makeZxid(5, 2) },
    ];
    const ens = buildEnsemble(specs, { seed: 11, learnerStub: true });
    ens.sim.runSync({ untilUs: 120_000_000 });
    const decided = settled(ens, [1, 2, 3, 4, 5]);
    expectAgreement(decided, 2, describeDecisions(ens.sim));
    const byId = new Map((decided as Decision[]).map((d) => [d.sid, d]));
    expect(byId.get(4)!.state).toBe("OBSERVING");
    expect(byId.get(5)!.state).toBe("OBSERVING");
    expect(decisions(ens.sim).filter((d) => d.sid <= 3)).toHaveLength(3);
  });

  it("ensemble: election: one voter and two observers never elect (N=3+2)", () => {
    const specs: ServerSpec[] = [
      { sid: 1, epoch: 1, zxid: makeZxid(1, 1) },
      { sid: 2, epoch: 1, zxid: makeZxid(1, 1), neverStart: true },
      { sid: 3, epoch: 1, zxid: makeZxid(1, 1), neverStart: true },
      { sid: 4, role: "observer", epoch: 1, zxid: makeZxid(1, 1) },
      { sid: 5, role: "observer", epoch: 1, zxid: makeZxid(1, 1) },
    ];
    const ens = buildEnsemble(specs, { seed: 12 });
    ens.sim.runSync({ untilUs: 300_000_000 });
    expect(decisions(ens.sim), describeDecisions(ens.sim)).toHaveLength(0);
  });
});

describe("ensemble: election: partitions", () => {
  const five = voters([[1, 1], [1, 2], [1, 3], [1, 4], [1, 9]]);

  it("ensemble: election: minority partitions never elect (N=5)", () => {
    const ens = buildEnsemble(five, { seed: 21, faults: [{ atMs: 0, kind: "partition", groups: [["s1", "s2"], ["s3", "s4"], ["s5"]] }] });
    ens.sim.runSync({ untilUs: 600_000_000 });
    expect(decisions(ens.sim), describeDecisions(ens.sim)).toHaveLength(0);
    // The notification timeout backed off to its 60 s ceiling rather than spinning.
    const timeouts = ens.sim.trace.events.filter((e) => e.kind === "fle.notification-timeout" && e.node === "s1");
    expect((timeouts.at(-1)!.fields as { nextTimeoutMs: number }).nextTimeoutMs).toBe(60_000);
    expect(timeouts.length).toBeLessThan(20);
  });

  it("ensemble: election: a majority elects while a minority is cut off, the minority learns after heal (N=5)", () => {
    // The best server (s5) is in the minority: the majority elects the best among itself.
    const ens = buildEnsemble(five, {
      seed: 22,
      learnerStub: true,
      faults: [
        { atMs: 0, kind: "partition", groups: [["s4", "s5"]] },
        { atMs: 30_000, kind: "heal" },
      ],
    });
    ens.sim.runSync({ untilUs: 29_000_000 });
    const during = finalStates(ens);
    expect(during.get(4)).toBe("LOOKING");
    expect(during.get(5)).toBe("LOOKING");
    expectAgreement(settled(ens, [1, 2, 3]), 3, describeDecisions(ens.sim));
    ens.sim.runSync({ untilUs: 200_000_000 });
    // After heal: the minority joins the established leader (FOLLOWING/LEADING answers), even
    // though s5 has the most recent log, and nobody re-elects.
    expectAgreement(settled(ens, [1, 2, 3, 4, 5]), 3, describeDecisions(ens.sim));
    expect(decisions(ens.sim).filter((d) => d.state === "LEADING")).toHaveLength(1);
  });

  it("ensemble: election: isolate leader, the rest elect again, the old leader rejoins (N=5)", () => {
    const ens = buildEnsemble(five, {
      seed: 23,
      learnerStub: true,
      faults: [
        { atMs: 5_000, kind: "partition", groups: [["s5"]] },
        { atMs: 60_000, kind: "heal" },
      ],
    });
    ens.sim.runSync({ untilUs: 4_000_000 });
    expectAgreement(settled(ens, [1, 2, 3, 4, 5]), 5, describeDecisions(ens.sim));
    ens.sim.runSync({ untilUs: 59_000_000 });
    expectAgreement(settled(ens, [1, 2, 3, 4]), 4, describeDecisions(ens.sim));
    ens.sim.runSync({ untilUs: 200_000_000 });
    // s5 (stepped down: no quorum of pings) has the best log but finds an established
    // ensemble and follows s4.
    expectAgreement(settled(ens, [1, 2, 3, 4, 5]), 4, describeDecisions(ens.sim));
  });
});

describe("ensemble: election: crashes", () => {
  it("ensemble: election: a crashed candidate, the others elect among themselves (N=5)", () => {
    const specs = voters([[1, 1], [1, 2], [1, 3], [1, 4], [1, 9]]);
    // s5 crashes 3 ms in: after its first notifications have spread, before anyone decides.
    const ens = buildEnsemble(specs, { seed: 31, learnerStub: true, faults: [{ atMs: 3, kind: "crash", node: "s5" }] });
    ens.sim.runSync({ untilUs: 120_000_000 });
    expectAgreement(settled(ens, [1, 2, 3, 4]), 4, describeDecisions(ens.sim));
    expect(finalStates(ens).get(5)).toBe("down");
  });

  it("ensemble: election: a candidate down from the start is never waited for (N=3)", () => {
    const specs: ServerSpec[] = [...voters([[1, 1], [1, 2]]), { sid: 3, epoch: 1, zxid: makeZxid(1, 9), neverStart: true }];
    const ens = buildEnsemble(specs, { seed: 32 });
    runUntilDecided(ens, [1, 2], 60_000);
    expectAgreement(settled(ens, [1, 2]), 2, describeDecisions(ens.sim));
    expect(ens.sim.nowUs).toBeLessThan(2_000_000);
  });

  it("ensemble: election: a joiner does not follow a leader that is gone, even if a quorum names it (N=5)", () => {
    // Only s1 and s5 run the learner stub: when s5 (the leader) crashes, s2..s4 never notice
    // and keep answering "FOLLOWING s5, round 1" to anyone LOOKING. s1 does notice (its link to
    // s5 resets) and, restarted, looks for a leader: a quorum names s5, but checkLeader wants a
    // LEADING vote from s5 itself, so s1 keeps looking instead of following a leader that is gone.
    const specs = voters([[1, 1], [1, 2], [1, 3], [1, 4], [1, 9]]);
    specs[0]!.learnerStub = true;
    specs[4]!.learnerStub = true;
    const ens = buildEnsemble(specs, {
      seed: 34,
      faults: [
        { atMs: 5_000, kind: "crash", node: "s5" },
        { atMs: 6_000, kind: "restart", node: "s1" },
      ],
    });
    ens.sim.runSync({ untilUs: 120_000_000 });
    const trace = describeDecisions(ens.sim);
    const s1After = decisions(ens.sim).filter((d) => d.sid === 1 && d.atUs > 6_000_000);
    expect(s1After, trace).toEqual([]);
    expect(finalStates(ens).get(1)).toBe("LOOKING");
    // It did hear the stale quorum: s2..s4 answered its notifications.
    const answers = ens.sim.trace.events.filter((e) => e.kind === "deliver" && e.node === "s1" && e.atUs > 6_000_000 && e.detail === "fle.notification");
    expect(new Set(answers.map((e) => e.peer))).toEqual(new Set(["s2", "s3", "s4"]));
  });

  it("ensemble: election: a restarted follower rejoins the established leader (N=3)", () => {
    const specs = voters([[1, 1], [1, 2], [1, 3]]);
    const ens = buildEnsemble(specs, { seed: 33, learnerStub: true, faults: [{ atMs: 10_000, kind: "restart", node: nodeOf(1) }] });
    ens.sim.runSync({ untilUs: 100_000_000 });
    expectAgreement(settled(ens, [1, 2, 3]), 3, describeDecisions(ens.sim));
    // s1 decided twice (before and after its restart); s2 and s3 only once.
    expect(decisions(ens.sim).map((d) => d.sid).sort()).toEqual([1, 1, 2, 3]);
  });
});
