/**
 * watch-removal: what 3.8's client does with watchers it is asked to drop (docs/zookeeper.md §2.7),
 * and the default watcher a read reaches with `watch = true`.
 *
 * - `watch = true` registers the default watcher given at construction: it is told the change,
 *   and a re-read shows the new data whole (a value longer than the client's short-string path).
 * - `removeWatches(path, w, type, local)` drops one watcher: it is told (DataWatchRemoved /
 *   ChildWatchRemoved, SyncConnected after the server's OK), another watcher of the same path
 *   keeps its watch and fires; asked again it fails NOWATCHER. The default watcher is removed
 *   like any other.
 * - `removeAllWatches(path, type)` takes every watcher of that type and no other: a Data removal
 *   leaves the path's child watch armed, a Children removal its data watch.
 * - Cut off from the server, a `local` removal still succeeds (the client drops its own watchers
 *   whatever the server said, the reason for `local`), and the event it hands carries
 *   Disconnected; a non-local one fails CONNECTIONLOSS and the watch stays, re-registered at the
 *   reconnect. Back online, only the kept watch fires.
 * - Cut off again, `close()` does not wait for the server: 3.8's SendThread stops reconnecting
 *   once closing, so the close ends with the connection attempt under way (connectTimeout =
 *   T/n, after at most a second's pause), and the server expires the session.
 */
import { CreateMode, Ids, KeeperState, WatcherType } from "../../zk/proto/records.js";
import { EventLog, text, type ScriptDef } from "./script.js";

/** Longer than the 64 characters the client encodes by hand: a configuration blob. */
const config = (version: number): string => `{"version":${version},"servers":["alpha:2181","beta:2181","gamma:2181"],"retries":5,"backoffMs":250}`;

/** Removal events of a log, as "Type path state". */
function removals(log: EventLog): string[] {
  const name: Record<number, string> = { 5: "DataWatchRemoved", 6: "ChildWatchRemoved", 7: "PersistentWatchRemoved" };
  const state: Record<number, string> = { [KeeperState.SyncConnected]: "SyncConnected", [KeeperState.Disconnected]: "Disconnected" };
  return log.events.filter((e) => name[e.type] !== undefined).map((e) => `${name[e.type]} ${e.path} ${state[e.state] ?? e.state}`);
}

/** Node events of a log other than the removal ones, as "Type path". */
function changes(log: EventLog): string[] {
  return log.nodeEvents().filter((e) => !e.includes("WatchRemoved"));
}

async function outcome(op: Promise<unknown>): Promise<string> {
  try {
    await op;
    return "ok";
  } catch (e) {
    return (e as { codeName?: string }).codeName ?? "error";
  }
}

