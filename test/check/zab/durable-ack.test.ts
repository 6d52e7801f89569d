import { describe, expect, it } from "vitest";
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";
import { DURABLE_KEPT, DurableAckChecker } from "../../../src/check/zab/durable-ack.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenario } from "../../../src/scenario/run.js";
import { runChecker, z } from "./trace-builder.js";

/** A small trace of one node's disk and ACKs, events 1 ms apart. */
class Disk {
  readonly events: TraceEvent[] = [];
  private readonly ops = new Map<string, number>();
  private push(kind: string, node: string, extra: Partial<LooseEvent> = {}): this {
    this.events.push(asEvent({ index: this.events.length, atUs: (this.events.length + 1) * 1000, kind, node, ...extra }));
    return this;
  }
  /** A labelled txn-log append; returns its disk operation number through `last`. */
  append(node: string, zxid: string, file = "version-2/log.100000001"): this {
    this.ops.set(node, (this.ops.get(node) ?? 0) + 1);
    return this.push("disk.append", node, { id: 64, detail: file, fields: { record: zxid } });
  }
  /** An unlabelled write (a snapshot chunk, an epoch file): it counts as a disk operation. */
  replace(node: string, file: string): this {
    this.ops.set(node, (this.ops.get(node) ?? 0) + 1);
    return this.push("disk.replace", node, { id: 8, detail: file });
  }
  /** An fsync of `file` covering every operation on `node` so far. */
  fsynced(node: string, file = "version-2/log.100000001"): this {
    return this.push("disk.fsync.done", node, { id: this.ops.get(node) ?? 0, detail: file, fields: { bytes: 64 } });
  }
  crash(node: string): this {
    return this.push("crash", node);
  }
  ack(node: string, sid: number, from: number, zxid: string): this {
    return this.push("zab.ack", node, { fields: { sid, from, zxid } });
  }
  snapLoad(node: string): this {
    return this.push("zab.snap.load", node, { fields: { sid: Number(node.slice(1)), zxid: "0x100000005" } });
  }
  recovered(node: string): this {
    return this.push("zab.recovered", node, { fields: { sid: Number(node.slice(1)), lastZxid: "0x0", currentEpoch: 0, acceptedEpoch: 1 } });
  }
  /** A learner's ACK on the wire (the kernel's `send` event: `detail` is the packet type). */
  sendAck(node: string, to = "s1"): this {
    return this.push("send", node, { peer: to, id: this.events.length + 1, detail: "ACK" });
  }
  connect(client: string, server: string): this {
    return this.push("client.connect", client, { fields: { client, server, session: "0x1", conn: 1 } });
  }
  reply(client: string, zxid: string): this {
    return this.push("client.complete", client, { fields: { client, session: "0x1", opId: 1, outcome: "ok", zxid } });
  }
}

const check = (d: Disk, checker = new DurableAckChecker()) => runChecker(checker, d.events).map((v) => v.message);

