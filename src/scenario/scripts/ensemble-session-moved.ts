/**
 * ensemble-session-moved: a session moves between servers while a request is still on its way
 * over the old connection (docs/zookeeper.md §3.4 SESSION_MOVED).
 *
 * 1. c1 is attached to follower A. Its link to A becomes slow (15 s), so a create it sends
 *    waits on the wire; c1 hears nothing for its read timeout, fails the create with
 *    CONNECTIONLOSS and re-attaches its session through follower B, whose REVALIDATE makes the
 *    leader record B as the session's owner. Then the create reaches A: A forwards it, the
 *    leader's checkSession finds another owner, the txn is an error txn (SESSIONMOVED), and A
 *    closes that connection without replying. The create was not applied: retried on B, it
 *    succeeds (not NODEEXISTS).
 * 2. The same race, the other way round: a second handle (c2) presents c1's session id and
 *    password to A, as a client that moved would, and then dies. c1's next write still travels
 *    over its connection to B, which is now the old one: B closes it without replying, c1 sees
 *    CONNECTIONLOSS (never −118), re-attaches, and its retried write is applied exactly once.
 * 3. Part 1 again with an ephemeral create, wherever c1 is attached now: the leader checks an
 *    ephemeral's session with checkGlobalSession (PrepRequestProcessor, CreateMode.isEphemeral),
 *    not checkSession, and that check too must answer SESSIONMOVED. An ephemeral applied from the
 *    old connection would be owned by a session that moved on, and would take the session's
 *    ownership back to the old server: the retry on the new one would find the node (NODEEXISTS).
 */
import { CreateMode, Ids, type CreateModeFlag } from "../../zk/proto/records.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { text } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { outcome, whenTrace } from "./bug-support.js";
import type { ZooKeeper } from "../../zk/client/index.js";

const SESSION_TIMEOUT_MS = 12_000;
/** Longer than c1's read timeout (2/3 × 12 s) plus a reconnect: the create lands after the move. */
const SLOW_LINK_MS = 15_000;

export const ensembleSessionMoved: ScriptDef = {
  name: "ensemble-session-moved",
  description: "a request on a session's old connection reaches the old server after the session moved: SESSIONMOVED, closed without a reply",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const followers = s.servers.filter((id) => id !== leader);
    const zk = await s.connect("c1", { servers: followers, sessionTimeoutMs: SESSION_TIMEOUT_MS });
    await zk.create("/moved", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    const a = serverOf(zk);
    const b = followers.find((id) => id !== a)!;
    s.note(`${leader} leads; c1's session is attached to ${a}`);
    await slowCreateAfterMove(s, zk, a, b, "/moved/race", CreateMode.PERSISTENT);
    await writeAfterSteal(s, zk, a, b);
    const now = serverOf(zk);
    await slowCreateAfterMove(s, zk, now, followers.find((id) => id !== now)!, "/moved/eph", CreateMode.EPHEMERAL);
  },
};

function serverOf(zk: ZooKeeper): string {
  return zk.cnxn.currentAddress!.host;
}

/** Parts 1 and 3: the create of `path` is still on the slow link to A when the session moves to B. */
async function slowCreateAfterMove(s: ScriptContext, zk: ZooKeeper, a: string, b: string, path: string, mode: CreateModeFlag): Promise<void> {
  const open = Ids.OPEN_ACL_UNSAFE;
  s.fault({ kind: "clog", from: ["c1"], to: [a], extraDelayMs: SLOW_LINK_MS, oneWay: true });
  const moved = whenTrace(s, `${a} meets the moved session`, (e) => e.kind === "zk.session.moved" && e.node === a, 30_000);
  const first = outcome(zk.create(path, "1", open, mode));
  s.expectEqual(await first, "CONNECTIONLOSS", "the create pending on the silent connection to A fails as unknown");
  await s.waitFor(() => zk.getState() === "CONNECTED", 20_000, "c1 re-attaches its session");
  s.expectEqual(serverOf(zk), b, "c1 re-attached its session through the other follower");
  s.note(`c1 moved to ${b}; its create is still on the slow link to ${a}`);
  const ev = await moved;
  s.expectEqual(ev?.kind === "zk.session.moved" ? ev.fields.op : undefined, "create", `${a} closed c1's old connection without replying to the create`);
  s.fault({ kind: "unclog" });
  s.expectEqual(await outcome(zk.create(path, "2", open, mode)), "ok", "the create was never applied: the retry on B succeeds");
  s.expectEqual(text((await zk.getData(path)).data), "2", "the retry's data, not the stale create's");
}

/** Part 2: a handle with c1's session id and password takes the session to A; c1's next write on B. */
async function writeAfterSteal(s: ScriptContext, zk: ZooKeeper, a: string, b: string): Promise<void> {
  const other = await s.connect("c2", { servers: [a], sessionTimeoutMs: SESSION_TIMEOUT_MS, sessionId: zk.getSessionId(), sessionPasswd: zk.getSessionPasswd() });
  s.expectEqual(other.getSessionId(), zk.getSessionId(), "c2 re-attached c1's session at A");
  s.fault({ kind: "crash", node: "c2" });
  s.note(`c2 took c1's session to ${a} and died; c1's connection to ${b} is now the old one`);
  const moved = whenTrace(s, `${b} meets the moved session`, (e) => e.kind === "zk.session.moved" && e.node === b, 30_000);
  s.expectEqual(await outcome(zk.setData("/moved/race", "3", -1)), "CONNECTIONLOSS", "a write on the old connection is answered by a close: unknown outcome");
  const closed = await moved;
  s.expectEqual(closed?.kind === "zk.session.moved" ? closed.fields.op : undefined, "setData", `${b} closed c1's connection without replying to the setData`);
  await s.waitFor(() => zk.getState() === "CONNECTED", 20_000, "c1 re-attaches its session again");
  s.expectEqual(await outcome(zk.setData("/moved/race", "3", 0)), "ok", "the stale setData was not applied: version 0 still matches");
  const { data, stat } = await zk.getData("/moved/race");
  s.expectEqual([text(data), stat.version], ["3", 1], "the retried setData was applied exactly once");
}
