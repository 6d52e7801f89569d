/**
 * Dynamic reconfiguration (3.5+, docs/zookeeper.md §7.10), driven through the client's
 * `reconfig` / `getConfig` as an administrator would with zkCli:
 * - reconfig-add-server: two servers started outside the config (as non-voting followers) are
 *   added; a client without the super user is refused (NOAUTH); the config version moves;
 * - reconfig-remove-leader: the leader removes itself; it stops committing and steps down, a
 *   voter of the new config leads, writes go on;
 * - reconfig-partition: with two followers cut off, a config that needs them is refused
 *   (NEWCONFIGNOQUORUM) and one that does not is committed; after the heal every server,
 *   the removed one too, converges to the last committed config.
 * The scripts judge what a client sees and that the ensemble settles; the reconfig checkers
 * (src/check/reconfig/) judge safety over the trace.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ZooKeeper } from "../../zk/client/zoo-keeper.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

const OPEN = Ids.OPEN_ACL_UNSAFE;
/** The password of the scenarios' `superDigest` (super:xQJmxLMiHGwaqBvst5y6rkB6HQs=). */
const SUPER_AUTH = "super:admin";
const text = (data: Uint8Array | null): string => new TextDecoder().decode(data ?? new Uint8Array());

/** A client authenticated as the super user, which the /zookeeper/config ACL requires for reconfig. */
export async function adminClient(s: ScriptContext, node: string, servers?: readonly string[]): Promise<ZooKeeper> {
  const zk = await s.connect(node, servers === undefined ? {} : { servers });
  zk.addAuthInfo("digest", new TextEncoder().encode(SUPER_AUTH));
  return zk;
}

/** The `server.N=` sids of a config text. */
export function sidsOf(config: string): number[] {
  return [...config.matchAll(/^server\.(\d+)=/gm)].map((m) => Number(m[1]));
}

/** The server spec a simulated server is added with (`host:quorumPort:electionPort:role;clientPort`). */
export function joinerSpec(sid: number, host: string, role: "participant" | "observer" = "participant"): string {
  return `server.${sid}=${host}:2888:3888:${role};2181`;
}

/**
 * Waits until one leader serves and every running server runs its committed config, read
 * afresh at each check: a reconfig the client saw fail (CONNECTIONLOSS) may still commit after
 * the heal, moving the target on.
 */
export async function convergedOnLeader(s: ScriptContext, ens: EnsembleView, timeoutMs: number): Promise<boolean> {
  const onLeaders = () => {
    const leader = ens.leader();
    const version = leader === undefined ? undefined : ens.peer(leader)?.qv.version;
    return version !== undefined && s.servers.every((id) => s.sim.node(id).status !== "up" || ens.peer(id)?.qv.version === version);
  };
  return s.waitFor(onLeaders, timeoutMs, "every running server activates the serving leader's committed config");
}

/** Waits until every running server's committed config has `version`. */
export async function converged(s: ScriptContext, ens: EnsembleView, version: bigint, timeoutMs: number): Promise<boolean> {
  return s.waitFor(() => s.servers.every((id) => s.sim.node(id).status !== "up" || ens.peer(id)?.qv.version === version), timeoutMs, `every running server activates config 0x${version.toString(16)}`);
}