describe("check: zab.durable-ack", () => {
  it("an ACK after the append and the fsync covering it passes; one between them is a violation naming the file", () => {
    expect(check(new Disk().append("s2", z(1, 1)).fsynced("s2").ack("s2", 2, 2, z(1, 1)))).toEqual([]);
    const early = check(new Disk().append("s2", z(1, 1)).ack("s2", 2, 2, z(1, 1)).fsynced("s2"));
    expect(early).toHaveLength(1);
    expect(early[0]).toMatch(/^s2 ACKs 0x100000001 .* before it is durable: appended to version-2\/log\.100000001/);
  });

  it("an fsync of another file, or one issued before the append, does not cover it", () => {
    expect(check(new Disk().append("s2", z(1, 1)).fsynced("s2", "version-2/log.0").ack("s2", 2, 2, z(1, 1)))).toHaveLength(1);
    // The fsync's mark counts every disk operation: the replace after the append is covered too.
    expect(check(new Disk().append("s2", z(1, 1)).replace("s2", "currentEpoch").fsynced("s2").ack("s2", 2, 2, z(1, 1)))).toEqual([]);
  });

  it("a crash loses what was not fsynced: an ACK after the restart of a txn never appended again is a violation", () => {
    const v = check(new Disk().append("s2", z(1, 1)).crash("s2").ack("s2", 2, 2, z(1, 1)));
    expect(v).toEqual([`s2 ACKs ${z(1, 1)} (1,1) without having appended it to its txn log and fsynced it`]);
  });

  it("the leader counting a learner's ACK (from ≠ sid) is not judged on the leader's disk", () => {
    expect(check(new Disk().ack("s1", 1, 2, z(1, 1)))).toEqual([]);
    expect(check(new Disk().ack("s1", 1, 1, z(1, 1)))).toHaveLength(1);
  });

  it("state stays bounded: an ACK forgets what became durable before it; an observer that never ACKs is capped", () => {
    const d = new Disk();
    for (let i = 1; i <= 50; i++) d.append("s2", z(1, i));
    d.fsynced("s2").ack("s2", 2, 2, z(1, 40));
    const c = new DurableAckChecker();
    expect(runChecker(c, d.events)).toEqual([]);
    expect(c.retained()).toBe(10);
    const o = new Disk();
    for (let i = 1; i <= DURABLE_KEPT + 100; i++) o.append("s4", z(1, i)).fsynced("s4");
    // The oldest were forgotten: an ACK of one of them is not judged; a newer one still is found.
    o.ack("s4", 4, 4, z(1, 3)).ack("s4", 4, 4, z(1, DURABLE_KEPT + 100));
    const oc = new DurableAckChecker();
    expect(runChecker(oc, o.events)).toEqual([]);
    expect(oc.retained()).toBeLessThanOrEqual(DURABLE_KEPT);
  });

  // The learner-acks-before-snapshot canary is caught by this rule in zab-follower-snap (src/scenario/canaries.ts).
  it("a learner that loaded a SNAP sends no ACK until the snapshot it writes is covered by an fsync", () => {
    const snap = "version-2/snapshot.100000005";
    expect(check(new Disk().snapLoad("s2").replace("s2", snap).fsynced("s2", snap).sendAck("s2").sendAck("s2"))).toEqual([]);
    expect(check(new Disk().snapLoad("s2").replace("s2", snap).sendAck("s2").fsynced("s2", snap))).toEqual([
      `s2 sends an ACK while the leader's snapshot it loaded (SNAP) is in memory only: its snapshot ${snap} (disk op 1) is not covered by a completed fsync; a crash now loses the history its NEWLEADER ACK vouched for`,
    ]);
    expect(check(new Disk().snapLoad("s2").sendAck("s2"))[0]).toMatch(/it has not written its snapshot yet/);
    // Another file's fsync does not cover it; a DIFF learner (no snap load) is not held to it.
    expect(check(new Disk().snapLoad("s2").replace("s2", snap).fsynced("s2", "currentEpoch").sendAck("s2"))).toHaveLength(1);
    expect(check(new Disk().replace("s2", snap).sendAck("s2"))).toEqual([]);
    // A crash, or the tree dropped back to the disk's, ends the in-memory SNAP.
    expect(check(new Disk().snapLoad("s2").replace("s2", snap).crash("s2").sendAck("s2"))).toEqual([]);
    expect(check(new Disk().snapLoad("s2").recovered("s2").sendAck("s2"))).toEqual([]);
  });

  it("with replies (a standalone server): an ok reply carrying a zxid the server has not fsynced is a violation", () => {
    const replies = () => new DurableAckChecker("zk.durable-reply", { replies: true });
    const ok = new Disk().connect("c1", "s1").append("s1", "0x1").fsynced("s1").reply("c1", "0x1");
    expect(check(ok, replies())).toEqual([]);
    const early = new Disk().connect("c1", "s1").append("s1", "0x1").reply("c1", "0x1").fsynced("s1");
    expect(check(early, replies())).toEqual(["c1 got an ok reply with zxid 0x1 (0,1) from s1, whose txn log is durable only up to 0x0 (0,0): the server answered before its fsync"]);
    // Without `replies` (an ensemble, where a follower may answer before its own fsync) replies are not read.
    expect(check(early)).toEqual([]);
  });

  it("the follower-ack-before-fsync canary is caught in zab-leader-crash-before-commit by zab.durable-ack alone; the scenario passes without it", async () => {
    const scenario = loadScenario("zab-leader-crash-before-commit");
    const broken = await runScenario(scenario, { seed: 1, canary: "follower-ack-before-fsync" });
    expect(broken.violations.length).toBeGreaterThan(0);
    expect(new Set(broken.violations.map((v) => v.checker))).toEqual(new Set(["zab.durable-ack"]));
    const clean = await runScenario(scenario, { seed: 1 });
    expect(clean.violations).toEqual([]);
  });
});
