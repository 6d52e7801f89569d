import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { AddWatchMode, CreateMode, WatcherType } from "../../../src/zk/proto/records.js";
import { WatchTable } from "../../../src/zk/server/watch-manager.js";
import { Harness, RecordingWatcher, S1 } from "./harness.js";

const addWatch = (h: Harness, path: string, mode: number, w: RecordingWatcher) =>
  h.read(OpCode.addWatch, { kind: "AddWatchRequest", path, mode }, w);
const getData = (h: Harness, path: string, w: RecordingWatcher) => h.read(OpCode.getData, { kind: "GetDataRequest", path, watch: true }, w);
const getChildren = (h: Harness, path: string, w: RecordingWatcher) =>
  h.read(OpCode.getChildren, { kind: "GetChildrenRequest", path, watch: true }, w);

describe("zk: watches: §2.2 registration", () => {
  it("exists registers a data watch even when the node does not exist", () => {
    const h = new Harness();
    const w = new RecordingWatcher(1);
    expect(h.exists("/a", w, true).err).toBe(Code.NONODE);
    h.create("/a");
    expect(w.take()).toEqual(["Created:/a"]);
  });
  it("getData / getChildren on NONODE register nothing", () => {
    const h = new Harness();
    const w = new RecordingWatcher(1);
    expect(getData(h, "/a", w).err).toBe(Code.NONODE);
    expect(getChildren(h, "/a", w).err).toBe(Code.NONODE);
    h.create("/a");
    h.create("/a/b");
    expect(w.take()).toEqual([]);
    expect(h.tree.watches.stats()).toEqual({ dataWatches: 0, childWatches: 0, connections: 0, paths: 0 });
  });
  it("a watched read of a closed connection registers nothing (3.8's isDeadWatcher)", () => {
    const h = new Harness();
    h.create("/a");
    const w = Object.assign(new RecordingWatcher(1), { isStale: true });
    expect(getData(h, "/a", w).err).toBe(Code.OK);
    expect(h.tree.watches.stats()).toEqual({ dataWatches: 0, childWatches: 0, connections: 0, paths: 0 });
    h.setData("/a", "x");
    expect(w.take()).toEqual([]);
  });
  it("getData NOAUTH registers nothing", () => {
    const h = new Harness();
    h.create("/secret", "", 0, [{ perms: 2, id: { scheme: "world", id: "anyone" } }]);
    const w = new RecordingWatcher(1);
    expect(getData(h, "/secret", w).err).toBe(Code.NOAUTH);
    expect(h.tree.watches.stats().dataWatches).toBe(0);
  });
  it("one entry per connection per path", () => {
    const h = new Harness();
    h.create("/a");
    const w = new RecordingWatcher(1);
    h.exists("/a", w, true);
    getData(h, "/a", w);
    expect(h.tree.watches.stats()).toEqual({ dataWatches: 1, childWatches: 0, connections: 1, paths: 1 });
    h.setData("/a", "x");
    expect(w.take()).toEqual(["DataChanged:/a"]);
  });
});

