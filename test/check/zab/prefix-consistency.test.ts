import { describe, expect, it } from "vitest";
import { loose } from "../../helpers/loose-events.js";
import fc from "fast-check";
import { PrefixConsistencyChecker } from "../../../src/check/zab/prefix-consistency.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { runChecker, TraceBuilder, z } from "./trace-builder.js";
import { zk1154, zk4785 } from "./scenarios.js";

function check(t: TraceBuilder) {
  return runChecker(new PrefixConsistencyChecker(), t.events);
}

/** s1 leads epoch 1 for s1..s3 and (1,1), (1,2) are delivered everywhere. */
function twoTxns(): TraceBuilder {
  const t = new TraceBuilder().boot(1, 2, 3);
  t.elect(1, [2, 3], 1, z(0, 0));
  t.broadcast(1, z(1, 1), "a", [1, 2, 3]).broadcast(1, z(1, 2), "b", [1, 2, 3]);
  return t;
}

describe("check: zab: prefix consistency", () => {
  it("ZOOKEEPER-1154: a server keeps (1,4), which nobody else has, and then delivers (2,1) → PrefixConsistency", () => {
    const v = check(zk1154());
    expect(v).toHaveLength(1);
    expect(v[0]!.checker).toBe("zab.prefix-consistency");
    expect(v[0]!.message).toContain("PrefixConsistency violated: s1 (sid 1) delivered 0x200000001 (2,1) while its history diverges after 0x100000003 (1,3)");
    expect(v[0]!.message).toContain("it holds 0x100000004 (1,4) (\"txn 4\"), which no other server delivered");
  });

  it("the same server is fine if it is truncated back to (1,3) before it delivers", () => {
    const t = zk1154();
    t.events.splice(t.events.length - 3); // drop the DIFF, the log and the delivery
    t.sync(1, 2, "TRUNC", z(1, 4), z(1, 3)).truncate(1, z(1, 3)).logTxn(1, z(2, 1), "txn 2.1").deliver(1, z(2, 1), "txn 2.1");
    expect(check(t)).toEqual([]);
  });

  it("a recovered uncommitted tail that a new leader also has becomes committed with it", () => {
    const t = twoTxns();
    t.propose(1, 1, z(1, 3), "c").logTxn(1, z(1, 3), "c").logTxn(2, z(1, 3), "c").crash(1).crash(2);
    t.restart(2).recovered(2, z(1, 3), 1).state(3, "LOOKING");
    t.elect(2, [3], 2, z(1, 3), () => t.sync(3, 2, "DIFF", z(1, 2), z(1, 3)).logTxn(3, z(1, 3), "c").deliver(3, z(1, 3), "c"));
    t.broadcast(2, z(2, 1), "d", [2, 3]);
    t.restart(1).recovered(1, z(1, 3), 1).sync(1, 2, "DIFF", z(1, 3), z(2, 1)).logTxn(1, z(2, 1), "d").deliver(1, z(2, 1), "d");
    expect(check(t)).toEqual([]);
  });

  it("fast-forward: logged-but-unapplied txns are replayed into the tree at lead() and at a learner's sync", () => {
    // s1 (leader, epoch 1) and s2 log (1,3); nobody commits it; s1 crashes. s2 goes LOOKING
    // without a restart and leads epoch 2: its whole log is its tree. s3 is DIFF-synced with (1,3).
    const t = twoTxns();
    t.propose(1, 1, z(1, 3), "c").logTxn(1, z(1, 3), "c").logTxn(2, z(1, 3), "c").crash(1);
    for (const s of [2, 3]) t.state(s, "LOOKING");
    t.elect(2, [3], 2, z(1, 3), () => t.sync(3, 2, "DIFF", z(1, 2), z(1, 3)).logTxn(3, z(1, 3), "c").deliver(3, z(1, 3), "c"));
    t.broadcast(2, z(2, 1), "d", [2, 3]);
    // s1 restarts with (1,3) logged and is DIFF-synced from it.
    t.restart(1).recovered(1, z(1, 3), 1).sync(1, 2, "DIFF", z(1, 3), z(2, 1)).logTxn(1, z(2, 1), "d").deliver(1, z(2, 1), "d");
    expect(check(t)).toEqual([]);
  });

  it("a SNAP sent before the leader is established carries the leader's logged tail (its tree holds its whole log)", () => {
    // zab-random-faults seed 1141: s2 logged (1,3), never committed; it leads epoch 2 and SNAPs
    // s3 at (1,3) before NEWLEADER's quorum; establishment commits (1,3); s3 has it via the SNAP.
    const snapAt = (zxid: string) => {
      const t = twoTxns();
      t.propose(1, 1, z(1, 3), "c").logTxn(1, z(1, 3), "c").logTxn(2, z(1, 3), "c").crash(1);
      for (const s of [2, 3]) t.state(s, "LOOKING");
      t.elect(2, [3], 2, z(1, 3), () => t.sync(3, 2, "SNAP", z(1, 2), zxid).snapLoad(3, zxid));
      return t.broadcast(2, z(2, 1), "d", [2, 3]);
    };
    expect(check(snapAt(z(1, 3)))).toEqual([]);
    // A snapshot that stops short of (1,3) leaves a hole, and that is still caught.
    const v = check(snapAt(z(1, 2)));
    expect(v.map((x) => x.message).join("\n")).toMatch(/s3 \(sid 3\) delivered 0x200000001 \(2,1\) while its delivered history skips 0x100000003/);
  });

  it("a server that skips a txn others delivered (a hole) → TotalOrder/GlobalPrimaryOrder, naming who delivered it", () => {
    const t = twoTxns();
    t.broadcast(1, z(1, 3), "c", [1, 2], [1, 2]).propose(1, 1, z(1, 4), "d").deliver(1, z(1, 4), "d").deliver(3, z(1, 4), "d");
    const v = check(t);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain("TotalOrder/GlobalPrimaryOrder violated: s3 (sid 3) delivered 0x100000004 (1,4) while its delivered history skips 0x100000003 (1,3), which s1 (sid 1)");
  });

  it("two servers delivering different txns at one zxid → Agreement", () => {
    const t = twoTxns().deliver(1, z(1, 3), "c").deliver(2, z(1, 3), "c'");
    const v = check(t);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toContain('Agreement violated: s2 (sid 2) delivered 0x100000003 (1,3) while it applied txn "c\'" at 0x100000003 (1,3) where s1 (sid 1)');
  });

  it("delivering again below the recovery point, or out of order → TotalOrder", () => {
    const t = twoTxns().crash(2).restart(2).recovered(2, z(1, 2), 1).deliver(2, z(1, 2), "b");
    expect(check(t)[0]!.message).toContain("TotalOrder violated: s2 (sid 2) delivered 0x100000002 (1,2) after it was already at 0x100000002 (1,2)");
    const u = twoTxns().deliver(3, z(1, 1), "a");
    expect(check(u)[0]!.message).toContain("TotalOrder violated: s3 (sid 3) delivered 0x100000001 (1,1)");
  });

  it("a SNAP load brings a lagging server to the leader's history", () => {
    const t = twoTxns().crash(3);
    t.broadcast(1, z(1, 3), "c", [1, 2]).broadcast(1, z(1, 4), "d", [1, 2]);
    t.restart(3).recovered(3, z(1, 1), 1).sync(3, 1, "SNAP", z(1, 1), z(1, 4)).snapLoad(3, z(1, 4));
    t.broadcast(1, z(1, 5), "e", [1, 2, 3]);
    expect(check(t)).toEqual([]);
  });

  it("ZOOKEEPER-4785 seen from the delivered histories: the new leader skips the committed (1,3)", () => {
    const v = check(zk4785());
    expect(v).toHaveLength(2);
    expect(v[0]!.message).toContain("violated: s1 (sid 1) delivered 0x300000001 (3,1) while its delivered history skips 0x100000003 (1,3)");
    expect(v[1]!.message).toContain("violated: s2 (sid 2) delivered 0x300000001 (3,1) while its delivered history skips 0x100000003 (1,3)");
  });

  it("LocalPrimaryOrder: a leader's counters go up by exactly one and restart at 1 in a new epoch", () => {
    const ok = new TraceBuilder().propose(1, 1, z(1, 1), "a").propose(1, 1, z(1, 2), "b").propose(1, 3, z(3, 1), "c");
    expect(check(ok)).toEqual([]);
    const gap = new TraceBuilder().propose(1, 1, z(1, 1), "a").propose(1, 1, z(1, 3), "b");
    expect(check(gap)[0]!.message).toContain("LocalPrimaryOrder violated: s1 (sid 1) proposed 0x100000003 (1,3), but s1 (sid 1)'s previous proposal was counter 1");
    const late = new TraceBuilder().propose(2, 2, z(2, 2), "a");
    expect(check(late)[0]!.message).toContain("first proposal of epoch 2, which must have counter 1");
    const back = new TraceBuilder().propose(1, 2, z(2, 1), "a").propose(1, 1, z(1, 5), "b");
    expect(check(back)[0]!.message).toContain("already proposed in the later epoch 2");
  });

  it("property: any interleaving of servers delivering prefixes of one committed sequence is consistent; a skipped txn is caught", () => {
    const arb = fc.record({
      epochs: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
      prefixes: fc.array(fc.nat(), { minLength: 3, maxLength: 5 }),
      order: fc.array(fc.nat(), { maxLength: 200 }),
      skip: fc.nat(),
    });
    fc.assert(
      fc.property(arb, ({ epochs, prefixes, order, skip }) => {
        const seq: string[] = [];
        epochs.forEach((n, i) => {
          for (let c = 1; c <= n; c++) seq.push(z(i + 1, c));
        });
        const want = prefixes.map((p) => p % (seq.length + 1));
        const events = interleave(seq, want, order);
        expect(runChecker(new PrefixConsistencyChecker(), events)).toEqual([]);
        // Server 0 skips one txn of the middle of what it delivers (it must deliver a later one).
        if (want[0]! >= 2 && want.some((w, i) => i > 0 && w > skip % (want[0]! - 1))) {
          const victim = seq[skip % (want[0]! - 1)]!;
          const all = interleave(seq, [seq.length, ...want.slice(1)], order);
          const broken = all.filter((e) => !(e.node === "s1" && loose(e).fields!.zxid === victim));
          const v = runChecker(new PrefixConsistencyChecker(), broken.map((e, i) => ({ ...e, index: i, atUs: i })));
          expect(v.length).toBeGreaterThan(0);
        }
      }),
      { seed: 20240611, numRuns: 200 },
    );
  });
});

/** Servers s1..sN deliver want[i] entries of seq each; `order` picks whose turn it is. */
function interleave(seq: string[], want: number[], order: number[]): TraceEvent[] {
  const done = want.map(() => 0);
  const events: TraceEvent[] = [];
  const push = (i: number) => {
    const zxid = seq[done[i]!]!;
    events.push({ index: events.length, atUs: events.length, kind: "zab.deliver", node: `s${i + 1}`, fields: { sid: i + 1, zxid, txn: `t${zxid}` } });
    done[i]!++;
  };
  for (const o of order) {
    const i = o % want.length;
    if (done[i]! < want[i]!) push(i);
  }
  want.forEach((w, i) => {
    while (done[i]! < w) push(i);
  });
  return events;
}
