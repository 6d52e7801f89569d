/**
 * zab.learner-sync: what a learner holds before it ACKs NEWLEADER (the new currentEpoch, its
 * synced txns durable) and before it enters BROADCAST (UPTODATE). Canaries: hand-written broken
 * orders, and the bug zoo's NEWLEADER defects (ZK-4643, 4646, 4785), caught at the ACK itself.
 */
import { describe, expect, it } from "vitest";
import { LearnerSyncChecker } from "../../../src/check/zab/learner-sync.js";
import { runChecker } from "./trace-builder.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";

/** A learner s2's sync with leader s1 on connection 7, in the order `steps` gives. */
function sync(steps: readonly string[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  const add = (kind: string, more: Partial<TraceEvent> = {}) => events.push({ index: events.length, atUs: events.length * 1000, kind, node: "s2", ...more } as TraceEvent);
  const step: Record<string, () => void> = {
    leaderinfo: () => add("deliver", { peer: "s1", detail: "LEADERINFO", conn: 7 }),
    sync: () => add("zab.phase", { fields: { sid: 2, phase: "SYNCHRONIZATION", epoch: 2 } }),
    newleader: () => add("deliver", { peer: "s1", detail: "NEWLEADER", conn: 7 }),
    append: () => add("disk.append", { id: 1, detail: "version-2/log.100000001", fields: { record: "0x100000001" } }),
    fsync: () => add("disk.fsync.done", { id: 1, detail: "version-2/log.100000001", fields: { bytes: 10 } }),
    epochFile: () => add("disk.replace", { id: 2, detail: "currentEpoch" }),
    epoch: () => add("zab.epoch.current", { fields: { sid: 2, epoch: 2 } }),
    ack: () => add("send", { peer: "s1", detail: "ACK", conn: 7 }),
    uptodate: () => add("deliver", { peer: "s1", detail: "UPTODATE", conn: 7 }),
    broadcast: () => add("zab.phase", { fields: { sid: 2, phase: "BROADCAST", epoch: 2 } }),
  };
  for (const s of steps) step[s]!();
  return events;
}

const judge = (steps: readonly string[]) => runChecker(new LearnerSyncChecker(), sync(steps)).map((v) => v.message);

describe("zab.learner-sync", () => {
  it("the 3.8 order passes: synced txns durable, currentEpoch, ACK, UPTODATE, BROADCAST", () => {
    expect(judge(["leaderinfo", "sync", "newleader", "append", "fsync", "epochFile", "epoch", "ack", "uptodate", "broadcast"])).toEqual([]);
  });

  it("catches an ACK before currentEpoch, an ACK or a currentEpoch over unsynced txns, and BROADCAST without UPTODATE", () => {
    expect(judge(["leaderinfo", "sync", "newleader", "ack", "epochFile", "epoch"])).toEqual([expect.stringMatching(/s2 ACKs NEWLEADER before it has written the new currentEpoch/)]);
    expect(judge(["leaderinfo", "sync", "newleader", "append", "epochFile", "epoch", "ack", "fsync"])).toEqual([
      expect.stringMatching(/s2 writes currentEpoch while 1 txn-log append\(s\) are not yet durable/),
      expect.stringMatching(/s2 ACKs NEWLEADER while 1 txn-log append\(s\) are not yet durable/),
    ]);
    expect(judge(["leaderinfo", "sync", "newleader", "epochFile", "epoch", "ack", "broadcast"])).toEqual([expect.stringMatching(/s2 \(sid 2\) enters BROADCAST without having received UPTODATE/)]);
  });

  it("a leader's own BROADCAST (no LEADERINFO received) is not a learner's", () => {
    expect(judge(["sync", "broadcast"])).toEqual([]);
  });

  it.each(["ZK-4643", "ZK-4646", "ZK-4785"])("the bug zoo's %s is caught at the NEWLEADER ACK; its scenario passes without the bug", async (bug) => {
    const s = loadScenario(`bug-${bug.slice(3)}`);
    const broken = await runScenario(s, { bugs: [bug] });
    expect(broken.violations.map((v) => v.checker)).toContain("zab.learner-sync");
    const fixed = await runScenario(s);
    expect(fixed.violations.filter((v) => v.checker === "zab.learner-sync")).toEqual([]);
  });
});
