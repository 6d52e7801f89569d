/**
 * zab-follower-snap: a follower is down while more txns commit than the leader keeps in its
 * committed log (500). When it returns, DIFF is impossible: the leader sends a SNAP (its whole
 * tree), the follower loads it, persists it at NEWLEADER, and converges. A restart of that
 * follower afterwards recovers from the snapshot it wrote.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { Op } from "../../zk/client/index.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const zabFollowerSnap: ScriptDef = {
  name: "zab-follower-snap",
  description: "a follower misses more txns than the committed log holds and is synchronised by SNAP",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const follower = s.servers.find((id) => id !== leader)!;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 30_000 });
    const open = Ids.OPEN_ACL_UNSAFE;
    await zk.create("/bulk", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: follower });
    s.note(`${follower} is down while 600 txns commit`);
    for (let i = 0; i < 60; i++) {
      await zk.multi(Array.from({ length: 10 }, (_, j) => Op.create(`/bulk/n${i * 10 + j}`, "", open, CreateMode.PERSISTENT)));
      // A multi is one txn: add single creates so the committed log really rolls past 500 txns.
      await zk.setData("/bulk", `round ${i}`, -1);
      for (let k = 0; k < 8; k++) await zk.setData("/bulk", `r${i}.${k}`, -1);
    }
    s.fault({ kind: "start", node: follower });
    await ens.settled(60_000, `${follower} rejoins`);
    const reader = await s.connect("c2", { servers: [follower] });
    s.expectEqual((await reader.getChildren("/bulk")).length, 600, `${follower} has all 600 nodes after the SNAP`);
    s.fault({ kind: "restart", node: follower });
    await ens.settled(60_000, `${follower} restarts from the snapshot it persisted`);
    const again = await s.connect("c3", { servers: [follower] });
    s.expectEqual((await again.getChildren("/bulk")).length, 600, `${follower} recovered the snapshot after a restart`);
  },
};