describe("zk: watches: §2.3 trigger table", () => {
  it("create P/c: NodeCreated on P/c data watches, NodeChildrenChanged on P child watches", () => {
    const h = new Harness();
    h.create("/p");
    const w = new RecordingWatcher(1);
    h.exists("/p/c", w, true);
    getChildren(h, "/p", w);
    h.create("/p/c");
    expect(w.take()).toEqual(["Created:/p/c", "ChildrenChanged:/p"]);
  });
  it("delete P/c: NodeDeleted once (child-table duplicate suppressed), NodeChildrenChanged on P", () => {
    const h = new Harness();
    h.create("/p");
    h.create("/p/c");
    const w = new RecordingWatcher(1);
    getData(h, "/p/c", w);
    getChildren(h, "/p/c", w);
    getChildren(h, "/p", w);
    h.delete("/p/c");
    expect(w.take()).toEqual(["Deleted:/p/c", "ChildrenChanged:/p"]);
    expect(h.tree.watches.stats()).toEqual({ dataWatches: 0, childWatches: 0, connections: 0, paths: 0 });
  });
  it("delete with only a child watch on the node fires NodeDeleted from the child table", () => {
    const h = new Harness();
    h.create("/n");
    const w = new RecordingWatcher(1);
    getChildren(h, "/n", w);
    h.delete("/n");
    expect(w.take()).toEqual(["Deleted:/n"]);
  });
  it("setData: NodeDataChanged; setACL / check / error txn fire nothing", () => {
    const h = new Harness();
    h.create("/a");
    const w = new RecordingWatcher(1);
    getData(h, "/a", w);
    getChildren(h, "/a", w);
    h.setACL("/a", [{ perms: 31, id: { scheme: "world", id: "anyone" } }]);
    h.setData("/a", "x", 42);
    h.write(OpCode.multi, { kind: "MultiOperationRecord", ops: [{ type: OpCode.check, request: { kind: "CheckVersionRequest", path: "/a", version: 0 } }] });
    expect(w.take()).toEqual([]);
    h.setData("/a", "x");
    expect(w.take()).toEqual(["DataChanged:/a"]);
  });
  it("standard watches are one-shot", () => {
    const h = new Harness();
    h.create("/a");
    const w = new RecordingWatcher(1);
    getData(h, "/a", w);
    h.setData("/a", "1");
    h.setData("/a", "2");
    expect(w.take()).toEqual(["DataChanged:/a"]);
  });
  it("multi: each sub-op fires as applied, in order, with the multi's zxid", () => {
    const h = new Harness();
    h.create("/p");
    const w = new RecordingWatcher(1);
    addWatch(h, "/p", AddWatchMode.PERSISTENT_RECURSIVE, w);
    h.write(OpCode.multi, {
      kind: "MultiOperationRecord",
      ops: [
        { type: OpCode.create, request: { kind: "CreateRequest", path: "/p/a", data: null, acl: [{ perms: 31, id: { scheme: "world", id: "anyone" } }], flags: 0 } },
        { type: OpCode.setData, request: { kind: "SetDataRequest", path: "/p/a", data: null, version: -1 } },
        { type: OpCode.delete, request: { kind: "DeleteRequest", path: "/p/a", version: -1 } },
      ],
    });
    expect(w.events.map((e) => e.zxid)).toEqual([h.lastZxid, h.lastZxid, h.lastZxid]);
    expect(w.take()).toEqual(["Created:/p/a", "DataChanged:/p/a", "Deleted:/p/a"]);
  });
  it("one notification per connection per trigger, delivered in watcherId order", () => {
    const h = new Harness();
    h.create("/a");
    const order: number[] = [];
    const mk = (id: number) => ({ watcherId: id, process: () => order.push(id) });
    const w3 = mk(3);
    const w1 = mk(1);
    const w2 = mk(2);
    for (const w of [w3, w1, w2]) h.read(OpCode.getData, { kind: "GetDataRequest", path: "/a", watch: true }, w);
    h.read(OpCode.addWatch, { kind: "AddWatchRequest", path: "/", mode: AddWatchMode.PERSISTENT_RECURSIVE }, w2);
    h.setData("/a", "x");
    expect(order).toEqual([1, 2, 3]);
  });
});

