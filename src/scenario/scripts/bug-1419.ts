/**
 * bug-1419 — ZOOKEEPER-1419 (fixed in 3.4.4): leader election never terminates.
 *
 * Defect: FastLeaderElection's vote comparison was
 * `epoch> || (epoch= && zxid>) || (zxid= && sid>)` — the last clause forgot the epoch equality.
 * Between two votes with equal zxids and different epochs, the lower-epoch, higher-sid one wins
 * by the third clause and the higher-epoch one wins back by the first: not an order.
 *
 * Schedule (no client, so every zxid stays 0): s3 leads epoch 1; s3 crashes and s1, s2 elect s2
 * for epoch 2 (no txns: only their currentEpoch moves to 2); s2 crashes. s1 (currentEpoch 2) and
 * s3 (currentEpoch 1) restart together. s3's vote reaches s1 and beats s1's own by the sid clause,
 * so s1 votes for s3 and the election ends on s3 — the server with the *older* epoch. s3 cannot
 * lead s1: a leader refuses a learner more recent than itself ("Follower is ahead of the
 * leader"), so s1 drops out, s3 has no quorum and gives up after initLimit, and the next round
 * picks s3 again, forever. (With more servers in the cycle the votes also flip back and forth,
 * each flip re-broadcast, in a notification storm.)
 *
 * Invariant: zab.liveness (no leader within 40 s of the last fault). Without the bug s1 — the
 * higher epoch — wins at once and leads epoch 3 with s3.
 */
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const bug1419: ScriptDef = {
  name: "bug-1419",
  description: "ZOOKEEPER-1419: a vote comparison that is not a total order; the election cycles forever",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const first = await ens.settled(30_000);
    if (first === undefined) return;
    s.fault({ kind: "crash", node: first });
    const second = await ens.settled(60_000, "the remaining two elect a leader");
    if (second === undefined) return;
    const survivor = s.servers.find((id) => id !== first && id !== second)!;
    s.note(`${second} leads epoch 2 with ${survivor}, with no txns: only their currentEpoch moved`);
    s.fault({ kind: "crash", node: second });
    s.fault({ kind: "restart", node: survivor });
    s.fault({ kind: "start", node: first });
    s.note(`${survivor} (currentEpoch 2) and ${first} (currentEpoch 1) elect`);
    await ens.settled(60_000, `${survivor} and ${first} elect a leader`);
  },
};
