import { describe, expect, it } from "vitest";
import { PrimaryIntegrityChecker } from "../../../src/check/zab/primary-integrity.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";
import { correctRun, zk1154, zk4785 } from "./scenarios.js";

/** Epoch 1 (leader s1): (1,1) and (1,2) everywhere; s1 also logs (1,3), which nobody else has. */
function epochOne(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(1, [2, 3], 1, z(0, 0));
  t.broadcast(1, z(1, 1), "create /a", [1, 2, 3]);
  t.broadcast(1, z(1, 2), "create /b", [1, 2, 3]);
  return t.propose(1, 1, z(1, 3), "create /c").logTxn(1, z(1, 3), "create /c");
}

describe("check: zab: primary integrity", () => {
  it("the correct run passes: every earlier-epoch delivery is within its later primaries' histories", () => {
    expect(runChecker(new PrimaryIntegrityChecker(), correctRun().events)).toEqual([]);
  });

  it("a new leader's initial history counts as delivered: it applied its whole log at lead() (ZooKeeper 3.8)", () => {
    const t = epochOne();
    // (1,3) was never committed under s1; s2 leads epoch 2 holding it in its log (say it was
    // logged there too), so it is in s2's tree at lead() and a DIFF delivers it to s3.
    t.logTxn(2, z(1, 3), "create /c");
    t.state(2, "LOOKING").state(3, "LOOKING");
    t.elect(2, [3], 2, z(1, 3), (f) => t.sync(f, 2, "DIFF", z(1, 2), z(1, 3)));
    t.deliver(3, z(1, 3), "create /c"); // at UPTODATE: after establishment, before or after (2,1)
    t.broadcast(2, z(2, 1), "create /d", [2, 3]);
    t.deliver(1, z(1, 3), "create /c"); // s1 catches up late, by a DIFF from s2
    expect(runChecker(new PrimaryIntegrityChecker(), t.events)).toEqual([]);
  });

  it("an earlier-epoch txn delivered after the new primary broadcast, beyond what it had, is named (an old leader committing on a minority)", () => {
    const t = epochOne();
    t.state(2, "LOOKING").state(3, "LOOKING");
    t.elect(2, [3], 2, z(1, 2));
    t.broadcast(2, z(2, 1), "create /d", [2, 3]);
    const proposeIndex = t.events.findIndex((e) => e.kind === "zab.propose" && e.node === "s2");
    t.commit(1, z(1, 3)).deliver(1, z(1, 3), "create /c"); // s1, isolated, commits (1,3) alone
    const v = runChecker(new PrimaryIntegrityChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.eventIndex).toBe(t.events.length - 1);
    expect(v[0]!.message).toContain("PrimaryIntegrity violated: s1 (sid 1) delivered 0x100000003 (1,3)");
    expect(v[0]!.message).toContain(`but s2 (sid 2), primary of epoch 2, had delivered only up to 0x100000002 (1,2) when it broadcast 0x200000001 (2,1) (#${proposeIndex} `);
  });

  it("an earlier-epoch txn delivered before the new primary broadcast, beyond what it had, is named at the broadcast, once, with its first delivery", () => {
    const t = epochOne();
    t.commit(1, z(1, 3)).deliver(1, z(1, 3), "create /c").deliver(3, z(1, 3), "create /c");
    t.state(2, "LOOKING").state(3, "LOOKING");
    t.elect(2, [3], 2, z(1, 2)); // s2 leads without (1,3): LeaderLogCompleteness territory too
    t.broadcast(2, z(2, 1), "create /d", [2, 3]).broadcast(2, z(2, 2), "create /e", [2, 3]);
    const propose = t.events.find((e) => e.kind === "zab.propose" && e.node === "s2")!;
    const v = runChecker(new PrimaryIntegrityChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.eventIndex).toBe(propose.index);
    expect(v[0]!.message).toMatch(/^PrimaryIntegrity violated: s1 \(sid 1\) delivered 0x100000003 \(1,3\) \(#\d+ at [\d.]+ms\), broadcast in epoch 1, but s2 \(sid 2\), primary of epoch 2/);
  });

  it("a leader without an established event is bounded by what it last delivered or recovered", () => {
    const t = epochOne();
    t.deliver(3, z(1, 3), "create /c");
    t.crash(2).restart(2).recovered(2, z(1, 2), 1);
    t.propose(2, 2, z(2, 1), "create /d");
    const v = runChecker(new PrimaryIntegrityChecker(), t.events);
    expect(v.map((x) => x.message)).toEqual([expect.stringContaining("had delivered only up to 0x100000002 (1,2) when it broadcast 0x200000001 (2,1)")]);
  });

  it("the ZOOKEEPER-1154 shape passes: a txn nobody delivered is not this invariant's business (prefix consistency's)", () => {
    expect(runChecker(new PrimaryIntegrityChecker(), zk1154().events)).toEqual([]);
  });

  it("the ZOOKEEPER-4785 shape is caught: the epoch-3 primary broadcast without (1,3), which three servers had delivered", () => {
    const v = runChecker(new PrimaryIntegrityChecker(), zk4785().events);
    expect(v.map((x) => x.message)).toEqual([
      expect.stringMatching(/^PrimaryIntegrity violated: s\d \(sid \d\) delivered 0x100000003 \(1,3\) .* but s1 \(sid 1\), primary of epoch 3, had delivered only up to 0x100000002 \(1,2\) when it broadcast 0x300000001 \(3,1\)/),
    ]);
  });
});
