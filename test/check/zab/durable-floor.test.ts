import { describe, expect, it } from "vitest";
import { DurableFloor, FLOOR_KINDS } from "../../../src/check/zab/durable-floor.js";
import { TXN_KINDS } from "../../../src/check/zab/txn-fields.js";
import { isOneOf } from "../../../src/sim/trace.js";
import { CommittedDurabilityChecker } from "../../../src/check/zab/committed-durability.js";
import { PrefixConsistencyChecker } from "../../../src/check/zab/prefix-consistency.js";
import { PrimaryIntegrityChecker } from "../../../src/check/zab/primary-integrity.js";
import { IntegrityChecker } from "../../../src/check/zab/integrity.js";
import { ZxidUniquenessChecker } from "../../../src/check/zab/zxid-uniqueness.js";
import { IdenticalTreesChecker } from "../../../src/check/zab/identical-trees.js";
import { runCheckers, type Checker } from "../../../src/check/checker.js";
import { CheckRun } from "../../../src/check/check-run.js";
import { WatchTriggersChecker } from "../../../src/check/client/watch-triggers.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";

function floorOf(t: TraceBuilder): bigint {
  const f = new DurableFloor();
  for (const e of t.events) if (isOneOf(e, FLOOR_KINDS)) f.observe(e);
  return f.zxid();
}

/** Epoch 1 led by s3 with `n` txns everywhere, then the ZOOKEEPER-4785 shape (cf. scenarios.ts) on top. */
function zk4785After(n: number): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(3, [1, 2], 1, z(0, 0), (f) => t.sync(f, 3, "DIFF", z(0, 0), z(0, 0)));
  for (let i = 1; i <= n; i++) t.broadcast(3, z(1, i), `create /n${i}`, [3, 1, 2]);
  t.crash(1).broadcast(3, z(1, n + 1), "create /c", [3, 2]).crash(2);
  t.restart(1).recovered(1, z(1, n), 1).state(1, "LOOKING").state(3, "LOOKING");
  // s1 is DIFF-synced (1,n+1) and delivers it, but never logs it (the bug), before NEWLEADER.
  t.elect(3, [1], 2, z(1, n + 1), () => t.sync(1, 3, "DIFF", z(1, n), z(1, n + 1)).deliver(1, z(1, n + 1), "create /c"));
  t.crash(3).crash(1).restart(1).recovered(1, z(1, n), 2).restart(2).recovered(2, z(1, n + 1), 1);
  for (const s of [1, 2]) t.state(s, "LOOKING").phase(s, "ELECTION", 2);
  t.elect(1, [2], 3, z(1, n), () => t.sync(2, 1, "TRUNC", z(1, n + 1), z(1, n)).truncate(2, z(1, n)));
  t.broadcast(1, z(3, 1), "create /d", [1, 2]);
  return t;
}

/** "X violated" of each violation: the invariants a run breaks, without the zxids that differ with n. */
function invariants(checker: Checker, t: TraceBuilder): string[] {
  return runChecker(checker, t.events).map((v) => v.message.slice(0, v.message.indexOf(" violated")));
}

