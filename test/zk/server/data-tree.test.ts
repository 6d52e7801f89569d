import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { CreateMode, Ids, Perms, makeZxid } from "../../../src/zk/proto/records.js";
import fc from "fast-check";
import { DataTree, type DataNode } from "../../../src/zk/server/data-tree.js";
import { Harness, RecordingWatcher, S1, S2, dec, enc } from "./harness.js";

describe("zk: data-tree: §1.6 initial tree", () => {
  it("/ → zookeeper → {quota, config}, all-zero stats [probed]", () => {
    const t = new DataTree();
    expect(t.getChildren("/")?.children).toEqual(["zookeeper"]);
    expect(t.getChildren("/zookeeper")?.children).toEqual(["config", "quota"]);
    const root = t.statNode("/");
    expect(root).toMatchObject({ czxid: 0n, mzxid: 0n, version: 0, cversion: -1, aversion: 0, numChildren: 1, pzxid: 0n });
    expect(t.getACL("/")?.acl).toEqual(Ids.OPEN_ACL_UNSAFE);
  });
  it("§1.7 /zookeeper/config: world:anyone:READ, aversion −1, empty data [probed]", () => {
    const t = new DataTree();
    expect(t.getACL("/zookeeper/config")?.acl).toEqual([{ perms: Perms.READ, id: { scheme: "world", id: "anyone" } }]);
    expect(t.statNode("/zookeeper/config")?.aversion).toBe(-1);
    expect(t.getData("/zookeeper/config")?.data).toEqual(new Uint8Array(0));
  });
  it("nodeCount counts the Java root alias (5 for a fresh tree); approximateDataSize sums path+data", () => {
    const t = new DataTree();
    expect(t.nodeCount()).toBe(5);
    expect(t.approximateDataSize()).toBe("/".length + "/zookeeper".length + "/zookeeper/quota".length + "/zookeeper/config".length);
  });
});

