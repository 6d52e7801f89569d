/**
 * zab.sync-packet: the leader sends a learner the sync (DIFF / TRUNC / SNAP) it chose and
 * announced. Hand-written traces, and the canary `sync-always-snap` (a leader that ships a SNAP
 * whatever it chose) caught in its scenarios, which pass without it.
 */
import { describe, expect, it } from "vitest";
import { SyncPacketChecker } from "../../../src/check/zab/sync-packet.js";
import { runChecker } from "./trace-builder.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";

/** Leader s3 syncing s1 and s2: `steps` are "sync:<learner>:<mode>", "send:<learner>:<packet>", "crash". */
function trace(steps: readonly string[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  const add = (e: Omit<TraceEvent, "index" | "atUs">) => events.push({ index: events.length, atUs: events.length * 1000, ...e } as TraceEvent);
  for (const sid of [1, 2, 3]) add({ kind: "zab.state", node: `s${sid}`, fields: { sid, state: "LOOKING" } } as never);
  for (const step of steps) {
    const [what, learner, mode] = step.split(":");
    if (what === "sync") add({ kind: "zab.sync", node: "s3", fields: { sid: 3, learner: Number(learner), mode, peerLastZxid: "0x100000001", zxid: "0x100000002" } } as never);
    else if (what === "send") add({ kind: "send", node: "s3", peer: `s${learner}`, detail: mode, conn: 7 } as never);
    else add({ kind: "crash", node: "s3" } as never);
  }
  return events;
}

const judge = (steps: readonly string[]) => runChecker(new SyncPacketChecker(), trace(steps)).map((v) => v.message);

describe("zab.sync-packet", () => {
  it("passes the packets the leader chose, each learner on its own", () => {
    expect(judge(["sync:1:DIFF", "sync:2:SNAP", "send:2:SNAP", "send:1:DIFF", "send:1:NEWLEADER", "sync:1:TRUNC", "send:1:TRUNC"])).toEqual([]);
  });

  it("catches a packet other than the one chosen, and a sync packet never announced", () => {
    expect(judge(["sync:1:DIFF", "send:1:SNAP"])).toEqual([expect.stringMatching(/s3 \(sid 3\) chose DIFF for s1 \(sid 1\) \(zab.sync\) but sends SNAP/)]);
    expect(judge(["sync:2:SNAP", "send:2:TRUNC"])).toEqual([expect.stringMatching(/chose SNAP for s2 \(sid 2\) \(zab.sync\) but sends TRUNC/)]);
    expect(judge(["sync:1:DIFF", "send:1:DIFF", "send:1:SNAP"])).toEqual([expect.stringMatching(/sends s1 \(sid 1\) a SNAP it never announced/)]);
  });

  it("a crash of the leader forgets what it announced; other packets are not sync packets", () => {
    expect(judge(["sync:1:SNAP", "crash", "sync:1:DIFF", "send:1:DIFF"])).toEqual([]);
    expect(judge(["sync:1:DIFF", "send:1:PING", "send:1:DIFF"])).toEqual([]);
  });

  it("canary sync-always-snap is caught in zab-follower-restart-trunc, which passes without it", async () => {
    const s = loadScenario("zab-follower-restart-trunc");
    const broken = await runScenario(s, { canary: "sync-always-snap" });
    expect(broken.violations.map((v) => v.checker)).toContain("zab.sync-packet");
    const clean = await runScenario(s);
    expect(clean.violations).toEqual([]);
  });
});