describe("check: zab: the durable floor", () => {
  it("is the lowest zxid every server both applied and logged", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2, 3]).broadcast(1, z(1, 2), "b", [1, 2, 3], [1, 2]);
    expect(floorOf(t)).toBe(BigInt(z(1, 1)));
    t.deliver(3, z(1, 2), "b");
    expect(floorOf(t)).toBe(BigInt(z(1, 2)));
    // Delivered everywhere but logged by two: the third's disk does not hold it.
    t.propose(1, 1, z(1, 3), "c").logTxn(1, z(1, 3), "c").logTxn(2, z(1, 3), "c");
    for (const s of [1, 2, 3]) t.deliver(s, z(1, 3), "c");
    expect(floorOf(t)).toBe(BigInt(z(1, 2)));
  });

  it("counts a SNAP only once a snapshot at or above it is persisted, with what was logged meanwhile", () => {
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2]).broadcast(1, z(1, 2), "b", [1, 2]);
    t.sync(3, 1, "SNAP", z(0, 0), z(1, 2)).snapLoad(3, z(1, 2)).broadcast(1, z(1, 3), "c", [1, 2, 3]);
    expect(floorOf(t)).toBe(BigInt(z(0, 0)));
    t.event("zk.snapshot.done", "s3", { zxid: z(1, 1), nodes: 3, err: undefined });
    expect(floorOf(t), "a snapshot older than the SNAP").toBe(BigInt(z(0, 0)));
    t.event("zk.snapshot.done", "s3", { zxid: z(1, 2), nodes: 0, err: "write failed" });
    expect(floorOf(t), "a failed snapshot").toBe(BigInt(z(0, 0)));
    t.event("zk.snapshot.done", "s3", { zxid: z(1, 2), nodes: 4, err: undefined });
    expect(floorOf(t)).toBe(BigInt(z(1, 3)));
  });

  it("never goes down: a truncation or recovery below it is a loss the checkers report", () => {
    const t = new TraceBuilder().boot(1, 2);
    t.elect(1, [2], 1, z(0, 0)).broadcast(1, z(1, 1), "a", [1, 2]);
    const f = new DurableFloor();
    for (const e of t.events) if (isOneOf(e, FLOOR_KINDS)) f.observe(e);
    expect(f.zxid()).toBe(BigInt(z(1, 1)));
    for (const e of t.truncate(2, z(0, 0)).events.slice(-1)) if (isOneOf(e, FLOOR_KINDS)) f.observe(e);
    expect(f.zxid()).toBe(BigInt(z(1, 1)));
  });

  it("a long run is checked in bounded state, and the ZOOKEEPER-4785 shape on top of it is still caught the same way", () => {
    const short = zk4785After(2);
    const long = zk4785After(3000);
    const checkers = () => [new CommittedDurabilityChecker(), new PrefixConsistencyChecker(), new PrimaryIntegrityChecker()];
    const expected = checkers().map((c) => invariants(c, short));
    expect(expected[0]).toEqual(["CommittedLogDurability", "LeaderLogCompleteness"]);
    expect(checkers().map((c) => invariants(c, long))).toEqual(expected);
    // The state held after the 3,000 txns is what lies above the floor (pruned every 4,096 events
    // read), not the history: without forgetting, each checker holds ~7 entries per txn.
    for (const c of [new CommittedDurabilityChecker(), new PrefixConsistencyChecker()]) {
      runChecker(c, long.events);
      expect(c.retained(), c.name).toBeLessThan(6000);
    }
    const bounded: [Checker, () => number][] = [];
    const integrity = new IntegrityChecker();
    const uniqueness = new ZxidUniquenessChecker();
    const trees = new IdenticalTreesChecker();
    bounded.push([integrity, () => (integrity as unknown as { proposed: Map<bigint, string[]> }).proposed.size]);
    bounded.push([uniqueness, () => (uniqueness as unknown as { first: Map<bigint, unknown> }).first.size]);
    bounded.push([trees, () => (trees as unknown as { first: Map<bigint, unknown> }).first.size]);
    for (const [c, held] of bounded) {
      expect(runChecker(c, long.events), c.name).toEqual([]);
      expect(held(), c.name).toBeLessThan(1500);
    }
  });

  it("is one per run: the dispatcher feeds it once, and the checkers that share it judge as each would with its own", () => {
    const pruning = (): Checker[] => [new CommittedDurabilityChecker(), new PrefixConsistencyChecker(), new IntegrityChecker(), new ZxidUniquenessChecker(), new IdenticalTreesChecker(), new WatchTriggersChecker()];
    const run = new CheckRun();
    for (const c of pruning()) c.attach?.(run);
    // The txn fields first (the floor reads them), then the floor.
    expect(run.feeds().map((f) => f.kinds)).toEqual([TXN_KINDS, FLOOR_KINDS]);
    // The shape with a lost txn, long enough for every checker to prune several times: fed alone
    // (each pruner with a floor of its own, the checker never attached) and through one run.
    const long = zk4785After(1000);
    const alone = pruning().map((c) => {
      for (const e of long.events) if (isOneOf(e, c.kinds)) c.onEvent(e);
      return { name: c.name, violations: c.finish(long.events.at(-1)), retained: c.retained?.() };
    });
    const shared = pruning();
    const violations = runCheckers(shared, long.events);
    expect(violations.length).toBeGreaterThan(0);
    expect(alone[0]!.retained, "committed-durability pruned on the way (~7 entries a txn without)").toBeLessThan(4000);
    expect(shared.map((c) => ({ name: c.name, violations: violations.filter((v) => v.checker === c.name), retained: c.retained?.() }))).toEqual(alone);
  });
});
