import { describe, expect, it } from "vitest";
import { parseFaultSchedule, type Fault } from "../../src/sim/faults.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { scenarioToDocument } from "../../src/scenario/replay-file.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import type { Scenario } from "../../src/scenario/types.js";

const nodes = ["s1", "s2", "s3", "c1"];
const parse = (raw: unknown) => parseFaultSchedule(raw, nodes, "faults", ["leader"]);
const bad = (raw: unknown) => () => parse(raw);

describe("sim: faults: trace conditions (when) and undo (forMs)", () => {
  it("parses steps, references and forMs; a single step reads as a list of one", () => {
    const [f] = parse([{ atMs: 0, kind: "crash", node: "$leader", when: { after: "zab.propose", fields: { epoch: 2 }, count: 3 }, forMs: 500 }]);
    expect(f).toEqual({ atMs: 0, kind: "crash", node: "$leader", when: [{ after: "zab.propose", fields: { epoch: 2 }, count: 3 }], forMs: 500 });
    const [g] = parse([{ atMs: 10, kind: "crash", node: "$1.learner", when: [{ after: "workload.phase", delayMs: 5 }, { after: "zab.sync", withinMs: 100 }, { after: "disk.fsync", node: "$1.learner" }] }]);
    expect(g!.when).toHaveLength(3);
  });

  it("rejects mistakes naming the entry and field", () => {
    expect(bad([{ atMs: 0, kind: "crash", node: "$boss" }])).toThrow(/faults\[0\]\.node: unknown role "\$boss" \(known: \$leader\)/);
    expect(bad([{ atMs: 0, kind: "crash", node: "$1", when: [{ after: "zab.sync" }] }])).toThrow(/faults\[0\]\.node: "\$1" refers to step 1, but only 1 step matched/);
    expect(bad([{ atMs: 0, kind: "crash", node: "s1", when: [{ after: "zab.sync", node: "$0" }] }])).toThrow(/faults\[0\]\.when\[0\]\.node: "\$0" refers to step 0, but only 0 steps/);
    expect(bad([{ atMs: 0, kind: "crash", node: "s1", when: { after: "x", count: 0 } }])).toThrow(/faults\[0\]\.when\.count: expected a whole number ≥ 1/);
    expect(bad([{ atMs: 0, kind: "crash", node: "s1", when: { after: "x", epoch: 2 } }])).toThrow(/faults\[0\]\.when: unknown field "epoch"/);
    expect(bad([{ atMs: 0, kind: "crash", node: "s1", when: [] }])).toThrow(/faults\[0\]\.when: expected a step or a non-empty list/);
    expect(bad([{ atMs: 0, kind: "heal", forMs: 10 }])).toThrow(/faults\[0\]\.forMs: a "heal" fault has no undo/);
    expect(bad([{ atMs: 0, kind: "cut", from: ["$leader"], to: ["s9"] }])).toThrow(/faults\[0\]\.to\[0\]: unknown node "s9"/);
    expect(() => parseFaultSchedule([{ atMs: 0, kind: "crash", node: "$leader" }], nodes)).toThrow(/unknown role "\$leader" \(known: none\)/);
    expect(bad([{ atMs: 0, kind: "crash", node: "s1", when: { after: "send", detail: "" } }])).toThrow(/faults\[0\]\.when\.detail: expected a message type or timer label/);
  });

  it('"detail": crash the next node that sends a promise, right after it left; the promise still arrives', async () => {
    const seen: TraceEvent[] = [];
    const s = loadScenario("paxos-basic");
    const aimed = parseFaultSchedule([{ atMs: 0, kind: "crash", node: "$0", when: { after: "send", detail: "promise" } }], ["a1"]);
    await runScenario({ ...s, faults: [...s.faults, ...aimed] }, { onTraceEvent: (e) => void seen.push(e) });
    const promise = seen.find((e) => e.kind === "send" && e.detail === "promise")!;
    const crash = seen.find((e) => e.kind === "crash")!;
    expect(crash).toMatchObject({ node: promise.node, atUs: promise.atUs });
    expect(seen.indexOf(crash)).toBeGreaterThan(seen.indexOf(promise));
    expect(seen.find((e) => e.kind === "deliver" && e.id === promise.id)).toMatchObject({ node: promise.peer, detail: "promise" });
  });

  it("a scenario with conditioned faults round-trips through its document", () => {
    const s = loadScenario("zab-isolated-leader");
    const faults: Fault[] = [{ atMs: 0, kind: "crash", node: "$leader", when: [{ after: "zab.propose", fields: { epoch: 1 }, count: 3, delayMs: 2 }], forMs: 100 }];
    const withFaults: Scenario = { ...s, faults };
    expect(parseScenario(scenarioToDocument(withFaults), "doc")).toEqual(withFaults);
  });
});