describe("zk: watches: §2.3 persistent and recursive", () => {
  it("PERSISTENT gets Created, DataChanged, ChildrenChanged and Deleted for its path, and survives", () => {
    const h = new Harness();
    const w = new RecordingWatcher(1);
    expect(addWatch(h, "/a", AddWatchMode.PERSISTENT, w)).toEqual({ err: 0, response: { kind: "ErrorResponse", err: 0 }, disposition: "reply" });
    h.create("/a");
    h.setData("/a", "x");
    h.create("/a/b");
    h.setData("/a/b", "x");
    h.delete("/a/b");
    h.delete("/a");
    h.create("/a");
    expect(w.take()).toEqual([
      "Created:/a",
      "DataChanged:/a",
      "ChildrenChanged:/a",
      "ChildrenChanged:/a",
      "Deleted:/a",
      "Created:/a",
    ]);
  });
  it("PERSISTENT_RECURSIVE: all descendants' Created/Deleted/DataChanged, never ChildrenChanged [probed]", () => {
    const h = new Harness();
    const w = new RecordingWatcher(1);
    addWatch(h, "/r", AddWatchMode.PERSISTENT_RECURSIVE, w);
    h.create("/r");
    h.create("/r/a");
    h.create("/r/a/b");
    h.setData("/r/a/b", "x");
    h.delete("/r/a/b");
    h.create("/rx");
    expect(w.take()).toEqual(["Created:/r", "Created:/r/a", "Created:/r/a/b", "DataChanged:/r/a/b", "Deleted:/r/a/b"]);
  });
  it("recursive on / sees everything", () => {
    const h = new Harness();
    const w = new RecordingWatcher(1);
    addWatch(h, "/", AddWatchMode.PERSISTENT_RECURSIVE, w);
    h.create("/x");
    expect(w.take()).toEqual(["Created:/x"]);
  });
  it("recursive + standard on the same connection: one event per trigger", () => {
    const h = new Harness();
    h.create("/a");
    const w = new RecordingWatcher(1);
    addWatch(h, "/", AddWatchMode.PERSISTENT_RECURSIVE, w);
    getData(h, "/a", w);
    getChildren(h, "/a", w);
    h.delete("/a");
    expect(w.take()).toEqual(["Deleted:/a"]);
  });
  it("addWatch with an unknown mode → MARSHALLINGERROR", () => {
    const h = new Harness();
    expect(addWatch(h, "/a", 7, new RecordingWatcher(1)).err).toBe(Code.MARSHALLINGERROR);
  });
  it("3.8 quirk: a later standard registration on the same path resets the mode to standard", () => {
    const t = new WatchTable();
    const w = new RecordingWatcher(1);
    t.addWatch("/a", w, "PERSISTENT");
    t.addWatch("/a", w);
    expect(t.getMode(w, "/a")).toBe("STANDARD");
  });
});

describe("zk: watches: §2.6 setWatches catch-up", () => {
  it("data: missing → NodeDeleted; mzxid > rel → NodeDataChanged; else re-registered", () => {
    const h = new Harness();
    h.create("/same");
    h.create("/changed");
    const rel = h.lastZxid;
    h.setData("/changed", "x");
    const w = new RecordingWatcher(1);
    h.read(OpCode.setWatches, { kind: "SetWatches", relativeZxid: rel, dataWatches: ["/gone", "/changed", "/same"], existWatches: [], childWatches: [] }, w);
    expect(w.events.every((e) => e.zxid === -1n)).toBe(true);
    expect(w.take()).toEqual(["Deleted:/gone", "DataChanged:/changed"]);
    h.setData("/same", "y");
    expect(w.take()).toEqual(["DataChanged:/same"]);
  });
  it("exist: exists → NodeCreated; else re-registered", () => {
    const h = new Harness();
    h.create("/there");
    const w = new RecordingWatcher(1);
    h.read(OpCode.setWatches, { kind: "SetWatches", relativeZxid: h.lastZxid, dataWatches: [], existWatches: ["/there", "/later"], childWatches: [] }, w);
    expect(w.take()).toEqual(["Created:/there"]);
    h.create("/later");
    expect(w.take()).toEqual(["Created:/later"]);
  });
  it("child: missing → NodeDeleted; pzxid > rel → NodeChildrenChanged; else re-registered", () => {
    const h = new Harness();
    h.create("/p");
    h.create("/q");
    const rel = h.lastZxid;
    h.create("/p/c");
    const w = new RecordingWatcher(1);
    h.read(OpCode.setWatches, { kind: "SetWatches", relativeZxid: rel, dataWatches: [], existWatches: [], childWatches: ["/gone", "/p", "/q"] }, w);
    expect(w.take()).toEqual(["Deleted:/gone", "ChildrenChanged:/p"]);
    h.create("/q/c");
    expect(w.take()).toEqual(["ChildrenChanged:/q"]);
  });
  it("setWatches2: persistent / recursive re-registered without catch-up", () => {
    const h = new Harness();
    h.create("/p");
    const w = new RecordingWatcher(1);
    h.read(
      OpCode.setWatches2,
      { kind: "SetWatches2", relativeZxid: 0n, dataWatches: [], existWatches: [], childWatches: [], persistentWatches: ["/p"], persistentRecursiveWatches: ["/r"] },
      w,
    );
    expect(w.take()).toEqual([]);
    h.create("/p/x");
    h.create("/r");
    h.create("/r/y");
    expect(w.take()).toEqual(["ChildrenChanged:/p", "Created:/r", "Created:/r/y"]);
  });
});

