import { describe, expect, it } from "vitest";
import { SnapshotPolicyChecker, SKIP_VALID_SNAPSHOT_EXISTS } from "../../../src/check/zk/snapshot-policy.js";
import { runCheckers } from "../../../src/check/checker.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";

/** A synthetic trace, 1 ms per event; `detail` for the disk's file names. */
class Trace {
  readonly events: TraceEvent[] = [];
  add(kind: string, node: string, fields?: Record<string, unknown>, detail?: string): this {
    const e: LooseEvent = { index: this.events.length, atUs: (this.events.length + 1) * 1000, kind, node };
    if (fields !== undefined) e.fields = fields;
    if (detail !== undefined) e.detail = detail;
    this.events.push(asEvent(e));
    return this;
  }
  apply(node: string, zxid: string): this {
    return this.add("zk.apply", node, { zxid, op: "create", session: "0x5", cxid: 1, err: undefined });
  }
}

const messages = (t: Trace) => runCheckers([new SnapshotPolicyChecker()], t.events).map((v) => v.message);

describe("check: zk.snapshot-policy", () => {
  it("one writer: a snapshot that finishes is the latest started", () => {
    const ok = new Trace().add("zk.snapshot.start", "s1", { zxid: "0x5" }).add("zk.snapshot.done", "s1", { zxid: "0x5", nodes: 3 });
    expect(messages(ok)).toEqual([]);
    const two = new Trace().add("zk.snapshot.start", "s1", { zxid: "0x5" }).add("zk.snapshot.start", "s1", { zxid: "0x9" }).add("zk.snapshot.done", "s1", { zxid: "0x5", nodes: 3 });
    expect(messages(two)).toEqual(["s1 finished snapshot 0x5, but the latest started is 0x9: two snapshot writers at once (a new snapshot must stop the one before)"]);
    // A crash ends the snapshot in progress; the next start is the only one.
    const crashed = new Trace().add("zk.snapshot.start", "s1", { zxid: "0x5" }).add("crash", "s1").add("restart", "s1").add("zk.snapshot.start", "s1", { zxid: "0x7" }).add("zk.snapshot.done", "s1", { zxid: "0x7", nodes: 3 });
    expect(messages(crashed)).toEqual([]);
  });

  it("a failure is a refused write of the snapshot's file", () => {
    const refused = new Trace().add("zk.snapshot.start", "s1", { zxid: "0x1a" }).add("disk.enospc", "s1", undefined, "version-2/snapshot.1a").add("zk.snapshot.done", "s1", { zxid: "0x1a", err: "write failed" });
    expect(messages(refused)).toEqual([]);
    const otherFile = new Trace().add("zk.snapshot.start", "s1", { zxid: "0x1a" }).add("disk.enospc", "s1", undefined, "version-2/log.1").add("zk.snapshot.done", "s1", { zxid: "0x1a", err: "write failed" });
    expect(messages(otherFile)).toEqual(["s1 reported snapshot 0x1a failed (write failed), but no write of version-2/snapshot.1a was refused since it started: a snapshot that did not fail reported as failed"]);
  });

  it("a skip for an existing snapshot needs a snapshot file at or above the last applied zxid", () => {
    const skip = (t: Trace) => messages(t.add("zk.snapshot.skipped", "s1", { reason: SKIP_VALID_SNAPSHOT_EXISTS }));
    expect(skip(new Trace().apply("s1", "0x10").add("disk.replace", "s1", undefined, "version-2/snapshot.10"))).toEqual([]);
    expect(skip(new Trace().apply("s1", "0x10").add("disk.replace", "s1", undefined, "version-2/snapshot.f"))).toEqual([
      's1 skipped a snapshot because "a valid snapshot of this zxid exists", but it applied 0x10 and holds no snapshot file of that zxid or later: the server stopped taking snapshots',
    ]);
    // Deleted (purged) files do not count; nothing applied since a restart or a truncation: not judged.
    expect(skip(new Trace().apply("s1", "0x10").add("disk.replace", "s1", undefined, "version-2/snapshot.10").add("disk.delete", "s1", undefined, "version-2/snapshot.10"))).toHaveLength(1);
    expect(skip(new Trace().apply("s1", "0x10").add("restart", "s1"))).toEqual([]);
    expect(skip(new Trace().apply("s1", "0x10").add("zab.truncate", "s1", { sid: 1, zxid: "0x8" }))).toEqual([]);
    // "too busy to snap" is not this rule's.
    expect(messages(new Trace().apply("s1", "0x10").add("zk.snapshot.skipped", "s1", { reason: "too busy to snap" }))).toEqual([]);
  });
});
