import { describe, expect, it } from "vitest";
import { annotations, commitWorld, inspectOf } from "../commit-world.js";
import { msToUs } from "../../../src/sim/time.js";

const TX = [{ atMs: 100, client: "c1", key: "x", value: 1 }];
const slowCoordinator = { atMs: 0, kind: "disk", node: "coordinator", fault: "slow-fsync", fsyncLatencyMs: 100 };
const applied = (sim: ReturnType<typeof commitWorld>) => annotations(sim, "3pc.apply").map((e) => [e.node, e.fields?.outcome, e.fields?.by]);

describe("3PC participant timeout rules", () => {
  it("precommitted participants commit when the coordinator crashes before doCommit", async () => {
    const sim = commitWorld({ workload: { kind: "three-phase-commit", transactions: TX }, faults: [slowCoordinator, { atMs: 350, kind: "crash", node: "coordinator" }] });
    await sim.run({ untilUs: msToUs(3000) });
    expect(annotations(sim, "3pc.precommit").map((e) => e.node).sort()).toEqual(["p1", "p2", "p3"]);
    expect(applied(sim).map(([, o]) => o)).toEqual(["commit", "commit", "commit"]);
    for (const p of ["p1", "p2", "p3"]) expect(inspectOf(sim, p)).toMatchObject({ role: "participant", store: { x: 1 }, heldLocks: {} });
  });

  it("uncertain participants abort when the coordinator crashes before preCommit: the recovery coordinator decides (TR3); the book-timeouts twin aborts each alone", async () => {
    for (const script of ["3pc", "3pc-book-timeouts"]) {
      const sim = commitWorld({ workload: { kind: "three-phase-commit", script, transactions: TX }, faults: [slowCoordinator, { atMs: 250, kind: "crash", node: "coordinator" }] });
      await sim.run({ untilUs: msToUs(3000) });
      const by = applied(sim).map(([node, o, how]) => `${String(node)}:${String(o)}:${String(how)}`).sort();
      if (script === "3pc") {
        // p1, the lowest participant, wins the election (the highest ballot of round 0) and decides for all.
        expect(by).toEqual(["p1:abort:termination", "p2:abort:backup", "p3:abort:backup"]);
        expect(annotations(sim, "3pc.terminate").map((e) => [e.node, e.fields?.rule, e.fields?.ballot])).toEqual([["p1", "TR3", 3]]);
      } else {
        expect(by).toEqual(["p1:abort:timeout", "p2:abort:timeout", "p3:abort:timeout"]);
        expect(sim.trace.events.some((e) => e.kind === "send" && e.detail === "stateRequest")).toBe(false);
      }
    }
  });

  it("TR4: the recovery coordinator first brings the uncertain participants to precommitted, then commits; the book's bare rule aborts them", async () => {
    // preCommit reaches p1 only: the coordinator's links to p2 and p3 fail while it is on its
    // way, then the coordinator crashes.
    const faults = [
      { atMs: 0, kind: "delay", minMs: 30, maxMs: 30, from: ["coordinator"], to: ["p2", "p3"], oneWay: true },
      { atMs: 0, kind: "disk", node: "coordinator", fault: "slow-fsync", fsyncLatencyMs: 50 },
      // begin durable ~151 ms, votes back ~184 ms, preCommit durable and sent ~234 ms: p1 has it ~235 ms, p2 and p3 would ~264 ms.
      { atMs: 245, kind: "cut", from: ["coordinator"], to: ["p2", "p3"], oneWay: true },
      { atMs: 245, kind: "crash", node: "coordinator" },
    ];
    const run = async (script: string) => {
      const sim = commitWorld({ workload: { kind: "three-phase-commit", script, transactions: TX }, faults });
      await sim.run({ untilUs: msToUs(4000) });
      return sim;
    };
    const sim = await run("3pc");
    // p2 and p3 voted (and armed their timers) after p1, so they time out first: p2's round
    // (ballot 2) outbids p3's (ballot 1), and p1 joins it.
    const terminate = annotations(sim, "3pc.terminate");
    expect(terminate.map((e) => [e.node, e.fields?.ballot, e.fields?.rule, e.fields?.states])).toEqual([["p2", 2, "TR4", [["p2", "uncertain"], ["p3", "uncertain"], ["p1", "precommitted"]]]]);
    const precommits = annotations(sim, "3pc.precommit");
    expect(precommits.map((e) => e.node)).toEqual(["p1", "p3"]);
    const firstCommit = Math.min(...annotations(sim, "3pc.apply").map((e) => e.atUs));
    expect(precommits.every((e) => e.atUs < firstCommit)).toBe(true); // the uncertain member precommitted before anyone commits
    expect(applied(sim).map(([node, o]) => `${String(node)}:${String(o)}`).sort()).toEqual(["p1:commit", "p2:commit", "p3:commit"]);
    const book = await run("3pc-book-timeouts");
    expect(applied(book).map(([node, o]) => `${String(node)}:${String(o)}`).sort()).toEqual(["p1:commit", "p2:abort", "p3:abort"]);
  });

  it("a participant that joined a termination round ignores an older preCommit (the coordinator's, ballot 0)", async () => {
    // Everyone uncertain, the coordinator gone; p1's decision (abort, TR3) is slow to become durable.
    const sim = commitWorld({
      workload: { kind: "three-phase-commit", transactions: TX },
      faults: [slowCoordinator, { atMs: 250, kind: "crash", node: "coordinator" }, { atMs: 500, kind: "disk", node: "p1", fault: "slow-fsync", fsyncLatencyMs: 100 }],
    });
    await sim.run({ untilUs: msToUs(1300) });
    const joined = annotations(sim, "3pc.terminate");
    expect(joined.map((e) => e.fields?.rule)).toEqual(["TR3"]);
    // A preCommit the crashed coordinator sent long ago arrives at p3 now, after p3 reported "uncertain" to p1's round.
    sim.schedule(sim.nowUs, () => (sim.node("p3").process as unknown as { onDatagram(f: string, m: unknown): void }).onDatagram("coordinator", { kind: "preCommit", txn: "c1-1", ballot: 0 }));
    await sim.run({ untilUs: msToUs(3000) });
    expect(annotations(sim, "3pc.precommit")).toEqual([]);
    expect(applied(sim).map(([node, o]) => `${String(node)}:${String(o)}`).sort()).toEqual(["p1:abort", "p2:abort", "p3:abort"]);
  });

  it("a recovered participant takes no part in rounds and learns the outcome from the others", async () => {
    // p3 crashes while uncertain and comes back; p1 and p2 have decided by then (TR3), and p3 asks them.
    const sim = commitWorld({
      workload: { kind: "three-phase-commit", transactions: TX },
      faults: [slowCoordinator, { atMs: 250, kind: "crash", node: "coordinator" }, { atMs: 300, kind: "crash", node: "p3" }, { atMs: 1500, kind: "restart", node: "p3" }],
    });
    await sim.run({ untilUs: msToUs(4000) });
    expect(annotations(sim, "3pc.terminate").map((e) => [e.node, e.fields?.excluded])).toEqual([["p1", ["p3"]]]);
    expect(applied(sim).map(([node, o, how]) => `${String(node)}:${String(o)}:${String(how)}`).sort()).toEqual(["p1:abort:termination", "p2:abort:backup", "p3:abort:peer"]);
  });

  it("after a total failure the recovered participants wait for the coordinator to say it is undecided, then apply the rule to everyone's state", async () => {
    // Everyone precommitted; the coordinator crashes before its commit is durable, then every participant crashes.
    const faults = [
      slowCoordinator,
      { atMs: 350, kind: "crash", node: "coordinator" },
      ...["p1", "p2", "p3"].map((node) => ({ atMs: 360, kind: "crash", node })),
      ...["p1", "p2", "p3"].map((node) => ({ atMs: 1000, kind: "restart", node })),
      { atMs: 2500, kind: "disk", node: "coordinator", fault: "ok" },
      { atMs: 3000, kind: "restart", node: "coordinator" },
    ];
    const sim = commitWorld({ workload: { kind: "three-phase-commit", transactions: TX }, faults });
    await sim.run({ untilUs: msToUs(6000) });
    const decided = annotations(sim, "3pc.terminate");
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.every((e) => e.fields?.recovered === true && e.fields?.rule === "TR4" && e.atUs > msToUs(3000))).toBe(true);
    expect(applied(sim).map(([, o]) => o)).toEqual(["commit", "commit", "commit"]);
    expect(annotations(sim, "3pc.end").map((e) => e.fields?.outcome)).toEqual(["commit"]);
  });

  it("the run the issue reported: a coordinator crash while preCommit travels slow links, then two participant crashes — every participant commits", async () => {
    const faults = [
      { atMs: 0, kind: "delay", minMs: 150, maxMs: 150, from: ["coordinator"], to: ["p2"], oneWay: true },
      { atMs: 0, kind: "delay", minMs: 250, maxMs: 250, from: ["coordinator"], to: ["p3"], oneWay: true },
      { atMs: 400, kind: "crash", node: "coordinator" },
      { atMs: 1300, kind: "crash", node: "p1" },
      { atMs: 1470, kind: "crash", node: "p2" },
      { atMs: 2500, kind: "restart", node: "p1" },
      { atMs: 2600, kind: "restart", node: "p2" },
      { atMs: 3000, kind: "restart", node: "coordinator" },
    ];
    const sim = commitWorld({ workload: { kind: "three-phase-commit", transactions: TX }, faults });
    await sim.run({ untilUs: msToUs(5000) });
    expect(applied(sim).map(([, o]) => o)).toEqual(["commit", "commit", "commit"]);
  });
});

describe("3PC coordinator recovery", () => {
  it("after preCommit it asks the participants and reports the outcome they reached", async () => {
    const sim = commitWorld({
      workload: { kind: "three-phase-commit", transactions: TX },
      faults: [slowCoordinator, { atMs: 350, kind: "crash", node: "coordinator" }, { atMs: 2500, kind: "disk", node: "coordinator", fault: "ok" }, { atMs: 3000, kind: "restart", node: "coordinator" }],
    });
    await sim.run({ untilUs: msToUs(5000) });
    const recover = annotations(sim, "3pc.recover").find((e) => e.node === "coordinator");
    expect(recover?.fields).toEqual({ role: "coordinator", decisions: [], learning: ["c1-1"], presumedAbort: [] });
    expect(annotations(sim, "3pc.end").map((e) => e.fields?.outcome)).toEqual(["commit"]);
    expect(annotations(sim, "3pc.result").map((e) => e.fields?.outcome)).toEqual(["commit"]);
  });
});
