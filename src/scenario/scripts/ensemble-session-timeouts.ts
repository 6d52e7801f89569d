/**
 * ensemble-session-timeouts: every session keeps the timeout it negotiated, also when another
 * session on the same follower ends (docs/zookeeper.md §3.3, the learner's touch table).
 *
 * A follower does not expire sessions: it records which of its sessions were touched, each with
 * its timeout, and reports them to the leader in its next PING reply (`LearnerSessionTracker`'s
 * touchTable); the leader then moves each reported session's deadline to now + that timeout. A
 * session that closes leaves the table (`removeSession`).
 *
 * c1 (4 s, the least tickTime 2 s allows) and c2 (40 s, the most) are both attached to the same
 * follower. Right after one of the follower's PING replies, c1 and c2 each send a request — both
 * touched, c1 first — and c1 closes its session before the next report. c2 then goes quiet as
 * any idle client does: its client pings every third of its 40 s. The leader must keep c2 alive
 * on c2's own timeout: a report that gave c2 the closed session's 4 s would expire a healthy
 * session whose client never missed a ping, and take its ephemeral with it.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { whenTrace } from "./bug-support.js";

const SHORT_MS = 4_000;
const LONG_MS = 40_000;

export const ensembleSessionTimeouts: ScriptDef = {
  name: "ensemble-session-timeouts",
  description: "two sessions with different timeouts on one follower; the short one closes, the long one keeps its own timeout",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const follower = s.servers.find((id) => id !== leader)!;
    const short = await s.connect("c1", { servers: [follower], sessionTimeoutMs: SHORT_MS });
    const long = await s.connect("c2", { servers: [follower], sessionTimeoutMs: LONG_MS });
    s.expectEqual([short.getSessionTimeout(), long.getSessionTimeout()], [SHORT_MS, LONG_MS], "the negotiated timeouts: 2 and 20 ticks");
    await long.create("/alive", "c2", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    await whenTrace(s, `${follower} reports its touches to the leader`, (e) => e.kind === "send" && e.node === follower && e.detail === "PING", 5_000);
    await short.exists("/");
    await long.exists("/");
    await short.close();
    s.note(`c1 (${SHORT_MS} ms) and c2 (${LONG_MS} ms) touched ${follower} in one PING interval, then c1 closed; c2 goes idle`);
    await s.sleepMs(30_000);
    s.expectEqual(long.getState(), "CONNECTED", "c2, idle but pinging, still holds its session");
    s.expect((await long.exists("/alive")) !== null, "c2's ephemeral outlived the closed session's timeout");
    s.conclude("each session kept its own timeout through the follower's touch reports");
    await long.close();
  },
};
