/**
 * reconfig-swarm: swarm testing of dynamic reconfiguration. From the run's seed (rng stream
 * "reconfig-swarm"), a fault phase of reconfigs — remove a voter (the leader too), add one back
 * as a participant or an observer, replace the membership whole (non-incremental), each from the
 * current version or any — interleaved with crashes and restarts of servers and partitions that
 * cut a server off, while a client writes. Then heal everything, restart the crashed, and demand
 * one serving leader and every running server on the last committed config.
 * The script judges only liveness (settles, converges); the reconfig and ZAB checkers judge
 * safety over the trace. A reconfig may fail (NEWCONFIGNOQUORUM, RECONFIGINPROGRESS,
 * BADVERSION, CONNECTIONLOSS…): that is the point of drawing them under faults.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ZooKeeper } from "../../zk/client/zoo-keeper.js";
import { KeeperException } from "../../zk/client/keeper-exception.js";
import type { Rng } from "../../sim/rng.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { adminClient, convergedOnLeader, joinerSpec } from "./reconfig.js";

const OPEN = Ids.OPEN_ACL_UNSAFE;
const STEPS = 8;

/** One reconfig drawn over the current membership (by sid); the client call to make. */
function drawReconfig(rng: Rng, servers: readonly string[], members: ReadonlySet<number>): { label: string; call: (zk: ZooKeeper) => Promise<unknown> } {
  const sids = servers.map((_, i) => i + 1);
  const inside = sids.filter((sid) => members.has(sid));
  const outside = sids.filter((sid) => !members.has(sid));
  const fromConfig = -1n;
  const kind = rng.pick(outside.length > 0 ? ["remove", "add", "add", "observer", "whole"] : ["remove", "observer", "whole"]);
  if (kind === "remove" && inside.length > 3) {
    const sid = rng.pick(inside);
    return { label: `remove ${sid}`, call: (zk) => zk.reconfig(null, String(sid), null, fromConfig) };
  }
  if ((kind === "add" || kind === "remove") && outside.length > 0) {
    const sid = rng.pick(outside);
    return { label: `add ${sid}`, call: (zk) => zk.reconfig(joinerSpec(sid, servers[sid - 1]!), null, null, fromConfig) };
  }
  if (kind === "observer") {
    const sid = rng.pick(sids);
    return { label: `${sid} as observer`, call: (zk) => zk.reconfig(joinerSpec(sid, servers[sid - 1]!, "observer"), null, null, fromConfig) };
  }
  // Non-incremental: a random 3 to 5 voters.
  const chosen = rng.shuffle([...sids]).slice(0, rng.int(3, sids.length)).sort((a, b) => a - b);
  const whole = chosen.map((sid) => joinerSpec(sid, servers[sid - 1]!)).join("\n");
  return { label: `whole ${chosen.join(",")}`, call: (zk) => zk.reconfig(null, null, whole, fromConfig) };
}

/** A crash, a restart or a partition of one server, or nothing. */
function drawFault(s: ScriptContext, rng: Rng, down: Set<string>): void {
  const pick = rng.int(0, 3);
  const target = rng.pick([...s.servers]);
  if (pick === 0 && !down.has(target) && down.size < 1) {
    s.fault({ kind: "crash", node: target });
    down.add(target);
    s.note(`crash ${target}`);
  } else if (pick === 1 && down.size > 0) {
    const back = [...down][0]!;
    s.fault({ kind: "start", node: back });
    down.delete(back);
    s.note(`restart ${back}`);
  } else if (pick === 2) {
    s.fault({ kind: "partition", groups: [[target], s.servers.filter((id) => id !== target).concat(s.clients)] });
    s.note(`cut off ${target}`);
  } else {
    s.fault({ kind: "heal" });
  }
}

/** A ZooKeeper error (CONNECTIONLOSS and the like, expected under the faults) becomes undefined; anything else is a bug. */
function keeperErrorAsUndefined(e: unknown): undefined {
  if (e instanceof KeeperException) return undefined;
  throw e;
}

/** The voters of the config a server answers with; undefined under the faults (draw from the last known). */
async function membersNow(zk: ZooKeeper): Promise<Set<number> | undefined> {
  const got = await zk.getConfig().catch(keeperErrorAsUndefined);
  if (got === undefined) return undefined;
  const text = new TextDecoder().decode(got.data ?? new Uint8Array());
  return new Set([...text.matchAll(/^server\.(\d+)=[^\n]*:participant/gm)].map((m) => Number(m[1])));
}

export const reconfigSwarm: ScriptDef = {
  name: "reconfig-swarm",
  description: "swarm: seed-drawn reconfigs (remove, add, observer, whole) under crashes and partitions, then heal and converge",
  async run(s) {
    const rng = s.sim.rng.fork("reconfig-swarm");
    const ens = new EnsembleView(s.sim, s);
    if ((await ens.settled(30_000)) === undefined) return;
    const admin = await adminClient(s, s.clients[0]!, s.servers);
    const writer = await s.connect(s.clients[1]!, { servers: s.servers });
    await writer.create("/swarm", "", OPEN, CreateMode.PERSISTENT);
    let members = new Set(s.servers.map((_, i) => i + 1));
    const down = new Set<string>();
    let writes = 0;
    for (let step = 0; step < STEPS; step++) {
      drawFault(s, rng, down);
      const r = drawReconfig(rng, s.servers, members);
      const outcome = await r.call(admin).then(() => "ok", (e: { codeName?: string }) => e.codeName ?? "error");
      s.note(`${r.label}: ${outcome}`);
      writer.setData("/swarm", String(writes++), -1).catch(keeperErrorAsUndefined);
      await s.sleepMs(rng.int(200, 3000));
      members = (await membersNow(admin)) ?? members;
    }
    s.fault({ kind: "heal" });
    for (const node of down) s.fault({ kind: "start", node });
    const leader = await ens.settled(60_000, "the healed ensemble converges: one serving leader, every server serving", true);
    if (leader === undefined) return;
    s.expect(await convergedOnLeader(s, ens, 30_000), "every running server runs the serving leader's committed config");
    await s.sleepMs(31_000); // a quiet stretch for reconfig.convergence to judge
  },
};
