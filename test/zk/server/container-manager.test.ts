import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { ZooKeeperServer } from "../../../src/zk/server/zoo-keeper-server.js";
import { CreateMode, Ids } from "../../../src/zk/proto/records.js";
import { createClient, type ZooKeeper } from "../../../src/zk/client/index.js";

/** A standalone server whose ContainerManager checks every second, and one connected client. */
async function world(): Promise<{ sim: Simulator; zk: ZooKeeper }> {
  const sim = new Simulator({ seed: 3 });
  sim.addNode("s1", (ctx) => new ZooKeeperServer(ctx, { tickTimeMs: 2000, extendedTypesEnabled: true, containerCheckIntervalMs: 1000 }), { fsyncLatencyUs: 2000 });
  let zk: ZooKeeper | undefined;
  sim.addNode("c1", (ctx) => {
    zk = createClient(ctx, { connectString: "s1:2181", sessionTimeoutMs: 10_000 });
    return {};
  });
  sim.start("s1");
  sim.start("c1");
  await sim.run({ untilUs: 100_000 });
  return { sim, zk: zk! };
}

/** Runs `body` as client code until it settles (or the budget of virtual time runs out). */
async function client<T>(sim: Simulator, body: () => Promise<T>, budgetUs = 20_000_000): Promise<T> {
  let out: { ok: T } | { err: unknown } | undefined;
  void body().then((ok) => (out = { ok }), (err: unknown) => (out = { err }));
  await sim.run({ untilUs: sim.nowUs + budgetUs, until: () => out !== undefined });
  if (out === undefined) throw new Error("client code did not finish");
  if ("err" in out) throw out.err;
  return out.ok;
}

describe("zk: server: ContainerManager (§1.2 containers and TTLs)", () => {
  it("removes several emptied containers and expired TTL nodes in one check, and the server goes on answering", async () => {
    const { sim, zk } = await world();
    const open = Ids.OPEN_ACL_UNSAFE;
    await client(sim, async () => {
      for (const c of ["/c1", "/c2"]) {
        await zk.create(c, "", open, CreateMode.CONTAINER);
        await zk.create(`${c}/k`, "", open, CreateMode.PERSISTENT);
        await zk.delete(`${c}/k`, -1);
      }
      await zk.create("/never-used", "", open, CreateMode.CONTAINER);
      await zk.create("/t", "", open, CreateMode.PERSISTENT_WITH_TTL, 500);
      await zk.create("/ts-", "", open, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, 500);
    });
    expect(await client(sim, () => zk.getChildren("/"))).toHaveLength(6);
    await sim.run({ untilUs: sim.nowUs + 3_000_000 });
    // Both emptied containers and both TTL nodes are gone (every internal delete was answered
    // in turn, so the reply queue did not stall); a container that never had a child stays.
    expect((await client(sim, () => zk.getChildren("/"))).sort()).toEqual(["never-used", "zookeeper"]);
    expect(zk.getState()).toBe("CONNECTED");
    await client(sim, () => zk.create("/after", "x", open, CreateMode.PERSISTENT));
    expect(await client(sim, () => zk.exists("/after"))).not.toBeNull();
  });
});