describe("zk: watches: §2.7 removeWatches / checkWatches", () => {
  const check = (h: Harness, path: string, type: number, w: RecordingWatcher) =>
    h.read(OpCode.checkWatches, { kind: "CheckWatchesRequest", path, type }, w).err;
  const remove = (h: Harness, path: string, type: number, w: RecordingWatcher) =>
    h.read(OpCode.removeWatches, { kind: "RemoveWatchesRequest", path, type }, w).err;

  it("NOWATCHER when this connection has no such watch [probed]", () => {
    const h = new Harness();
    h.create("/a");
    const w = new RecordingWatcher(1);
    const other = new RecordingWatcher(2);
    getData(h, "/a", other);
    expect(check(h, "/a", WatcherType.Data, w)).toBe(Code.NOWATCHER);
    expect(remove(h, "/a", WatcherType.Any, w)).toBe(Code.NOWATCHER);
    getData(h, "/a", w);
    expect(check(h, "/a", WatcherType.Children, w)).toBe(Code.NOWATCHER);
    expect(check(h, "/a", WatcherType.Data, w)).toBe(Code.OK);
    expect(check(h, "/a", WatcherType.Any, w)).toBe(Code.OK);
    expect(remove(h, "/a", WatcherType.Data, w)).toBe(Code.OK);
    expect(remove(h, "/a", WatcherType.Data, w)).toBe(Code.NOWATCHER);
    h.setData("/a", "x");
    expect(w.take()).toEqual([]);
    expect(other.take()).toEqual(["DataChanged:/a"]);
  });
  it("Any removes persistent watches from both tables; type 4/5 is MARSHALLINGERROR in 3.8 [probed]", () => {
    const h = new Harness();
    const w = new RecordingWatcher(1);
    addWatch(h, "/a", AddWatchMode.PERSISTENT, w);
    expect(remove(h, "/a", 4, w)).toBe(Code.MARSHALLINGERROR);
    expect(remove(h, "/a", WatcherType.Any, w)).toBe(Code.OK);
    h.create("/a");
    expect(w.take()).toEqual([]);
  });
  it("connection close drops every watch of that connection", () => {
    const h = new Harness();
    h.create("/a");
    const w = new RecordingWatcher(1);
    getData(h, "/a", w);
    getChildren(h, "/a", w);
    addWatch(h, "/", AddWatchMode.PERSISTENT_RECURSIVE, w);
    h.tree.removeCnxn(w);
    h.setData("/a", "x");
    h.create("/a/b");
    expect(w.take()).toEqual([]);
    expect(h.tree.watches.stats()).toEqual({ dataWatches: 0, childWatches: 0, connections: 0, paths: 0 });
  });
  it("ephemeral owner's close fires other sessions' watches", () => {
    const h = new Harness();
    h.create("/e", "", CreateMode.EPHEMERAL, undefined, S1);
    const w = new RecordingWatcher(9);
    h.exists("/e", w, true);
    h.closeSession(S1);
    expect(w.take()).toEqual(["Deleted:/e"]);
  });
});
