/**
 * watch-semantics: every row of the trigger table (docs/zookeeper.md §2.3), one-shot standard watches,
 * persistent and persistent-recursive watches, and the ordering guarantee: a client sees the
 * watch event before the reply of a later read that shows the change.
 */
import { AddWatchMode, CreateMode, Ids } from "../../zk/proto/records.js";
import { Op } from "../../zk/client/index.js";
import { EventLog, text, type ScriptDef } from "./script.js";

export const watchSemantics: ScriptDef = {
  name: "watch-semantics",
  description: "the watch trigger table, one-shot, persistent and recursive watches, and event-before-data ordering",
  async run(s) {
    const open = Ids.OPEN_ACL_UNSAFE;
    const writer = await s.connect("c1");
    const reader = await s.connect("c2");
    // The server keeps one watch mode per (connection, path): the recursive watch gets its own client.
    const deep = await s.connect("c3");
    const settle = () => s.sleepMs(50);
    await writer.create("/w", "0", open, CreateMode.PERSISTENT);

    // exists on a missing node → NodeCreated; getData → NodeDataChanged; NodeDeleted.
    const a = new EventLog();
    s.expectEqual(await reader.exists("/w/x", a.watcher), null, "exists on a missing node");
    await writer.create("/w/x", "1", open, CreateMode.PERSISTENT);
    await settle();
    await reader.getData("/w/x", a.watcher);
    await writer.setData("/w/x", "2", -1);
    await settle();
    await reader.exists("/w/x", a.watcher);
    await writer.delete("/w/x", -1);
    await settle();
    s.expectEqual(a.nodeEvents(), ["NodeCreated /w/x", "NodeDataChanged /w/x", "NodeDeleted /w/x"], "exists / getData / delete rows");

    // Child watches: NodeChildrenChanged on create and delete of a child; NodeDeleted on the node itself.
    const b = new EventLog();
    await writer.create("/w/p", "", open, CreateMode.PERSISTENT);
    await reader.getChildren("/w/p", b.watcher);
    await writer.create("/w/p/c", "", open, CreateMode.PERSISTENT);
    await settle();
    await reader.getChildren("/w/p", b.watcher);
    await writer.delete("/w/p/c", -1);
    await settle();
    await reader.getChildren("/w/p", b.watcher);
    await writer.delete("/w/p", -1);
    await settle();
    s.expectEqual(b.nodeEvents(), ["NodeChildrenChanged /w/p", "NodeChildrenChanged /w/p", "NodeDeleted /w/p"], "child-watch rows");

    // One-shot: a second change without re-registering fires nothing; setACL fires nothing.
    const c = new EventLog();
    await reader.getData("/w", c.watcher);
    await writer.setData("/w", "a", -1);
    await writer.setData("/w", "b", -1);
    await writer.setACL("/w", open, -1);
    await settle();
    s.expectEqual(c.nodeEvents(), ["NodeDataChanged /w"], "a standard watch fires once");

    // Persistent: all four event types at its own path, every time; recursive: descendants, never children-changed.
    const p = new EventLog();
    const r = new EventLog();
    await reader.addWatch("/w", p.watcher, AddWatchMode.PERSISTENT);
    await deep.addWatch("/w", r.watcher, AddWatchMode.PERSISTENT_RECURSIVE);
    await writer.setData("/w", "c", -1);
    await writer.setData("/w", "d", -1);
    await writer.create("/w/k", "", open, CreateMode.PERSISTENT);
    await writer.setData("/w/k", "x", -1);
    await writer.multi([Op.create("/w/k/deep", "", open, CreateMode.PERSISTENT), Op.setData("/w", "e", -1)]);
    await settle();
    s.expectEqual(
      p.nodeEvents(),
      ["NodeDataChanged /w", "NodeDataChanged /w", "NodeChildrenChanged /w", "NodeDataChanged /w"],
      "a persistent watch fires for every change at its path, children included",
    );
    s.expectEqual(
      r.nodeEvents(),
      ["NodeDataChanged /w", "NodeDataChanged /w", "NodeCreated /w/k", "NodeDataChanged /w/k", "NodeCreated /w/k/deep", "NodeDataChanged /w"],
      "a recursive watch sees descendants but never NodeChildrenChanged; multi fires each sub-op in order",
    );

    // Ordering: the event arrives before the reply of a later read showing the new data.
    const order: string[] = [];
    await reader.getData("/w/k", () => order.push("event"));
    await writer.setData("/w/k", "new", -1);
    const seen = await reader.getData("/w/k");
    order.push(`read ${text(seen.data)}`);
    s.expectEqual(order, ["event", "read new"], "the watch event precedes the read that shows the change");
    s.conclude("every trigger-table row fired the right event type, once; persistent and recursive watches behaved as 3.8");
  },
};
