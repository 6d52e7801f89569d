/**
 * bug-2355 — ZOOKEEPER-2355 (fixed in 3.4.11 / 3.5.4): "ephemeral node is never deleted if a
 * follower fails while reading the proposal packets".
 *
 * Defect: on DIFF the learner set its lastProcessedZxid to the DIFF packet's zxid (the leader's
 * last committed) *before* applying the diff txns. If the sync is interrupted, the peer goes
 * LOOKING with a tree that claims txns it never applied (3.8 fast-forwards the in-memory tree
 * from its log; nothing is replayed above the inflated zxid), reports that zxid and gets an
 * empty DIFF from the next leader: the missing txns are never applied there.
 *
 * Schedule: s3 leads; session S owns ephemeral /e. s1 is partitioned until it gives up on the
 * leader; meanwhile S closes (deleting /e) and /b, /c commit. The partition heals, s1 rejoins s3
 * by DIFF — and the moment s1 has read the DIFF packet, s3 crashes (the proposals behind it die
 * in flight). s1 and s2 elect s2; s1 reports the inflated zxid, gets an empty DIFF, and keeps
 * /e (owned by a closed session) and misses /b, /c forever.
 *
 * Invariant: zab.prefix-consistency (s1's next delivery skips the diff txns: a hole), plus an
 * expectation that s1 does not serve the orphan /e. Without the bug s1 reloads its tree, reports
 * its real zxid and gets the diff from s2.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { isZab, whenTrace } from "./bug-support.js";

export const bug2355: ScriptDef = {
  name: "bug-2355",
  description: "ZOOKEEPER-2355: a learner takes the DIFF zxid as processed before applying the diff; an interrupted sync loses it",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [lagging, other] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader, other], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    const owner = await s.connect("c2", { servers: [leader], sessionTimeoutMs: 60_000 });
    await owner.create("/e", "", open, CreateMode.EPHEMERAL);
    s.fault({ kind: "partition", groups: [[lagging], [leader, other, "c1", "c2", "c3"]] });
    if (!(await s.waitFor(() => ens.peer(lagging)?.state === "LOOKING", 30_000, `${lagging} gives up on the leader`))) return;
    await owner.close();
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    await zk.create("/c", "", open, CreateMode.PERSISTENT);
    s.note(`while ${lagging} was away, the owner of /e closed its session and /b, /c committed`);
    const diffRead = whenTrace(s, `${lagging} reads a DIFF`, (e) => isZab(e, "zab.phase", lagging, { phase: "SYNCHRONIZATION" }), 60_000);
    s.fault({ kind: "heal" });
    if ((await diffRead) === undefined) return;
    s.note(`${lagging} has read the DIFF packet; ${leader} crashes before the proposals behind it arrive`);
    s.fault({ kind: "crash", node: leader });
    const next = await ens.settled(60_000, `${lagging} and ${other} elect a leader`);
    if (next !== undefined) s.note(`${next} leads epoch 2`);
    await s.waitFor(() => zk.getState() === "CONNECTED", 30_000, "c1 reconnects");
    await zk.create("/d", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "start", node: leader });
    await ens.settled(60_000, `${leader} rejoins`);
    const reader = await s.connect("c3", { servers: [lagging] });
    await reader.sync("/");
    s.expect((await reader.exists("/e")) === null, `${lagging} does not keep /e, whose owner session closed`);
    s.expect((await reader.exists("/c")) !== null, `${lagging} has /c`);
  },
};
