/**
 * zab-leader-crash-before-commit (the example of *From Paxos to ZooKeeper*, ch. 4): the leader crashes after
 * a quorum has logged and ACKed P1 and P2 but before any COMMIT; P3 reached only the leader's
 * own log. ZAB must keep P1 and P2 (a new leader's history contains them: it is chosen by the
 * longest log) and discard P3 (the old leader is truncated when it rejoins). The client saw
 * all three end in CONNECTIONLOSS: it cannot know, and the history says so.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const zabLeaderCrashBeforeCommit: ScriptDef = {
  name: "zab-leader-crash-before-commit",
  description: "leader crashes after a quorum ACKed P1, P2 but before COMMIT; P1, P2 survive, P3 (only on the old leader) is discarded",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const followers = s.servers.filter((id) => id !== leader);
    s.note(`${leader} leads; ${followers.join(", ")} follow`);
    const zk = await s.connect("c1", { servers: [leader] });
    const open = Ids.OPEN_ACL_UNSAFE;
    await zk.create("/base", "", open, CreateMode.PERSISTENT);

    // ACKs crawl back to the leader; proposals still go out at full speed.
    s.fault({ kind: "clog", from: followers, to: [leader], extraDelayMs: 500, oneWay: true });
    const outcome = (p: Promise<unknown>) => p.then(() => "ok", (e: { codeName?: string }) => e.codeName ?? "error");
    const p1 = outcome(zk.create("/base/p1", "1", open, CreateMode.PERSISTENT));
    const p2 = outcome(zk.create("/base/p2", "2", open, CreateMode.PERSISTENT));
    await s.sleepMs(100); // P1, P2 proposed, logged by the followers, ACKs on the way
    s.fault({ kind: "cut", from: [leader], to: followers, oneWay: true });
    const p3 = outcome(zk.create("/base/p3", "3", open, CreateMode.PERSISTENT));
    await s.sleepMs(50); // P3 is only in the leader's log
    s.fault({ kind: "crash", node: leader });
    s.note(`${leader} crashed after proposing P1 and P2 (the followers' ACKs slowed) and P3 (cut off from the followers)`);
    s.fault({ kind: "unclog" });
    s.fault({ kind: "heal" });
    s.expectEqual([await p1, await p2, await p3], ["CONNECTIONLOSS", "CONNECTIONLOSS", "CONNECTIONLOSS"], "the client only knows 'unknown' for P1, P2 and P3");

    const next = await ens.settled(60_000, "the surviving quorum elects a new leader");
    if (next !== undefined) s.note(`${next} leads the next epoch`);
    s.fault({ kind: "start", node: leader });
    await ens.settled(60_000, `the old leader ${leader} rejoins as a follower`);
    const reader = await s.connect("c2");
    await reader.sync("/base");
    const children = (await reader.getChildren("/base")).sort();
    s.expectEqual(children, ["p1", "p2"], "P1 and P2 survived the crash; P3 was discarded");
    s.conclude("P1 and P2 were committed by the new leader; the old leader's P3 was truncated when it rejoined");
  },
};