/** The swarm without its nemesis, with `faults` instead. */
function swarmWith(faults: unknown[]): Scenario {
  const doc = scenarioToDocument(loadScenario("zab-random-faults"));
  delete doc.nemesis;
  return parseScenario({ ...doc, faults }, "test");
}

async function traceOf(s: Scenario, kinds: string[]): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  await runScenario(s, { seed: 1, onTraceEvent: (e) => kinds.includes(e.kind) && events.push(e) });
  return events;
}

describe("scenario: trace-conditioned faults fire from the trace", () => {
  it('"crash the leader when it logs its 3rd PROPOSAL": right after that event, on that node; started again forMs later', async () => {
    const s = swarmWith([{ atMs: 0, kind: "crash", node: "$leader", when: { after: "zab.propose", count: 3 }, forMs: 700 }]);
    const events = await traceOf(s, ["zab.propose", "crash", "restart"]);
    const third = events.filter((e) => e.kind === "zab.propose")[2]!;
    const next = events[events.indexOf(third) + 1]!;
    expect([next.kind, next.node, next.atUs]).toEqual(["crash", third.node, third.atUs]);
    const restart = events.find((e) => e.kind === "restart" && e.node === third.node)!;
    expect(restart.atUs).toBe(third.atUs + 700_000);
  });

  it("a step that does not match within withinMs abandons the fault; $i.field names a node by its sid", async () => {
    const never = swarmWith([{ atMs: 0, kind: "crash", node: "s1", when: { after: "no.such.event", withinMs: 10 } }]);
    expect((await traceOf(never, ["crash"])).length).toBe(0);
    const learner = swarmWith([{ atMs: 0, kind: "pause", node: "$0.learner", when: { after: "zab.sync" }, forMs: 50 }]);
    const events = await traceOf(learner, ["zab.sync", "zab.state", "pause", "resume"]);
    const sync = events.find((e) => e.kind === "zab.sync")!;
    const pause = events.find((e) => e.kind === "pause")!;
    const sidOf = (node: string) => events.find((e): e is TraceEvent<"zab.state"> => e.kind === "zab.state" && e.node === node)?.fields.sid;
    expect(sidOf(pause.node)).toBe(sync.kind === "zab.sync" ? sync.fields.learner : undefined);
    expect(pause.atUs).toBe(sync.atUs);
    expect(events.find((e) => e.kind === "resume")!.atUs).toBe(pause.atUs + 50_000);
  });
});

describe("scenario: a crash right after a message of one type (when.detail)", () => {
  it("the sender crashes right after its 2nd NEWLEADER, the receiver right after its 1st COMMIT; a bad detail is one line", async () => {
    expect(bad([{ atMs: 0, kind: "crash", node: "$0", when: { after: "send", detail: 3 } }])).toThrow(/faults\[0\]\.when\.detail: expected a message type or timer label/);
    const s = swarmWith([
      { atMs: 0, kind: "crash", node: "$0", when: { after: "send", detail: "NEWLEADER", count: 2 }, forMs: 300 },
      { atMs: 0, kind: "crash", node: "$0", when: { after: "deliver", detail: "COMMIT" }, forMs: 300 },
    ]);
    const events = await traceOf(s, ["send", "deliver", "crash"]);
    const crashes = events.filter((e) => e.kind === "crash");
    const newleader = events.filter((e) => e.kind === "send" && e.detail === "NEWLEADER")[1]!;
    const commit = events.find((e) => e.kind === "deliver" && e.detail === "COMMIT")!;
    for (const m of [newleader, commit]) expect(crashes.some((c) => c.node === m.node && c.atUs === m.atUs)).toBe(true);
    expect(crashes).toHaveLength(2);
  });
});
