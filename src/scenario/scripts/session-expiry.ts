/**
 * session-expiry: a client cut off (or paused) past its session timeout. At the tickTime
 * bucket boundary the server expires the session with a closeSession txn: the session's
 * ephemerals vanish and other clients' watches fire; when the client comes back it is told
 * Expired and its handle is dead (SESSIONEXPIRED). On an ensemble the story goes on through a
 * failover (see `failover`).
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ZooKeeper } from "../../zk/client/index.js";
import { EnsembleView } from "./ensemble.js";
import { EventLog, type ScriptContext, type ScriptDef } from "./script.js";

export const sessionExpiry: ScriptDef = {
  name: "session-expiry",
  description: "a partitioned client and a paused client lose their sessions; ephemerals vanish and watchers see it",
  async run(s) {
    const open = Ids.OPEN_ACL_UNSAFE;
    const worker = await s.connect("c1", { sessionTimeoutMs: 4000 });
    const sleeper = await s.connect("c3", { sessionTimeoutMs: 4000 });
    const observer = await s.connect("c2");
    await worker.create("/workers", "", open, CreateMode.PERSISTENT);
    await worker.create("/workers/w1", "alive", open, CreateMode.EPHEMERAL);
    await sleeper.create("/workers/w3", "alive", open, CreateMode.EPHEMERAL);
    const events = new EventLog();
    await observer.exists("/workers/w1", events.watcher);
    await observer.getChildren("/workers", events.watcher);
    const stateEvents = new EventLog();
    worker.register(stateEvents.watcher);

    s.note("c1 is partitioned from the servers for 12 s; its session timeout is 4 s (tickTime 2 s)");
    const cutAt = s.sim.nowUs;
    s.fault({ kind: "partition", groups: [["c1"], [...s.servers, "c2", "c3"]] });
    await s.waitFor(() => events.nodeEvents().includes("NodeDeleted /workers/w1"), 10_000, "c2 sees /workers/w1 deleted");
    const goneAfterMs = (s.sim.nowUs - cutAt) / 1000;
    // Standalone: expiry lies in (timeout, timeout + tick] after the last touch. In an ensemble
    // the follower reports touches to the leader in its next PING reply (every tick/2), and the
    // closeSession must then commit: up to half a tick more.
    const slackMs = s.servers.length > 1 ? 1000 + 300 : 100;
    s.expect(goneAfterMs > 4000 && goneAfterMs <= 4000 + 2000 + slackMs, `the ephemeral vanished ${goneAfterMs} ms after the cut: expected within (timeout, timeout + tick${s.servers.length > 1 ? " + tick/2 (touch reporting)" : ""}]`);
    // The closeSession fires both watches at once, but they are two notifications: the second
    // may still be on the wire when the first is seen.
    await s.waitFor(() => events.nodeEvents().length >= 2, 1_000, "c2 sees /workers change too");
    s.expectEqual(events.nodeEvents(), ["NodeDeleted /workers/w1", "NodeChildrenChanged /workers"], "watch events at c2");
    s.expectEqual(await observer.getChildren("/workers"), ["w3"], "only the live session's ephemeral remains");
    s.expect(worker.getState() !== "CLOSED", "c1 cannot know yet: it only learns of expiry when it reconnects");

    await s.sleepMs(8000);
    s.fault({ kind: "heal" });
    s.note("the partition heals; c1 reconnects and is told its session expired");
    await s.waitFor(() => worker.getState() === "CLOSED", 20_000, "c1 sees its session expire");
    s.expect(stateEvents.events.some((e) => e.type === -1 && e.state === -112), "c1's watcher got (None, Expired)");
    await s.expectError(worker.getData("/workers"), "SESSIONEXPIRED", "an expired handle fails every op");

    s.note("c3 is paused (a GC pause) for 9 s, past its 4 s timeout");
    s.fault({ kind: "pause", node: "c3" });
    await s.sleepMs(9000);
    s.expectEqual(await observer.getChildren("/workers"), [], "the paused client's ephemeral is gone too");
    s.fault({ kind: "resume", node: "c3" });
    await s.waitFor(() => sleeper.getState() === "CLOSED", 20_000, "c3 learns its session expired after resuming");
    if (s.servers.length > 1) await failover(s, observer);
    s.conclude(
      s.servers.length > 1
        ? "both expiries happened at tick boundaries; ephemerals vanished and watchers were told; across a failover, sessions got a full timeout from the new leader"
        : "both expiries happened at tick boundaries; ephemerals vanished and watchers were told",
    );
  },
};

/**
 * Ensembles only: the leader crashes in the middle of two sessions' lives. The new leader knows
 * nothing of when its predecessor last heard from a session, so it gives every session a full
 * timeout from its establishment: a client cut off just before the failover keeps its session
 * (and its ephemeral) a full timeout past the new leader's establishment, and a connected client
 * keeps its session across the failover.
 */
async function failover(s: ScriptContext, observer: ZooKeeper): Promise<void> {
  const ens = new EnsembleView(s.sim, s);
  const leader = await ens.settled(30_000, "one serving leader before the failover");
  if (leader === undefined) return;
  const others = s.servers.filter((id) => id !== leader);
  const lease = await s.connect("c1", { sessionTimeoutMs: 6000, servers: others });
  const survivor = await s.connect("c3", { sessionTimeoutMs: 6000 });
  const survivorSession = survivor.getSessionIdHex();
  await lease.create("/workers/w1f", "alive", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
  const events = new EventLog();
  await observer.exists("/workers/w1f", events.watcher);

  s.note(`failover: c1 (session timeout 6 s) is cut off; 4 s later the leader ${leader} crashes`);
  s.fault({ kind: "partition", groups: [["c1"], [...s.servers, "c2", "c3"]] });
  await s.sleepMs(4000);
  s.fault({ kind: "crash", node: leader });
  const elected = await s.waitFor(() => ens.leader() !== undefined, 30_000, "a new leader serves");
  if (!elected) return;
  const establishedUs = s.sim.nowUs;
  s.note(`${ens.leader()} leads; c1's session must live 6 s more, whatever the old leader last heard`);
  await s.waitFor(() => events.nodeEvents().includes("NodeDeleted /workers/w1f"), 20_000, "c1's ephemeral goes with its session");
  const goneAfterMs = (s.sim.nowUs - establishedUs) / 1000;
  s.expect(goneAfterMs > 6000, `c1's ephemeral vanished ${goneAfterMs} ms after the new leader was established: expected a full timeout (6000 ms) from then`);
  s.expect(survivor.getState() === "CONNECTED" && survivor.getSessionIdHex() === survivorSession, `c3 kept its session ${survivorSession} across the failover`);
  s.expectEqual(await survivor.exists("/workers/w1f"), null, "c3 reads through the new leader's epoch");
  s.fault({ kind: "start", node: leader });
  s.fault({ kind: "heal" });
  await s.waitFor(() => lease.getState() === "CLOSED", 20_000, "c1 learns its session expired");
}
