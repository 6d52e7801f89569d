/**
 * `zk.async`, the Java-style callback API, against the real standalone server: rc OK with the
 * result, rc codes with null results, CONNECTIONLOSS for ops pending at a cut, and callbacks in
 * request order.
 */
import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { ZooKeeperServer } from "../../../src/zk/server/zoo-keeper-server.js";
import { Code } from "../../../src/zk/proto/error-code.js";
import { CreateMode, Ids, type Stat } from "../../../src/zk/proto/records.js";
import { createClient, Op, type OpResult, type ZooKeeper } from "../../../src/zk/client/index.js";
import { dec } from "./fake-server.js";

async function connectedClient(): Promise<{ sim: Simulator; zk: ZooKeeper; runMs(ms: number): Promise<void> }> {
  const sim = new Simulator({ seed: 5, retainTrace: true });
  sim.addNode("s1", (ctx) => new ZooKeeperServer(ctx, { tickTimeMs: 2000 }), { fsyncLatencyUs: 2_000 });
  let zk!: ZooKeeper;
  sim.addNode("c1", (ctx) => ((zk = createClient(ctx, { connectString: "s1", sessionTimeoutMs: 10_000 })), {}));
  sim.start("s1");
  sim.start("c1");
  const runMs = async (ms: number) => void (await sim.run({ untilUs: sim.nowUs + ms * 1000 }));
  await runMs(100);
  expect(zk.getState()).toBe("CONNECTED");
  return { sim, zk, runMs };
}

const open = Ids.OPEN_ACL_UNSAFE;
const version = (stat: Stat | null) => (stat === null ? null : stat.version);

describe("client: async callbacks", () => {
  it("client: async: rc OK with each op's result, rc codes with null results, callbacks in request order", async () => {
    const { zk, runMs } = await connectedClient();
    const log: unknown[][] = [];
    const ctx = { tag: "mine" };
    const seen = (op: string) => (rc: number, path: string | null, c: unknown, ...rest: unknown[]) => {
      expect(c).toBe(ctx);
      log.push([op, rc, path, ...rest]);
    };
    const a = zk.async;
    a.create("/a", "v0", open, CreateMode.PERSISTENT, seen("create"), ctx);
    a.create2("/a/s-", "", open, CreateMode.EPHEMERAL_SEQUENTIAL, (rc, path, c, name, stat) => seen("create2")(rc, path, c, name, stat?.ephemeralOwner === zk.getSessionId()), ctx);
    a.setData("/a", "v1", 0, (rc, path, c, stat) => seen("setData")(rc, path, c, version(stat)), ctx);
    a.getData("/a", false, (rc, path, c, data, stat) => seen("getData")(rc, path, c, dec(data), version(stat)), ctx);
    a.exists("/a", false, (rc, path, c, stat) => seen("exists")(rc, path, c, stat?.numChildren), ctx);
    a.getChildren("/a", false, seen("getChildren"), ctx);
    a.getChildren2("/a", false, (rc, path, c, children, stat) => seen("getChildren2")(rc, path, c, children, stat?.numChildren), ctx);
    a.getACL("/a", (rc, path, c, acl, stat) => seen("getACL")(rc, path, c, acl?.length, version(stat)), ctx);
    a.sync("/a", seen("sync"), ctx);
    a.getAllChildrenNumber("/a", seen("getAllChildrenNumber"), ctx);
    a.getEphemerals("/", (rc, c, paths) => seen("getEphemerals")(rc, null, c, paths), ctx);
    a.multi([Op.check("/a", 1), Op.setData("/a", "v2", 1)], (rc, path, c, results) => seen("multi")(rc, path, c, results?.map((r) => r.kind)), ctx);
    // Failures: the code, null results.
    a.getData("/missing", false, seen("getData"), ctx);
    a.exists("/missing", false, seen("exists"), ctx);
    a.delete("/missing", -1, seen("delete"), ctx);
    a.create("/a", "", open, CreateMode.PERSISTENT, seen("create"), ctx);
    a.getAllChildrenNumber("/missing", seen("getAllChildrenNumber"), ctx);
    a.multi([Op.setData("/a", "v3", -1), Op.check("/missing", 0)], (rc, path, c, results: OpResult[] | null) => seen("multi")(rc, path, c, results?.map((r) => (r.kind === "error" ? r.err : r.kind))), ctx);
    await runMs(500);
    expect(log).toEqual([
      ["create", Code.OK, "/a", "/a"],
      ["create2", Code.OK, "/a/s-", "/a/s-0000000000", true],
      ["setData", Code.OK, "/a", 1],
      ["getData", Code.OK, "/a", "v1", 1],
      ["exists", Code.OK, "/a", 1],
      ["getChildren", Code.OK, "/a", ["s-0000000000"]],
      ["getChildren2", Code.OK, "/a", ["s-0000000000"], 1],
      ["getACL", Code.OK, "/a", 1, 1],
      ["sync", Code.OK, "/a"],
      ["getAllChildrenNumber", Code.OK, "/a", 1],
      ["getEphemerals", Code.OK, null, ["/a/s-0000000000"]],
      ["multi", Code.OK, null, ["check", "setData"]],
      ["getData", Code.NONODE, "/missing", null, null],
      ["exists", Code.NONODE, "/missing", null],
      ["delete", Code.NONODE, "/missing"],
      ["create", Code.NODEEXISTS, "/a", null],
      ["getAllChildrenNumber", Code.NONODE, "/missing", -1],
      // Java's MultiCallback: the first code that is not OK, and every result.
      ["multi", Code.NONODE, null, [Code.OK, Code.NONODE]],
    ]);
  });

  it("client: async: ops pending at a cut call back CONNECTIONLOSS, in request order", async () => {
    const { sim, zk, runMs } = await connectedClient();
    const log: string[] = [];
    zk.async.create("/x", "", open, CreateMode.PERSISTENT, (rc, path) => log.push(`${rc} ${path}`));
    await runMs(100);
    sim.network.cut(["c1"], ["s1"]);
    zk.async.setData("/x", "1", -1, (rc, path, ctx, stat) => log.push(`${rc} ${path} ${String(ctx)} ${String(stat)}`), "c1");
    zk.async.getData("/x", false, (rc, path, ctx, data) => log.push(`${rc} ${path} ${String(ctx)} ${String(data)}`), "c2");
    zk.async.multi([Op.delete("/x", -1)], (rc, path, ctx, results) => log.push(`${rc} ${path} ${String(ctx)} ${String(results)}`), "c3");
    await runMs(8000); // the read timeout (2/3 of 10 s) ends the connection
    expect(log).toEqual([`${Code.OK} /x`, `${Code.CONNECTIONLOSS} /x c1 null`, `${Code.CONNECTIONLOSS} /x c2 null`, `${Code.CONNECTIONLOSS} null c3 null`]);
  });
});
