/**
 * reconnect-watches: a network blip longer than the read timeout but shorter than the session
 * timeout. The client disconnects (pending ops fail with CONNECTIONLOSS — the unknown state),
 * reconnects with the same session, and re-registers its watches with SetWatches and its last
 * zxid: changes made while it was away fire on reconnect (docs/zookeeper.md §2.6); standard watches on unchanged
 * nodes stay armed. Persistent watches survive, but miss what happened while away (3.8).
 */
import { AddWatchMode, CreateMode, Ids } from "../../zk/proto/records.js";
import { EventLog, type ScriptDef } from "./script.js";

export const reconnectWatches: ScriptDef = {
  name: "reconnect-watches",
  description: "a blip disconnects a client; watches survive, and changes made while away fire on reconnect",
  async run(s) {
    const open = Ids.OPEN_ACL_UNSAFE;
    const watcher = await s.connect("c1", { sessionTimeoutMs: 12_000 });
    const writer = await s.connect("c2");
    await writer.create("/cfg", "v1", open, CreateMode.PERSISTENT);
    await writer.create("/stable", "", open, CreateMode.PERSISTENT);
    await writer.create("/dir", "", open, CreateMode.PERSISTENT);
    await writer.create("/feed", "", open, CreateMode.PERSISTENT);
    const ev = new EventLog();
    await watcher.getData("/cfg", ev.watcher);
    await watcher.exists("/later", ev.watcher);
    await watcher.getChildren("/dir", ev.watcher);
    await watcher.getData("/stable", ev.watcher);
    const persistent = new EventLog();
    // On a path with no standard watch: a standard watch's catch-up event would reach it too.
    await watcher.addWatch("/feed", persistent.watcher, AddWatchMode.PERSISTENT);
    const session = watcher.getSessionId();

    s.note("c1 is cut off from the servers for 10 s: past its read timeout (2/3 × 12 s = 8 s), within its 12 s session");
    s.fault({ kind: "partition", groups: [["c1"], [...s.servers, "c2"]] });
    const inFlight = watcher.getData("/cfg").then(
      () => "ok",
      (e: { codeName?: string }) => e.codeName ?? "error",
    );
    await s.sleepMs(200);
    await writer.setData("/cfg", "v2", -1);
    await writer.create("/later", "", open, CreateMode.PERSISTENT);
    await writer.create("/dir/new", "", open, CreateMode.PERSISTENT);
    await writer.setData("/feed", "missed", -1);
    await s.sleepMs(9800);
    s.expectEqual(await inFlight, "CONNECTIONLOSS", "a request pending at the disconnect fails with CONNECTIONLOSS");
    s.expect(watcher.getState() !== "CONNECTED", "c1 noticed the dead connection by its read timeout");
    s.fault({ kind: "heal" });
    await s.waitFor(() => watcher.getState() === "CONNECTED", 15_000, "c1 reconnects");
    await s.sleepMs(100);
    s.expectEqual(watcher.getSessionId(), session, "the session survived the blip");
    s.expectEqual(
      [...ev.nodeEvents()].sort(),
      ["NodeChildrenChanged /dir", "NodeCreated /later", "NodeDataChanged /cfg"],
      "every change made while away fired once on reconnect",
    );
    s.expectEqual(persistent.nodeEvents(), [], "3.8: persistent watches miss changes made while disconnected");
    await writer.setData("/stable", "touched", -1);
    await writer.setData("/feed", "seen", -1);
    await s.sleepMs(100);
    s.expect(ev.nodeEvents().includes("NodeDataChanged /stable"), "a watch on an unchanged node stayed armed across the reconnect");
    s.expectEqual(persistent.nodeEvents(), ["NodeDataChanged /feed"], "the persistent watch is re-registered and fires again");
    s.conclude("watches were re-registered with SetWatches; three missed changes fired on reconnect");
  },
};
