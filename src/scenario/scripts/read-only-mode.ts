/**
 * read-only-mode: a follower partitioned from the majority, with read-only mode on (3.8's
 * `readonlymode.enabled`; docs/zookeeper.md §3.7). After max(2 s, tickTime) of LOOKING it starts
 * a ReadOnlyZooKeeperServer: a client that asked for read-only (canBeReadOnly) and can reach only
 * that server gets a local session there (the scenario sets `localSessionsEnabled`, without which
 * 3.8's read-only server gives no session) (ConnectedReadOnly), reads the tree as it was when the
 * partition began, and has every write and sync refused NOTREADONLY; a client that did not ask
 * for read-only is turned away. When the partition heals the server rejoins the quorum, its
 * read-only server shuts down and closes its connections; the read-only client, which has never
 * seen a read/write server, connects with session id 0 and gets a new, global session.
 *
 * c1 is pinned to the minority server (its connect string names only it), as an application
 * co-located with its server: the search for a read/write server (pingRwServer) then asks that
 * server itself, which answers "ro". test/zk/server/quorum/read-only-mode.test.ts covers a search that finds one.
 */
import { createClient, type ZooKeeper, type ClientOptions } from "../../zk/client/index.js";
import { KeeperState, CreateMode, Ids } from "../../zk/proto/records.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import { EnsembleView } from "./ensemble.js";
import { EventLog, text, type ScriptContext, type ScriptDef } from "./script.js";

/** A handle on `node` to `servers` only, not waited for (s.connect waits for CONNECTED). */
export function handle(s: ScriptContext, node: string, servers: readonly string[], options: Partial<ClientOptions>): ZooKeeper {
  const ctx = s.sim.node(node).context;
  if (ctx === undefined) throw new Error(`client node ${node} is down`);
  const connectString = servers.map((id) => `${id}:${CLIENT_PORT}`).join(",");
  return createClient(ctx, { connectString, sessionTimeoutMs: 10_000, ...s.clientDefaults, ...options });
}

/**
 * Once the ensemble (seen through the returned view) settles: a follower (the minority to be) and the others, and client c2 on
 * the others, which has created /config ("v1") and seen it reach the follower.
 */
export async function followerWithConfig(s: ScriptContext): Promise<{ ens: EnsembleView; minority: string; majority: string[]; writer: ZooKeeper } | undefined> {
  const ens = new EnsembleView(s.sim, s);
  const leader = await ens.settled(30_000);
  if (leader === undefined) return undefined;
  const minority = s.servers.find((id) => id !== leader)!;
  const majority = s.servers.filter((id) => id !== minority);
  const writer = await s.connect("c2", { servers: majority });
  await writer.create("/config", "v1", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  await s.waitFor(() => ens.peer(minority)?.zkDb.dataTree.getNode("/config") !== undefined, 5_000, `${minority} has /config`);
  return { ens, minority, majority, writer };
}

/** Waits for `minority`, cut off, to start its read-only server (while LOOKING), and expects it. */
export async function minorityServesReadOnly(s: ScriptContext, ens: EnsembleView, minority: string): Promise<void> {
  const started = await s.waitFor(() => ens.peer(minority)?.readOnlyServer !== undefined, 30_000, `${minority} starts its read-only server`);
  s.expect(started, `${minority} serves read-only while LOOKING`);
}

export const readOnlyMode: ScriptDef = {
  name: "read-only-mode",
  description: "a partitioned follower in read-only mode serves a read-only client stale reads, refuses its writes NOTREADONLY, and the client gets a read/write session after the heal",
  clientRange: [2, 2],
  async run(s) {
    const setup = await followerWithConfig(s);
    if (setup === undefined) return;
    const { ens, minority, majority, writer } = setup;

    s.fault({ kind: "partition", groups: [[minority, "c1"], [...majority, "c2"]] });
    s.note(`${minority} is cut off from ${majority.join(", ")} with client c1; read-only mode is on`);
    await minorityServesReadOnly(s, ens, minority);

    const refused = handle(s, "c1", [minority], {});
    const states = new EventLog();
    const reader = handle(s, "c1", [minority], { canBeReadOnly: true, watcher: states.watcher });
    const roConnected = await s.waitFor(() => reader.getState() === "CONNECTEDREADONLY", 20_000, "c1 connects read-only");
    if (!s.expect(roConnected, "the read-only client is connected read-only")) return;
    s.expect(states.events.some((e) => e.state === KeeperState.ConnectedReadOnly), "the default watcher saw ConnectedReadOnly");
    const roSession = reader.getSessionId();
    s.expectEqual(Number(BigInt.asUintN(64, roSession) >> 56n), ens.peer(minority)!.myid, "the read-only session's id carries the read-only server's myid");

    await writer.setData("/config", "v2", -1);
    s.expectEqual(text((await reader.getData("/config")).data), "v1", "c1 reads the tree as it was when the partition began");
    await s.expectError(reader.setData("/config", "from-c1", -1), "NOTREADONLY", "setData on a read-only server");
    await s.expectError(reader.create("/c1", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT), "NOTREADONLY", "create on a read-only server");
    await s.expectError(reader.sync("/config"), "NOTREADONLY", "sync on a read-only server");
    s.expect(refused.getState() !== "CONNECTED" && refused.getState() !== "CONNECTEDREADONLY", "a client that did not ask for read-only is not served");
    s.note(`c1 read "v1" read-only (session ${reader.getSessionIdHex()}); its writes were refused NOTREADONLY`);
    // Its search for a read/write server asks the only host it knows, which answers "ro".
    await s.sleepMs(5000);
    s.expect(reader.getState() === "CONNECTEDREADONLY", "c1 stays connected read-only while its only server answers isro with ro");
    s.expectEqual(text((await reader.getData("/config")).data), "v1", "c1 still reads after its probes");

    s.fault({ kind: "heal" });
    await ens.settled(60_000, "the minority server rejoins after the heal");
    const rw = await s.waitFor(() => reader.getState() === "CONNECTED", 30_000, "c1 gets a read/write session");
    if (!s.expect(rw, "the read-only client is connected read/write after the heal")) return;
    s.expect(reader.getSessionId() !== roSession, "the read/write session is a new one (a read-only session is never re-attached)");
    s.expect(states.events.some((e) => e.state === KeeperState.SyncConnected), "the default watcher saw SyncConnected");
    await reader.setData("/config", "v3", -1);
    s.expectEqual(text((await writer.getData("/config")).data), "v3", "c1's write after the heal is seen by c2");
    await s.waitFor(() => refused.getState() === "CONNECTED", 30_000, "the read/write-only client connects after the heal");
    s.conclude("read-only mode: stale reads and NOTREADONLY in the minority, a new read/write session after the heal");
    await Promise.all([reader.close(), refused.close(), writer.close()]);
  },
};
