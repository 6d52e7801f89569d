import { describe, expect, it } from "vitest";
import { applyFault, parseFaultSchedule, undoOf } from "../../src/sim/faults.js";
import { addNode, makeSim } from "../helpers/sim.js";

const nodes = ["s1", "s2", "s3"];
const bad = (raw: unknown) => () => parseFaultSchedule(raw, nodes);

describe("sim: faults: schedule parsing", () => {
  it("accepts every action kind", () => {
    const parsed = parseFaultSchedule(
      [
        { atMs: 0, kind: "crash", node: "s1" },
        { atMs: 1, kind: "restart", node: "s1" },
        { atMs: 2, kind: "pause", node: "s2" },
        { atMs: 3, kind: "resume", node: "s2" },
        { atMs: 4, kind: "partition", groups: [["s1"], ["s2", "s3"]] },
        { atMs: 5, kind: "cut", from: ["s1"], to: ["s2"], oneWay: true },
        { atMs: 6, kind: "heal" },
        { atMs: 6, kind: "heal", from: ["s1"], to: ["s2"] },
        { atMs: 7, kind: "clog", from: ["s1"], to: ["s3"], extraDelayMs: 40 },
        { atMs: 8, kind: "unclog" },
        { atMs: 8, kind: "clog-node", node: "s2", extraDelayMs: 30 },
        { atMs: 9, kind: "loss", rate: 0.1 },
        { atMs: 9, kind: "duplicate", rate: 0.1, from: ["s1"], to: ["s2"] },
        { atMs: 9, kind: "reorder", rate: 0.1, extraDelayMs: 5 },
        { atMs: 9, kind: "delay", minMs: 1, maxMs: 3 },
        { atMs: 10, kind: "clock", node: "s3", rate: 1.5 },
        { atMs: 11, kind: "disk", node: "s3", fault: "slow-fsync", fsyncLatencyMs: 300 },
        { atMs: 12, kind: "disk", node: "s3", fault: "full" },
        { atMs: 13, kind: "disk", node: "s3", fault: "ok" },
      ],
      nodes,
    );
    expect(parsed).toHaveLength(19);
  });

  it("reorder is undone like loss: its rate goes back to 0 on the same links (so forMs is accepted)", () => {
    expect(undoOf({ kind: "reorder", rate: 0.3, extraDelayMs: 200, from: ["s1"], to: ["s2"], oneWay: true })).toEqual([{ kind: "reorder", rate: 0, from: ["s1"], to: ["s2"], oneWay: true }]);
    expect(undoOf({ kind: "reorder", rate: 0.3 })).toEqual([{ kind: "reorder", rate: 0 }]);
    expect(parseFaultSchedule([{ atMs: 1, kind: "reorder", rate: 0.2, forMs: 50 }], nodes)).toHaveLength(1);
    expect(bad([{ atMs: 1, kind: "delay", minMs: 1, maxMs: 3, forMs: 50 }])).toThrow(/forMs: a "delay" fault has no undo/);
  });

  it("rejects malformed entries with the index and the field", () => {
    expect(bad({})).toThrow(/faults: expected a list/);
    expect(bad([{ atMs: -1, kind: "crash", node: "s1" }])).toThrow(/faults\[0\]: "atMs" must be a number ≥ 0/);
    expect(bad([{ atMs: 1, kind: "explode", node: "s1" }])).toThrow(/faults\[0\]: unknown fault kind "explode"/);
    expect(bad([{ atMs: 1, kind: "crash", node: "s9" }])).toThrow(/faults\[0\]\.node: unknown node "s9" \(known: s1, s2, s3\)/);
    expect(bad([{ atMs: 1, kind: "loss", rate: 2 }])).toThrow(/faults\[0\]\.rate: expected a number in \[0, 1\]/);
    expect(bad([{ atMs: 1, kind: "partition", groups: [["s1"], ["s1", "s2"]] }])).toThrow(/node "s1" is in more than one group/);
    expect(bad([{ atMs: 1, kind: "delay", minMs: 5, maxMs: 1 }])).toThrow(/"maxMs" \(1\) is below "minMs" \(5\)/);
    expect(bad([{ atMs: 1, kind: "heal", from: ["s1"] }])).toThrow(/give both "from" and "to"/);
    expect(bad([{ atMs: 1, kind: "disk", node: "s1", fault: "melt" }])).toThrow(/expected "slow-fsync", "full" or "ok"/);
    expect(bad([{ atMs: 1, kind: "clog", from: ["s1"], to: ["s2"], extraDelayMs: -3 }])).toThrow(/extraDelayMs: expected a number ≥ 0/);
    expect(bad([{ atMs: 1, kind: "clock", node: "s1", rate: 0 }])).toThrow(/clock rate must be > 0/);
  });
});

describe("sim: faults: clog-node", () => {
  it("sim: faults: clog-node delays every link of one node both ways, and its undo (0 ms) clears them", () => {
    const sim = makeSim();
    for (const id of ["s1", "s2", "s3"]) addNode(sim, id);
    const [clog] = parseFaultSchedule([{ atMs: 0, kind: "clog-node", node: "s2", extraDelayMs: 200 }], nodes);
    applyFault(sim, clog!);
    const [undo] = undoOf(clog!);
    expect(undo).toEqual({ kind: "clog-node", node: "s2", extraDelayMs: 0 });
    applyFault(sim, undo!);
    const events = sim.trace.events.filter((e) => e.kind === "clog" || e.kind === "unclog");
    expect(events.map((e) => [e.kind, e.id, e.fields])).toEqual([
      ["clog", 200_000, { links: ["s2>s1", "s2>s3", "s1>s2", "s3>s2"] }],
      ["unclog", 0, { links: ["s2>s1", "s2>s3", "s1>s2", "s3>s2"] }],
    ]);
  });
});
