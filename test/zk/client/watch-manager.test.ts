/** ZKWatchManager: registration by reply code, the one-shot dispatch table, removal (docs/zookeeper.md §2.4, §2.7). */
import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { EventType, WatcherType } from "../../../src/zk/proto/records.js";
import { KeeperException, ZKWatchManager, type Watcher } from "../../../src/zk/client/index.js";
import { pathAndAncestors } from "../../../src/zk/client/watch-manager.js";

const w = (name: string): Watcher => Object.defineProperty(() => undefined, "name", { value: name });
const names = (set: Set<Watcher>) => [...set].map((x) => x.name);

describe("client: watches: registration", () => {
  it("client: watches: exists registers a data watch on OK, an exist watch on NONODE, nothing otherwise", () => {
    const m = new ZKWatchManager(undefined);
    m.register({ kind: "exists", clientPath: "/a", watcher: w("a") }, Code.OK);
    m.register({ kind: "exists", clientPath: "/b", watcher: w("b") }, Code.NONODE);
    m.register({ kind: "exists", clientPath: "/c", watcher: w("c") }, Code.CONNECTIONLOSS);
    m.register({ kind: "data", clientPath: "/d", watcher: w("d") }, Code.NONODE);
    m.register({ kind: "child", clientPath: "/e", watcher: w("e") }, Code.NOAUTH);
    expect(m.watchLists()).toEqual({ dataWatches: ["/a"], existWatches: ["/b"], childWatches: [], persistentWatches: [], persistentRecursiveWatches: [] });
  });
});

describe("client: watches: dispatch", () => {
  function book() {
    const m = new ZKWatchManager(w("default"));
    const reg = (kind: "exists" | "data" | "child" | "persistent" | "persistentRecursive", path: string, name: string, rc: number = Code.OK) =>
      m.register({ kind, clientPath: path, watcher: w(name) }, rc);
    return { m, reg };
  }

  it("client: watches: NodeCreated / NodeDataChanged take data + exist watchers, once", () => {
    const { m, reg } = book();
    reg("data", "/a", "data");
    reg("exists", "/a", "exist", Code.NONODE);
    reg("child", "/a", "child");
    expect(names(m.materialize(EventType.NodeCreated, "/a"))).toEqual(["data", "exist"]);
    expect(m.materialize(EventType.NodeDataChanged, "/a").size).toBe(0); // one-shot
    expect(names(m.materialize(EventType.NodeChildrenChanged, "/a"))).toEqual(["child"]);
  });

  it("client: watches: NodeDeleted takes data, exist and child watchers; one call per watcher", () => {
    const m = new ZKWatchManager(undefined);
    const same = w("same");
    m.register({ kind: "data", clientPath: "/a", watcher: same }, Code.OK);
    m.register({ kind: "child", clientPath: "/a", watcher: same }, Code.OK);
    m.register({ kind: "exists", clientPath: "/a", watcher: w("exist") }, Code.NONODE);
    expect(names(m.materialize(EventType.NodeDeleted, "/a"))).toEqual(["same", "exist"]);
    expect(m.watchLists().childWatches).toEqual([]);
  });

  it("client: watches: persistent watchers stay; recursive ones cover descendants but never NodeChildrenChanged", () => {
    const { m, reg } = book();
    reg("persistent", "/a", "p");
    reg("persistentRecursive", "/", "r");
    expect(names(m.materialize(EventType.NodeDataChanged, "/a"))).toEqual(["p", "r"]);
    expect(names(m.materialize(EventType.NodeChildrenChanged, "/a"))).toEqual(["p"]);
    expect(names(m.materialize(EventType.NodeDeleted, "/a/b/c"))).toEqual(["r"]);
    expect(names(m.materialize(EventType.NodeCreated, "/a"))).toEqual(["p", "r"]);
  });

  it("client: watches: a None event goes to the default watcher and every registered watcher, removing nothing", () => {
    const { m, reg } = book();
    reg("data", "/a", "d");
    reg("child", "/b", "c");
    reg("persistent", "/c", "p");
    expect(names(m.materialize(EventType.None, null))).toEqual(["default", "d", "c", "p"]);
    expect(m.watchLists().dataWatches).toEqual(["/a"]);
  });

  it("client: watches: ancestors of a path, for recursive watches", () => {
    expect(pathAndAncestors("/a/b")).toEqual(["/a/b", "/a", "/"]);
    expect(pathAndAncestors("/")).toEqual(["/"]);
  });
});

describe("client: watches: removal", () => {
  it("client: watches: removeWatcher groups removed watchers by the event they are told with", () => {
    const m = new ZKWatchManager(undefined);
    const a = w("a");
    m.register({ kind: "data", clientPath: "/x", watcher: a }, Code.OK);
    m.register({ kind: "child", clientPath: "/x", watcher: a }, Code.OK);
    m.register({ kind: "persistent", clientPath: "/x", watcher: w("p") }, Code.OK);
    const removed = m.removeWatcher("/x", undefined, WatcherType.Any, false, Code.OK);
    expect(names(removed.dataRemoved)).toEqual(["a"]);
    expect(names(removed.childRemoved)).toEqual(["a"]);
    expect(names(removed.persistentRemoved)).toEqual(["p"]);
    expect(() => m.removeWatcher("/x", undefined, WatcherType.Any, false, Code.OK)).toThrow(KeeperException);
  });

  it("client: watches: a server error keeps the watcher unless local; NOWATCHER when nothing matches", () => {
    const m = new ZKWatchManager(undefined);
    const a = w("a");
    m.register({ kind: "data", clientPath: "/x", watcher: a }, Code.OK);
    expect(() => m.removeWatcher("/x", a, WatcherType.Data, false, Code.CONNECTIONLOSS)).toThrow(expect.objectContaining({ code: Code.CONNECTIONLOSS }));
    expect(m.watchLists().dataWatches).toEqual(["/x"]);
    expect(() => m.removeWatcher("/x", a, WatcherType.Children, false, Code.OK)).toThrow(expect.objectContaining({ code: Code.NOWATCHER }));
    expect(names(m.removeWatcher("/x", a, WatcherType.Data, true, Code.CONNECTIONLOSS).dataRemoved)).toEqual(["a"]);
  });
});
