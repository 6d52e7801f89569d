/**
 * bug-3642 — ZOOKEEPER-3642 (fixed in 3.5.10 / 3.6.3 / 3.7.0): data loss when the leader crashes
 * right after sending a SNAP.
 *
 * Defect: a learner that loaded a SNAP into memory but never got NEWLEADER (which persists it)
 * kept that tree when it went back to LOOKING (3.8 only fast-forwards the tree from the log),
 * advertising the snapshot's zxid. The next leader then syncs it with a DIFF from that zxid — no
 * snapshot is taken on DIFF — so the data exists only in its memory. The fix clears the database
 * after an incomplete SNAP sync.
 *
 * Schedule: s1 is down from the start while s3 (leader) and s2 commit /a, /b. s1 starts with an
 * empty disk and gets a SNAP from s3; the moment s1 has loaded it, s3 crashes (NEWLEADER dies in
 * flight). s2 leads epoch 2 with s1, which reports the SNAP's zxid: empty DIFF, NEWLEADER,
 * currentEpoch 2. s1 and s2 crash; s1 (currentEpoch 2, nothing on disk) and s3 (currentEpoch 1,
 * /a, /b) restart: s1 leads epoch 3 and truncates s3 to nothing.
 *
 * Invariant: zab.committed-durability (LeaderLogCompleteness at s1's establishment,
 * CommittedLogDurability at s3's TRUNC). Without the bug s1 reloads its empty disk, gets a SNAP
 * from s2 and persists it at NEWLEADER.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { isZab, rejoinAndExpectB, whenTrace } from "./bug-support.js";

export const bug3642: ScriptDef = {
  name: "bug-3642",
  description: "ZOOKEEPER-3642: a learner keeps an unpersisted SNAP after its leader crashed; later it leads without the data",
  async run(s) {
    const [joiner] = s.servers as [string];
    s.fault({ kind: "crash", node: joiner });
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const other = s.servers.find((id) => id !== leader && id !== joiner)!;
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader, other], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    const snapLoaded = whenTrace(s, `${joiner} loads a SNAP`, (e) => isZab(e, "zab.snap.load", joiner), 60_000);
    s.fault({ kind: "start", node: joiner });
    if ((await snapLoaded) === undefined) return;
    s.note(`${joiner} has loaded the SNAP from ${leader}, which crashes before NEWLEADER arrives`);
    s.fault({ kind: "crash", node: leader });
    const next = await ens.settled(60_000, `${joiner} and ${other} elect a leader`);
    if (next !== undefined) s.note(`${next} leads epoch 2 with ${joiner}; now both crash and ${joiner}, ${leader} restart`);
    s.fault({ kind: "crash", node: joiner });
    s.fault({ kind: "crash", node: other });
    s.fault({ kind: "start", node: leader });
    s.fault({ kind: "start", node: joiner });
    await ens.settled(60_000, `${leader} and ${joiner} elect a leader`);
    await rejoinAndExpectB(s, ens, other);
  },
};
