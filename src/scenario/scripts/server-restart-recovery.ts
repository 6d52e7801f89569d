/**
 * server-restart-recovery: the server crashes between logging a write and its fsync. After the
 * restart it recovers from the snapshot and the txn log: every write the client saw
 * acknowledged is there, the one it never heard back about (CONNECTIONLOSS: unknown) is not,
 * and the client re-attaches to its recovered session. The standalone-durability checker holds
 * the server to every zxid a client has seen.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";

export const serverRestartRecovery: ScriptDef = {
  name: "server-restart-recovery",
  description: "crash between write and fsync; restart from snapshot + log loses nothing acknowledged",
  async run(s) {
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { sessionTimeoutMs: 20_000 });
    const acked: string[] = [];
    for (let i = 0; i < 25; i++) acked.push(await zk.create(`/item-${i}`, `v${i}`, open, CreateMode.PERSISTENT));
    s.note(`25 writes acknowledged (snapCount is small, so the server has rolled its log into snapshots)`);

    s.fault({ kind: "disk", node: "s1", fault: "slow-fsync", fsyncLatencyMs: 500 });
    const unknown = zk.create("/in-doubt", "?", open, CreateMode.PERSISTENT).then(
      () => "ok",
      (e: { codeName?: string }) => e.codeName ?? "error",
    );
    await s.sleepMs(100);
    s.fault({ kind: "crash", node: "s1" });
    s.note("s1 crashed with /in-doubt logged but not fsynced");
    s.expectEqual(await unknown, "CONNECTIONLOSS", "the client cannot know whether /in-doubt happened");
    await s.sleepMs(1000);
    s.fault({ kind: "disk", node: "s1", fault: "ok" });
    s.fault({ kind: "start", node: "s1" });
    await s.waitFor(() => zk.getState() === "CONNECTED", 15_000, "c1 reconnects to the restarted server");
    const children = await zk.getChildren("/");
    for (const path of acked) s.expect(children.includes(path.slice(1)), `acknowledged ${path} survived the crash`);
    s.expect(!children.includes("in-doubt"), "the unsynced, unacknowledged /in-doubt was lost");
    await zk.create("/after", "", open, CreateMode.EPHEMERAL);
    s.conclude("after recovery the session re-attached and all 25 acknowledged writes were there");
  },
};