describe("zk: data-tree: §1.6 Stat rules", () => {
  it("create child: czxid=mzxid=pzxid=Z, ctime=mtime=T, versions 0, dataLength", () => {
    const h = new Harness();
    h.timeMs = 777;
    h.create("/a", "hello");
    const z = h.lastZxid;
    expect(h.stat("/a")).toEqual({
      czxid: z,
      mzxid: z,
      ctime: 777,
      mtime: 777,
      version: 0,
      cversion: 0,
      aversion: 0,
      ephemeralOwner: 0n,
      dataLength: 5,
      numChildren: 0,
      pzxid: z,
    });
  });
  it("create child: parent cversion+1, pzxid=Z, numChildren+1, mzxid/mtime/version unchanged", () => {
    const h = new Harness();
    h.timeMs = 1;
    h.create("/p");
    const before = h.stat("/p");
    h.timeMs = 2;
    h.create("/p/c");
    const after = h.stat("/p");
    expect(after.cversion).toBe(before.cversion + 1);
    expect(after.pzxid).toBe(h.lastZxid);
    expect(after.numChildren).toBe(1);
    expect([after.mzxid, after.mtime, after.version]).toEqual([before.mzxid, before.mtime, before.version]);
  });
  it("cversion visible after delete: 4 creates → 4; one delete → 5; one more create → 6 [probed]", () => {
    const h = new Harness();
    h.create("/p");
    for (const c of ["a", "b", "c", "d"]) h.create(`/p/${c}`);
    expect(h.stat("/p").cversion).toBe(4);
    h.delete("/p/a");
    expect(h.stat("/p").cversion).toBe(5);
    expect(h.tree.getNode("/p")?.stat.cversion).toBe(4);
    h.create("/p/e");
    expect(h.stat("/p").cversion).toBe(6);
  });
  it("delete child: parent pzxid=Z, numChildren−1, mzxid unchanged", () => {
    const h = new Harness();
    h.create("/p");
    h.create("/p/c");
    const mz = h.stat("/p").mzxid;
    h.delete("/p/c");
    expect(h.stat("/p")).toMatchObject({ pzxid: h.lastZxid, numChildren: 0, mzxid: mz });
  });
  it("delete: pzxid only moves if the zxid is larger (replay)", () => {
    const t = new DataTree();
    const hdr = (counter: number, type: number) => ({ clientId: S1, cxid: 0, zxid: makeZxid(1, counter), time: 0, type });
    t.processTxn(hdr(1, OpCode.create), { kind: "CreateTxn", path: "/p", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: -1 });
    t.processTxn(hdr(5, OpCode.create), { kind: "CreateTxn", path: "/p/c", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: 1 });
    t.processTxn(hdr(3, OpCode.delete), { kind: "DeleteTxn", path: "/p/c" });
    expect(t.statNode("/p")?.pzxid).toBe(makeZxid(1, 5));
  });
  it("create replay: parent cversion/pzxid never move backwards; NODEEXISTS repairs them", () => {
    const t = new DataTree();
    const hdr = (counter: number) => ({ clientId: S1, cxid: 0, zxid: makeZxid(1, counter), time: 0, type: OpCode.create });
    t.processTxn(hdr(1), { kind: "CreateTxn", path: "/p", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: -1 });
    t.processTxn(hdr(2), { kind: "CreateTxn", path: "/p/c", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: 5 });
    expect(t.getNode("/p")?.stat.cversion).toBe(5);
    t.processTxn(hdr(3), { kind: "CreateTxn", path: "/p/d", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: 2 });
    expect(t.getNode("/p")?.stat).toMatchObject({ cversion: 5, pzxid: makeZxid(1, 2) });
    const r = t.processTxn(hdr(4), { kind: "CreateTxn", path: "/p/c", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: 9 });
    expect(r.err).toBe(Code.NODEEXISTS);
    expect(t.getNode("/p")?.stat).toMatchObject({ cversion: 9, pzxid: makeZxid(1, 4) });
  });
  it("setData: mzxid=Z, mtime=T, version+1, dataLength; parent unchanged", () => {
    const h = new Harness();
    h.create("/p");
    h.create("/p/c", "ab");
    const parent = h.stat("/p");
    h.timeMs = 99;
    const r = h.setData("/p/c", "abcd");
    expect(r.response?.kind === "SetDataResponse" && r.response.stat).toMatchObject({ mzxid: h.lastZxid, mtime: 99, version: 1, dataLength: 4 });
    expect(h.stat("/p")).toEqual(parent);
    expect(dec(h.tree.getData("/p/c")?.data ?? null)).toBe("abcd");
  });
  it("null data (Jute length −1) is stored and read back as null, dataLength 0; empty data stays empty", () => {
    const h = new Harness();
    const created = h.write(OpCode.create, { kind: "CreateRequest", path: "/n", data: null, acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
    expect(created.prep.kind === "txn" && created.prep.entry.txn).toMatchObject({ kind: "CreateTxn", data: null });
    expect(h.stat("/n").dataLength).toBe(0);
    const read = h.read(OpCode.getData, { kind: "GetDataRequest", path: "/n", watch: false });
    expect(read.response).toMatchObject({ kind: "GetDataResponse", data: null });
    h.create("/e");
    expect(h.tree.getData("/e")?.data).toEqual(new Uint8Array(0));
    h.setData("/e", "x");
    h.write(OpCode.setData, { kind: "SetDataRequest", path: "/e", data: null, version: -1 });
    expect(h.tree.getData("/e")).toMatchObject({ data: null, stat: { version: 2, dataLength: 0 } });
    const copy = DataTree.deserialize(h.tree.serialize());
    expect(copy.getData("/n")?.data).toBeNull();
    expect(copy.digest()).toBe(h.tree.digest());
  });
  it("setACL: aversion+1 only, mzxid/mtime unchanged [probed]", () => {
    const h = new Harness();
    h.create("/a");
    const before = h.stat("/a");
    h.setACL("/a", Ids.READ_ACL_UNSAFE);
    expect(h.stat("/a")).toEqual({ ...before, aversion: 1 });
  });
  it("check / failed op / error txn change nothing", () => {
    const h = new Harness();
    h.create("/a");
    const d = h.tree.digest();
    h.setData("/a", "x", 9);
    h.write(OpCode.multi, { kind: "MultiOperationRecord", ops: [{ type: OpCode.check, request: { kind: "CheckVersionRequest", path: "/a", version: 0 } }] });
    expect(h.tree.digest()).toBe(d);
  });
});

describe("zk: data-tree: §1.7 counts and ephemerals", () => {
  it("getAllChildrenNumber: all descendants; for / every node but the root [probed]", () => {
    const h = new Harness();
    h.create("/a");
    h.create("/a/b");
    h.create("/a/b/c");
    h.create("/ab");
    expect(h.tree.getAllChildrenNumber("/a")).toBe(2);
    expect(h.tree.getAllChildrenNumber("/a/b/c")).toBe(0);
    expect(h.tree.getAllChildrenNumber("/")).toBe(3 + 4);
  });
  it("getEphemerals(prefix): empty, blank or / = all; otherwise startsWith", () => {
    const h = new Harness();
    h.create("/app");
    h.create("/app/e1", "", CreateMode.EPHEMERAL);
    h.create("/b", "", CreateMode.EPHEMERAL);
    h.create("/app/e2", "", CreateMode.EPHEMERAL, Ids.OPEN_ACL_UNSAFE, S2);
    expect(h.tree.getEphemerals(S1)).toEqual(["/app/e1", "/b"]);
    expect(h.tree.getEphemerals(S1, "/")).toEqual(["/app/e1", "/b"]);
    expect(h.tree.getEphemerals(S1, " ")).toEqual(["/app/e1", "/b"]);
    expect(h.tree.getEphemerals(S1, "/ap")).toEqual(["/app/e1"]);
    expect(h.tree.getEphemerals(S2)).toEqual(["/app/e2"]);
  });
});

describe("zk: data-tree: §3.4 closeSession", () => {
  it("deletes the session's ephemerals, fires watches, drops the session", () => {
    const h = new Harness();
    h.createSession(S1, 6000);
    expect(h.tree.sessionsWithTimeouts.get(S1)).toBe(6000);
    h.create("/p");
    h.create("/p/e", "", CreateMode.EPHEMERAL);
    h.create("/keep", "", CreateMode.EPHEMERAL, Ids.OPEN_ACL_UNSAFE, S2);
    const w = new RecordingWatcher(7);
    h.exists("/p/e", w, true);
    h.read(OpCode.getChildren, { kind: "GetChildrenRequest", path: "/p", watch: true }, w);
    const r = h.closeSession(S1);
    expect(r.reply?.disposition).toBe("replyThenClose");
    expect(h.tree.getNode("/p/e")).toBeUndefined();
    expect(h.tree.getNode("/keep")).toBeDefined();
    expect(h.tree.getEphemerals(S1)).toEqual([]);
    expect(h.tree.sessionsWithTimeouts.has(S1)).toBe(false);
    expect(w.take()).toEqual(["Deleted:/p/e", "ChildrenChanged:/p"]);
    expect(h.stat("/p").pzxid).toBe(h.lastZxid);
  });
  it("also removes ephemerals the txn did not list; ignores listed paths that are gone", () => {
    const t = new DataTree();
    const hdr = (counter: number, type: number) => ({ clientId: S1, cxid: 0, zxid: makeZxid(1, counter), time: 0, type });
    t.processTxn(hdr(1, OpCode.create), { kind: "CreateTxn", path: "/e", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: true, parentCVersion: -1 });
    const r = t.processTxn(hdr(2, OpCode.closeSession), { kind: "CloseSessionTxn", paths2Delete: ["/not-there"] });
    expect(r.err).toBe(0);
    expect(t.getNode("/e")).toBeUndefined();
  });
});

describe("zk: data-tree: snapshots and digest", () => {
  const populate = (h: Harness) => {
    h.create("/a", "data-a");
    h.create("/a/b", "x", CreateMode.EPHEMERAL);
    h.create("/a-b");
    h.create("/a/s-", "", CreateMode.PERSISTENT_SEQUENTIAL);
    h.delete("/a-b");
    h.setACL("/a", Ids.READ_ACL_UNSAFE);
    h.write(OpCode.createContainer, { kind: "CreateRequest", path: "/c", data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, flags: CreateMode.CONTAINER });
  };
  it("serialize → deserialize round-trips: same digest, stats, ephemerals, containers, zxid", () => {
    const h = new Harness();
    populate(h);
    h.createSession(S1, 4000);
    const snap = h.tree.serialize();
    const copy = DataTree.deserialize(snap);
    expect(copy.digest()).toBe(h.tree.digest());
    expect(copy.serialize()).toEqual(snap);
    expect(copy.statNode("/a")).toEqual(h.tree.statNode("/a"));
    expect(copy.getEphemerals(S1)).toEqual(["/a/b"]);
    expect(copy.getContainers()).toEqual(["/c"]);
    expect(copy.lastProcessedZxid).toBe(h.tree.lastProcessedZxid);
    expect(copy.nodeCount()).toBe(h.tree.nodeCount());
    expect(copy.sessionsWithTimeouts.get(S1)).toBe(4000);
  });
  it("the snapshot is a deep copy", () => {
    const h = new Harness();
    populate(h);
    const snap = h.tree.serialize();
    const d = h.tree.digest();
    const first = snap.nodes[0];
    if (first !== undefined) first.stat.version = 999;
    expect(h.tree.digest()).toBe(d);
    const copy = DataTree.deserialize(h.tree.serialize());
    expect(h.setData("/c", "changed").err).toBe(Code.OK);
    expect(copy.digest()).toBe(d);
    expect(h.tree.digest()).not.toBe(d);
  });
  it("two replicas applying the same txns have equal digests; any difference shows", () => {
    const a = new Harness();
    const b = new Harness();
    populate(a);
    populate(b);
    expect(a.tree.digest()).toBe(b.tree.digest());
    b.setData("/a/b", "y");
    expect(a.tree.digest()).not.toBe(b.tree.digest());
  });
});

describe("zk: data-tree: the incremental tree digest", () => {
  const pathArb = fc.constantFrom("/a", "/b", "/a/x", "/a/y", "/b/z", "/a/x/q");
  const stepArb = fc.oneof(
    fc.record({ op: fc.constant("create" as const), path: pathArb, data: fc.string({ maxLength: 6 }), mode: fc.constantFrom(CreateMode.PERSISTENT, CreateMode.EPHEMERAL, CreateMode.PERSISTENT_SEQUENTIAL, CreateMode.EPHEMERAL_SEQUENTIAL), session: fc.constantFrom(S1, S2) }),
    fc.record({ op: fc.constant("delete" as const), path: pathArb }),
    fc.record({ op: fc.constant("setData" as const), path: pathArb, data: fc.string({ maxLength: 6 }) }),
    fc.record({ op: fc.constant("setACL" as const), path: pathArb }),
    fc.record({ op: fc.constant("createSession" as const), session: fc.constantFrom(S1, S2), timeoutMs: fc.constantFrom(4000, 6000) }),
    fc.record({ op: fc.constant("closeSession" as const), session: fc.constantFrom(S1, S2) }),
  );
  type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;
  const run = (h: Harness, step: Step): void => {
    switch (step.op) {
      case "create":
        h.create(step.path, step.data, step.mode, Ids.OPEN_ACL_UNSAFE, step.session);
        return;
      case "delete":
        h.delete(step.path);
        return;
      case "setData":
        h.setData(step.path, step.data);
        return;
      case "setACL":
        h.setACL(step.path, Ids.READ_ACL_UNSAFE);
        return;
      case "createSession":
        h.createSession(step.session, step.timeoutMs);
        return;
      case "closeSession":
        h.closeSession(step.session);
        return;
    }
  };

  it("after every txn, equals the digest recomputed from scratch; a snapshot round trip keeps it", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        const h = new Harness();
        for (const step of steps) {
          run(h, step);
          expect(h.tree.digest()).toBe(h.tree.digestFromScratch());
        }
        const copy = DataTree.deserialize(h.tree.serialize());
        expect(copy.digest()).toBe(h.tree.digest());
        // The restored tree keeps its digest current too.
        for (const path of ["/a", "/a/x", "/b"]) copy.setData(path, enc("restored"), 99, makeZxid(9, 1), 5);
        expect(copy.digest()).toBe(copy.digestFromScratch());
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it("a replay over a fuzzy snapshot that re-creates an orphaned child keeps the digest current (NodeHashMapImpl.put)", () => {
    // The snapshot holds /a and /a/b; the log replays delete /a (the child stays mapped, as in
    // Java's deleteNode), create /a, create /a/b: the new /a/b replaces the orphan at its path.
    const h = new Harness();
    h.create("/a");
    h.create("/a/b", "child");
    const tree = DataTree.deserialize(h.tree.serialize());
    expect(tree.deleteNode("/a", makeZxid(1, 10))).toBe(Code.OK);
    expect(tree.getNode("/a/b"), "the orphan is still mapped").toBeDefined();
    expect(tree.createNode("/a", enc(""), Ids.OPEN_ACL_UNSAFE, 0n, -1, makeZxid(1, 11), 11)).toBe(Code.OK);
    expect(tree.createNode("/a/b", enc("child"), Ids.OPEN_ACL_UNSAFE, 0n, -1, makeZxid(1, 12), 12)).toBe(Code.OK);
    expect(tree.digest()).toBe(tree.digestFromScratch());
  });

  it("canary: a change that bypasses the digest hooks is caught by the from-scratch comparison", () => {
    const h = new Harness();
    h.create("/a", "before");
    expect(h.tree.digest()).toBe(h.tree.digestFromScratch());
    (h.tree.getNode("/a") as DataNode).data = enc("after");
    expect(h.tree.digest()).not.toBe(h.tree.digestFromScratch());
  });
});
