/**
 * bug-4394 — ZOOKEEPER-4394 (fixed in 3.9.3, not in 3.8.x): a COMMIT between NEWLEADER and
 * UPTODATE crashed the learner with a NullPointerException.
 *
 * Defect (3.8.0 `Learner.syncWithLeader`): at NEWLEADER the learner hands its buffer of not yet
 * committed proposals to the sync processor and *clears* it; a COMMIT that then arrives before
 * UPTODATE peeks at the head of the empty buffer — NullPointerException, the follower gives up
 * and re-elects.
 *
 * Schedule (NJU trace): s3 leads and broadcasts; s2 has been down and rejoins (slow disk, so its
 * NEWLEADER handling takes a while) just as /z is proposed; s1's ACKs crawl to s3, so /z is still
 * outstanding when s2 is synchronised: s2 gets DIFF, PROPOSAL /b, COMMIT /b, PROPOSAL /z,
 * NEWLEADER. While s2 is writing currentEpoch, s1's ACK arrives, s3 commits /z, and COMMIT /z
 * reaches s2 before its UPTODATE.
 *
 * Invariant: zab.flags (commitInconsistent) — and that follower's availability (it drops out
 * and re-syncs). Without the bug /z stays buffered and the COMMIT is remembered for UPTODATE.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome } from "./bug-support.js";

export const bug4394: ScriptDef = {
  name: "bug-4394",
  description: "ZOOKEEPER-4394: a COMMIT between NEWLEADER and UPTODATE finds the learner's cleared buffer",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [acker, joiner] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const zk = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 60_000 });
    await zk.create("/a", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "crash", node: joiner });
    await zk.create("/b", "", open, CreateMode.PERSISTENT);
    s.fault({ kind: "disk", node: joiner, fault: "slow-fsync", fsyncLatencyMs: 300 });
    s.fault({ kind: "clog", from: [acker], to: [leader], extraDelayMs: 150, oneWay: true });
    s.note(`${joiner} restarts while /z is proposed; ${acker}'s ACK of /z takes 150 ms`);
    s.fault({ kind: "start", node: joiner });
    const z = outcome(zk.create("/z", "", open, CreateMode.PERSISTENT));
    s.expectEqual(await z, "ok", "/z commits");
    s.fault({ kind: "unclog" });
    s.fault({ kind: "disk", node: joiner, fault: "ok" });
    await ens.settled(60_000, `${joiner} serves`);
    const reader = await s.connect("c2", { servers: [joiner] });
    await reader.sync("/");
    s.expectEqual((await reader.getChildren("/")).filter((c) => c !== "zookeeper").sort(), ["a", "b", "z"], `${joiner} has every committed node`);
  },
};