export const watchRemoval: ScriptDef = {
  name: "watch-removal",
  description: "removeWatches / removeAllWatches online and, local, while cut off; the default watcher (watch = true); close() while cut off ends at once",
  async run(s) {
    const open = Ids.OPEN_ACL_UNSAFE;
    const def = new EventLog();
    const zk = await s.connect("c1", { sessionTimeoutMs: 12_000, watcher: def.watcher });
    const writer = await s.connect("c2");
    const settle = () => s.sleepMs(50);
    for (const p of ["/cfg", "/a", "/b", "/k", "/m", "/n"]) await writer.create(p, p === "/cfg" ? config(1) : "", open, CreateMode.PERSISTENT);

    // watch = true: the default watcher.
    await zk.getData("/cfg", true);
    await writer.setData("/cfg", config(2), -1);
    await settle();
    s.expectEqual(changes(def), ["NodeDataChanged /cfg"], "a read with watch = true arms the default watcher, which is told the change");
    s.expectEqual(text((await zk.getData("/cfg", true)).data), config(2), "the re-read shows the new configuration whole");
    await zk.removeWatches("/cfg", def.watcher, WatcherType.Data, false);
    s.expectEqual(removals(def), ["DataWatchRemoved /cfg SyncConnected"], "the default watcher is removed like any other, and told");
    await writer.setData("/cfg", config(3), -1);

    // One watcher of two on a path.
    const w1 = new EventLog();
    const w2 = new EventLog();
    await zk.getData("/a", w1.watcher);
    await zk.exists("/a", w2.watcher);
    s.expectEqual(await outcome(zk.removeWatches("/a", w1.watcher, WatcherType.Data, false)), "ok", "removeWatches of one watcher that waits on the path");
    s.expectEqual(await outcome(zk.removeWatches("/a", w1.watcher, WatcherType.Data, false)), "NOWATCHER", "the same removal again: the watcher waits there no more");
    await writer.setData("/a", "x", -1);
    await settle();
    s.expectEqual([removals(w1), changes(w1)], [["DataWatchRemoved /a SyncConnected"], []], "the removed watcher is told once and sees no change");
    s.expectEqual(changes(w2), ["NodeDataChanged /a"], "the other watcher of /a keeps its watch");

    // Every watcher of one type, and only that type.
    const d = new EventLog();
    const c = new EventLog();
    await zk.getData("/b", d.watcher);
    await zk.getChildren("/b", c.watcher);
    await zk.removeAllWatches("/b", WatcherType.Data, false);
    await writer.setData("/b", "y", -1);
    await writer.create("/b/child", "", open, CreateMode.PERSISTENT);
    await settle();
    s.expectEqual([removals(d), changes(d)], [["DataWatchRemoved /b SyncConnected"], []], "a Data removal takes the data watcher");
    s.expectEqual([removals(c), changes(c)], [[], ["NodeChildrenChanged /b"]], "and leaves the child watch of the path armed");
    const c2 = new EventLog();
    const d2 = new EventLog();
    await zk.getChildren("/b", c2.watcher);
    await zk.getData("/b", d2.watcher);
    await zk.removeAllWatches("/b", WatcherType.Children, false);
    await writer.delete("/b/child", -1);
    await writer.setData("/b", "z", -1);
    await settle();
    s.expectEqual([removals(c2), changes(c2)], [["ChildWatchRemoved /b SyncConnected"], []], "a Children removal takes the child watcher");
    s.expectEqual([removals(d2), changes(d2)], [[], ["NodeDataChanged /b"]], "and leaves the data watch of the path armed");

    // Cut off: local removals succeed and say Disconnected; a non-local one fails and keeps its watch.
    const k = new EventLog();
    const m = new EventLog();
    const n = new EventLog();
    await zk.getData("/k", k.watcher);
    await zk.getData("/m", m.watcher);
    await zk.getChildren("/n", n.watcher);
    s.note("c1 is cut off from the server for 10 s: past its read timeout (8 s), within its 12 s session");
    s.fault({ kind: "partition", groups: [["c1"], [...s.servers, "c2"]] });
    const local = outcome(zk.removeWatches("/k", k.watcher, WatcherType.Data, true));
    const remote = outcome(zk.removeWatches("/m", m.watcher, WatcherType.Data, false));
    const localAll = outcome(zk.removeAllWatches("/n", WatcherType.Children, true));
    await s.waitFor(() => zk.getState() !== "CONNECTED", 9000, "c1 notices the dead connection");
    s.expectEqual([await local, await remote, await localAll], ["ok", "CONNECTIONLOSS", "ok"], "cut off, a local removal succeeds and a non-local one fails");
    s.expectEqual(removals(k), ["DataWatchRemoved /k Disconnected"], "a local removal without the server's answer tells its watcher Disconnected");
    s.expectEqual(removals(n), ["ChildWatchRemoved /n Disconnected"], "a local removeAllWatches too");
    s.expectEqual(removals(m), [], "the failed removal told nothing");
    await s.sleepMs(2000);
    s.fault({ kind: "heal" });
    await s.waitFor(() => zk.getState() === "CONNECTED", 15_000, "c1 reconnects");
    await writer.setData("/k", "k1", -1);
    await writer.setData("/m", "m1", -1);
    await writer.create("/n/child", "", open, CreateMode.PERSISTENT);
    await settle();
    s.expectEqual([changes(k), changes(m), changes(n)], [[], ["NodeDataChanged /m"], []], "back online, only the watch no removal took fires");

    // A call made while the handle's close is in flight fails at once (3.8: CONNECTIONLOSS, never sent).
    const closer = await s.connect("c1");
    const closed = closer.close();
    s.expectEqual(await outcome(closer.create("/late", "", open, CreateMode.PERSISTENT)), "CONNECTIONLOSS", "a create on a closing handle fails CONNECTIONLOSS");
    await closed;
    s.expectEqual(await writer.exists("/late"), null, "and never reached the server");

    // Cut off again: close() does not wait for a connection (the cut outlasts the wait).
    s.fault({ kind: "partition", groups: [["c1"], [...s.servers, "c2"]] });
    await s.waitFor(() => zk.getState() !== "CONNECTED", 9000, "c1 notices the dead connection again");
    const closing = zk.close();
    await s.waitFor(() => zk.getState() === "CLOSED", 15_000, "close() while cut off ends the handle within one connection attempt (12 s) and its pause");
    await closing;
    s.fault({ kind: "heal" });
    s.conclude("removals took exactly the watchers asked for and told each; local ones worked cut off; the default watcher answered watch = true; close() did not wait for the server");
  },
};
