/**
 * bug-1208 — ZOOKEEPER-1208 (fixed in 3.3.4 / 3.4.0): an ephemeral node outlives its session.
 *
 * Defect: the leader's PrepRequestProcessor did not mark a session closing when it prepped the
 * session's closeSession. A request of the same session prepped after it — before the close is
 * applied — still passed checkSession; an ephemeral created that way is applied *after* the
 * close deleted the session's ephemerals, and nothing will ever delete it.
 *
 * Schedule: s3 leads (slow disk, and s2's ACKs crawl, so a proposal takes ~300 ms to commit).
 * Session S on s3 owns /a. A second handle re-attaches to S through s1 (the owner moves to s1);
 * the first handle closes S; 20 ms later, with the closeSession still uncommitted, the second
 * handle creates ephemeral /e through s1.
 *
 * Invariant: "every ephemeral's owner is a live session", as a scenario expectation (no ZAB
 * checker watches sessions): /e must not exist after the close. Without the bug the create is
 * rejected with SESSIONEXPIRED.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome } from "./bug-support.js";

export const bug1208: ScriptDef = {
  name: "bug-1208",
  description: "ZOOKEEPER-1208: a create prepped after its session's close leaves an orphan ephemeral",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const [follower, slowAcker] = s.servers.filter((id) => id !== leader) as [string, string];
    const open = Ids.OPEN_ACL_UNSAFE;
    const closing = await s.connect("c1", { servers: [leader], sessionTimeoutMs: 30_000 });
    await closing.create("/a", "", open, CreateMode.EPHEMERAL);
    const sameSession = await s.connect("c2", { servers: [follower], sessionId: closing.getSessionId(), sessionPasswd: closing.getSessionPasswd() });
    s.note(`session ${closing.getSessionIdHex()} is attached through ${follower} too`);
    s.fault({ kind: "disk", node: leader, fault: "slow-fsync", fsyncLatencyMs: 300 });
    s.fault({ kind: "clog", from: [slowAcker], to: [leader], extraDelayMs: 300, oneWay: true });
    const closed = outcome(closing.close());
    await s.sleepMs(20);
    const created = outcome(sameSession.create("/e", "", open, CreateMode.EPHEMERAL));
    s.note(`the session's closeSession is prepped; a create of ephemeral /e of the same session follows`);
    s.expectEqual(await closed, "ok", "the session closes");
    s.note(`the create of /e ended with ${await created}`);
    s.fault({ kind: "unclog" });
    s.fault({ kind: "disk", node: leader, fault: "ok" });
    const reader = await s.connect("c3");
    await reader.sync("/");
    s.expect((await reader.exists("/a")) === null, "the closed session's ephemeral /a is gone");
    s.expect((await reader.exists("/e")) === null, "no ephemeral of the closed session exists: /e was not created");
  },
};