export const reconfigAddServer: ScriptDef = {
  name: "reconfig-add-server",
  description: "reconfig: two servers started outside the config are added; a non-super client is refused",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    if ((await ens.settled(30_000)) === undefined) return;
    const joiners = s.servers.slice(3);
    // Connected to an initial member: a joiner's own /zookeeper/config lists itself until it is added.
    const user = await s.connect(s.clients[1]!, { servers: s.servers.slice(0, 3) });
    const spec = joiners.map((host) => joinerSpec(s.servers.indexOf(host) + 1, host)).join(",");
    await s.expectError(user.reconfig(spec, null, null), "NOAUTH", "reconfig needs WRITE on /zookeeper/config, which only the super user has");
    const before = await user.getConfig();
    s.expectEqual(sidsOf(text(before.data)), [1, 2, 3], "the initial config lists the three voters");
    const admin = await adminClient(s, s.clients[0]!);
    const after = await admin.reconfig(spec, null, null, -1n);
    const config = text(after.data);
    s.expectEqual(sidsOf(config), [1, 2, 3, 4, 5], "the new config adds the two joiners");
    s.expect(config.endsWith(`version=${after.stat.mzxid.toString(16)}`), `the new config's version is its reconfig's zxid (${config.split("\n").pop() ?? ""})`);
    s.note(`added ${joiners.join(", ")}: version ${after.stat.mzxid.toString(16)}`);
    await s.expectError(admin.reconfig(null, "4", null, 1n), "BADVERSION", "a reconfig from a config version that is not the last one");
    await admin.create("/after-add", "v", OPEN, CreateMode.PERSISTENT);
    s.expect(await converged(s, ens, after.stat.mzxid, 30_000), "every server runs the new config");
    s.conclude("the joiners were added by a super user's reconfig, every server activated the new config, and writes went on");
  },
};

export const reconfigRemoveLeader: ScriptDef = {
  name: "reconfig-remove-leader",
  description: "reconfig: the leader removes itself, stops committing, steps down; a voter of the new config leads",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const sid = s.servers.indexOf(leader) + 1;
    const others = s.servers.filter((id) => id !== leader);
    const admin = await adminClient(s, s.clients[0]!, others);
    await admin.create("/before", "v", OPEN, CreateMode.PERSISTENT);
    const after = await admin.reconfig(null, String(sid), null);
    s.expect(!sidsOf(text(after.data)).includes(sid), `the new config no longer lists the leader (sid ${sid})`);
    const next = await s.waitFor(() => others.some((id) => ens.peer(id)?.state === "LEADING" && ens.peer(id)?.serving === true), 30_000, "a voter of the new config leads");
    s.expect(next, "a server of the new config leads and serves");
    // Not allowed to commit any more, it loses its synced followers and gives up after syncLimit ticks.
    s.expect(await s.waitFor(() => ens.peer(leader)?.state !== "LEADING", 30_000, `${leader} steps down`), `${leader} no longer leads`);
    await admin.create("/after", "v", OPEN, CreateMode.PERSISTENT);
    s.expect(await converged(s, ens, after.stat.mzxid, 30_000), "every server runs the new config");
    s.conclude(`${leader} removed itself; it stepped down and a voter of the new config took over`);
  },
};

export const reconfigPartition: ScriptDef = {
  name: "reconfig-partition",
  description: "reconfig under a partition: a config without a synced quorum is refused, one with it commits; all converge after the heal",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    const leader = await ens.settled(30_000);
    if (leader === undefined) return;
    const followers = s.servers.filter((id) => id !== leader);
    const [a, b, c, d] = followers as [string, string, string, string];
    const sidOf = (id: string): number => s.servers.indexOf(id) + 1;
    s.fault({ kind: "partition", groups: [[a, b], [leader, c, d, ...s.clients]] });
    s.note(`${a} and ${b} are cut off; ${leader}, ${c} and ${d} still form a quorum of five`);
    await s.waitFor(() => ens.peer(a)?.state === "LOOKING" && ens.peer(b)?.state === "LOOKING", 30_000, "the cut-off followers lose their leader");
    const admin = await adminClient(s, s.clients[0]!, [leader, c, d]);
    await s.expectError(admin.reconfig(null, `${sidOf(c)},${sidOf(d)}`, null), "NEWCONFIGNOQUORUM", `a config of ${leader}, ${a}, ${b} has no synced quorum`);
    const after = await admin.reconfig(null, String(sidOf(a)), null);
    s.expect(!sidsOf(text(after.data)).includes(sidOf(a)), `${a} is removed while cut off`);
    await admin.create("/during", "v", OPEN, CreateMode.PERSISTENT);
    s.fault({ kind: "heal" });
    s.expect(await converged(s, ens, after.stat.mzxid, 60_000), "after the heal every server, the removed one too, runs the last committed config");
    s.conclude(`the refused reconfig changed nothing; ${a} was removed under the partition and learnt it after the heal`);
  },
};
