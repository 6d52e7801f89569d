import { describe, expect, it } from "vitest";
import { LivenessChecker } from "../../../src/check/zab/liveness.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";

/** s1 leads epoch 1 for s1..s3, then is cut off from s2 and s3. */
function isolateLeader(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3]);
  t.partition(["s1>s2", "s2>s1", "s1>s3", "s3>s1"]);
  for (const s of [1, 2, 3]) t.state(s, "LOOKING").phase(s, "ELECTION", 1);
  return t;
}

describe("check: zab: liveness", () => {
  it("no leader after the heal → why-stuck report with each server's role, phase, epoch and the cut links", () => {
    const t = isolateLeader().heal(["s1>s2", "s2>s1"]).crash(3).wait(45_000).tick();
    const v = runChecker(new LivenessChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.checker).toBe("zab.liveness");
    const m = v[0]!.message;
    expect(m).toContain("Liveness violated: within 40000 ms of the last fault (crash of s3");
    expect(m).toContain("no leader was established (no zab.leader.established, and only 0 of 3 voters were in BROADCAST; a majority is 2)");
    expect(m).toContain("s1 (sid 1), s2 (sid 2) never reached phase BROADCAST");
    expect(m).toContain("Why stuck: s1 (sid 1): LOOKING since");
    expect(m).toContain("phase ELECTION (epoch 1)");
    expect(m).toContain("s3 (sid 3): down since");
    expect(m).toContain("links cut: s1>s3, s3>s1");
    expect(v[0]!.eventIndex).toBe(t.events.length - 1);
  });

  it("every client request finishes within the budget after the last fault, unless its node crashed", () => {
    /** A leader elected at once; c1 invokes op 1, c2 op 2; c2 crashes (the last fault); c1's op maybe completes. */
    const run = (complete1: number | undefined) => {
      const t = new TraceBuilder().boot(1, 2, 3);
      t.elect(1, [2, 3], 1, z(0, 0));
      t.event("client.invoke", "c1", { client: "c1", opId: 1, op: "setData", path: "/x" });
      t.event("client.invoke", "c2", { client: "c2", opId: 2, op: "getData", path: "/y" });
      t.event("crash", "c2");
      if (complete1 !== undefined) t.wait(complete1).event("client.complete", "c1", { client: "c1", opId: 1, outcome: "unknown", err: "CONNECTIONLOSS" });
      return runChecker(new LivenessChecker(), t.wait(45_000).tick().events);
    };
    expect(run(4_000)).toEqual([]);
    const never = run(undefined);
    expect(never).toHaveLength(1);
    expect(never[0]!.message).toMatch(/1 client request\(s\) did not finish in time: c1 setData \/x \(invoked #\d+ at [\d.]+ms, never finished\)/);
    expect(never[0]!.message).not.toContain("c2 getData");
    expect(run(41_000)[0]!.message).toMatch(/c1 setData \/x \(invoked .*, finished at [\d.]+ms\)/);
  });

  it("a server whose acceptedEpoch is ahead of the serving leader's epoch is an explained gap (unknown), not a violation", () => {
    /** s2 accepted epoch 3 from a would-be leader that failed; s1 then established epoch 2 with s3. */
    const run = (accepted: number) => {
      const t = new TraceBuilder().boot(1, 2, 3);
      t.elect(1, [3], 2, z(0, 0)).zab("epoch.accepted", 2, { epoch: accepted });
      t.state(2, "LOOKING").phase(2, "ELECTION", 0).state(2, "FOLLOWING").phase(2, "DISCOVERY", accepted);
      const checker = new LivenessChecker();
      return { violations: runChecker(checker, t.wait(45_000).tick().events), unknowns: checker.unknowns() };
    };
    const ahead = run(3);
    expect(ahead.violations).toEqual([]);
    expect(ahead.unknowns).toHaveLength(1);
    expect(ahead.unknowns[0]!.reason).toContain("explained liveness gap: s2 (sid 2) (acceptedEpoch 3) never reached BROADCAST because its acceptedEpoch is above the serving leader's epoch 2");
    // The canary: at the leader's own epoch nothing explains it — a violation, as before.
    const level = run(2);
    expect(level.unknowns).toEqual([]);
    expect(level.violations).toHaveLength(1);
    expect(level.violations[0]!.message).toContain("s2 (sid 2) never reached phase BROADCAST");
  });

  it("a new leader within the budget after the heal is fine", () => {
    const t = isolateLeader().wait(5_000).heal(["s1>s2", "s2>s1", "s1>s3", "s3>s1"]).wait(3_000);
    t.elect(2, [1, 3], 2, z(1, 1)).wait(45_000).tick();
    expect(runChecker(new LivenessChecker(), t.events)).toEqual([]);
  });

  it("a follower partitioned away and healed only has to come back; the leader and the rest stay serving", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).partition(["s1>s3", "s3>s1"]).state(3, "LOOKING").phase(3, "ELECTION", 1);
    t.wait(1_000).heal(["s1>s3", "s3>s1"]).state(3, "FOLLOWING").phase(3, "SYNCHRONIZATION", 1).phase(3, "BROADCAST", 1);
    expect(runChecker(new LivenessChecker(), t.wait(45_000).tick().events)).toEqual([]);
    // Without the rejoin, s3 is reported.
    const u = new TraceBuilder().boot(1, 2, 3);
    u.elect(1, [2, 3], 1, z(0, 0)).partition(["s1>s3", "s3>s1"]).state(3, "LOOKING").phase(3, "ELECTION", 1).heal(["s1>s3", "s3>s1"]);
    const v = runChecker(new LivenessChecker(), u.wait(45_000).tick().events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("s3 (sid 3) never reached phase BROADCAST");
    expect(v[0]!.message).not.toContain("no leader");
  });

  it("nothing is judged when the run stops less than the budget after the last fault; the budget is configurable", () => {
    const t = isolateLeader().heal(["s1>s2", "s2>s1", "s1>s3", "s3>s1"]).wait(30_000).tick();
    expect(runChecker(new LivenessChecker(), t.events)).toEqual([]);
    expect(runChecker(new LivenessChecker(20_000), t.events)).toHaveLength(1);
    expect(() => new LivenessChecker(0)).toThrow(/LivenessChecker: budgetMs/);
  });

  it("a leader established after the budget is too late", () => {
    const t = isolateLeader().heal(["s1>s2", "s2>s1", "s1>s3", "s3>s1"]).wait(41_000);
    t.elect(2, [1, 3], 2, z(1, 1)).wait(10_000).tick();
    const v = runChecker(new LivenessChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("no leader was established");
  });
});
