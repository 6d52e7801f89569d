/**
 * The client library against the real standalone server (`ZooKeeperServer`): the two halves
 * of the protocol agree on sessions, writes, watches, reconnection and expiry.
 */
import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { ZooKeeperServer } from "../../../src/zk/server/zoo-keeper-server.js";
import { Code } from "../../../src/zk/proto/error-code.js";
import { CreateMode, EventType, Ids, KeeperState } from "../../../src/zk/proto/records.js";
import { createClient, Op, type ClientOptions, type WatchedEvent, type ZooKeeper } from "../../../src/zk/client/index.js";
import { historyFromTrace } from "../../../src/check/history/history.js";
import { annotations, dec, track } from "./fake-server.js";

interface World {
  sim: Simulator;
  server: () => ZooKeeperServer;
  clients: Map<string, ZooKeeper>;
  runMs(ms: number): Promise<void>;
}

function world(clients: Record<string, Partial<ClientOptions>>): World {
  const sim = new Simulator({ seed: 3, retainTrace: true });
  let server!: ZooKeeperServer;
  sim.addNode("s1", (ctx) => (server = new ZooKeeperServer(ctx, { tickTimeMs: 2000 })), { fsyncLatencyUs: 2_000 });
  const handles = new Map<string, ZooKeeper>();
  for (const [id, options] of Object.entries(clients)) {
    sim.addNode(id, (ctx) => {
      handles.set(id, createClient(ctx, { connectString: "s1", sessionTimeoutMs: 10_000, ...options }));
      return {};
    });
  }
  sim.start("s1");
  for (const id of Object.keys(clients)) sim.start(id);
  return { sim, server: () => server, clients: handles, runMs: async (ms) => void (await sim.run({ untilUs: sim.nowUs + ms * 1000 })) };
}

describe("client: server", () => {
  it("client: server: session, writes, reads, one-shot watch before the read that shows the change", async () => {
    const w = world({ c1: {}, c2: {} });
    await w.runMs(100);
    const [a, b] = [w.clients.get("c1")!, w.clients.get("c2")!];
    expect(a.getState()).toBe("CONNECTED");
    expect(a.getSessionTimeout()).toBe(10_000);
    const log: string[] = [];
    const script = (async () => {
      await a.create("/n", "v1", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      const first = await a.getData("/n", (e: WatchedEvent) => log.push(`watch ${e.type} ${e.path}`));
      log.push(`read ${dec(first.data)}`);
      await b.setData("/n", "v2", 0);
      const second = await a.getData("/n");
      log.push(`read ${dec(second.data)} v${second.stat.version}`);
      const seq = await a.create("/n/q-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
      log.push(`created ${seq}`);
      await expect(a.create("/n", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)).rejects.toMatchObject({ code: Code.NODEEXISTS, path: "/n" });
      const results = await a.multi([Op.check("/n", 1), Op.setData("/n", "v3", 1)]);
      log.push(`multi ${results.map((r) => r.kind).join(",")}`);
    })();
    await w.runMs(1000);
    await script;
    expect(log).toEqual(["read v1", `watch ${EventType.NodeDataChanged} /n`, "read v2 v1", "created /n/q-0000000000", "multi check,setData"]);
    expect(a.getLastZxid()).toBe(w.server().lastProcessedZxid);
    const outcomes = annotations(w.sim, "client.complete").map((f) => f.outcome);
    expect(outcomes.filter((o) => o === "fail")).toEqual(["fail"]);
    // The annotations are the history the checkers read.
    const history = historyFromTrace(w.sim.trace.events).filter((op) => op.client === "c1");
    expect(history.map((op) => `${op.op} ${op.path} ${op.outcome}`)).toEqual([
      "create /n ok",
      "getData /n ok",
      "getData /n ok",
      "create /n/q- ok",
      "create /n fail",
      "multi  ok",
    ]);
    expect(history[2]!.result).toMatchObject({ data: "v2", stat: { version: 1 } });
    expect(history[3]!.result).toMatchObject({ path: "/n/q-0000000000" });
    expect(history[5]!.args.ops).toEqual([
      { op: "check", path: "/n", args: { version: 1 } },
      { op: "setData", path: "/n", args: { data: "v3", version: 1 } },
    ]);
    expect(history[5]!.result).toMatchObject({ results: [{ err: "OK" }, { err: "OK", stat: { version: 2 } }] });
  });

  it("client: server: getChildren2, sync, multiRead, getAllChildrenNumber, getEphemerals and whoAmI through the client (§4, §5)", async () => {
    const w = world({ c1: {} });
    await w.runMs(100);
    const a = w.clients.get("c1")!;
    const got: Record<string, unknown> = {};
    const script = (async () => {
      await a.create("/x", "d", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      await a.create("/x/e", "", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      const c2 = await a.getChildren2("/x");
      got.children2 = [c2.children, c2.stat.numChildren, c2.stat.cversion];
      await a.sync("/x");
      got.multiRead = (await a.multiRead([Op.getData("/x"), Op.getChildren("/x"), Op.getData("/nope")])).map((r) => (r.kind === "error" ? r.err : r.kind));
      got.all = await a.getAllChildrenNumber("/");
      got.ephemerals = await a.getEphemerals("/");
      a.addAuthInfo("digest", "alice:secret");
      got.whoAmI = (await a.whoAmI()).map((c) => `${c.authScheme}:${c.user}`);
    })();
    await w.runMs(1000);
    await script;
    expect(got).toEqual({
      children2: [["e"], 1, 1],
      // A multiRead's sub-results stand alone: the missing node fails only its own read.
      multiRead: ["getData", "getChildren", Code.NONODE],
      // Every node but the root, /zookeeper's subtree included: /zookeeper, /zookeeper/config,
      // /zookeeper/quota, /x, /x/e (docs/zookeeper.md §1.7, probed on 3.8.0).
      all: 5,
      ephemerals: ["/x/e"],
      // In the order of the connection's Java ConcurrentHashMap set of identities, as 3.8 lists them.
      whoAmI: ["digest:alice", "ip:10.0.0.2"],
    });
  });

  it("client: server: chroot, and SetWatches after a short partition catches up with a change missed meanwhile", async () => {
    const w = world({ c1: { connectString: "s1/app" }, c2: {} });
    await w.runMs(100);
    const [a, b] = [w.clients.get("c1")!, w.clients.get("c2")!];
    const events: WatchedEvent[] = [];
    const setup = (async () => {
      await b.create("/app", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      await a.create("/x", "1", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      await a.getData("/x", (e) => events.push(e));
    })();
    await w.runMs(200);
    await setup;
    w.sim.network.cut(["c1"], ["s1"]);
    await w.runMs(100);
    const change = track(w.sim, b.setData("/app/x", "2", -1));
    await w.runMs(8000); // c1: read timeout (6.7 s) → Disconnected; the session (10 s) lives on
    expect(change.done && change.error === undefined).toBe(true);
    w.sim.network.heal();
    await w.runMs(5000);
    expect(a.getState()).toBe("CONNECTED");
    expect(events.map((e) => [e.type, e.state, e.path])).toEqual([
      [EventType.None, KeeperState.Disconnected, null],
      [EventType.None, KeeperState.SyncConnected, null],
      [EventType.NodeDataChanged, KeeperState.SyncConnected, "/x"],
    ]);
  });

  it("client: session: expire during partition (N=1) — ephemerals vanish, the client learns Expired on reconnect", async () => {
    const w = world({ c1: { sessionTimeoutMs: 4000 }, c2: {} });
    await w.runMs(100);
    const [a, b] = [w.clients.get("c1")!, w.clients.get("c2")!];
    const states: number[] = [];
    a.register((e) => states.push(e.state));
    const eph = track(w.sim, a.create("/e", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));
    await w.runMs(100);
    expect(eph.value).toBe("/e");
    w.sim.network.cut(["c1"], ["s1"]);
    await w.runMs(10_000);
    const gone = track(w.sim, b.exists("/e"));
    await w.runMs(100);
    expect(gone.value).toBeNull();
    w.sim.network.heal();
    await w.runMs(10_000);
    expect(a.getState()).toBe("CLOSED");
    // One Disconnected for the read timeout, one more per failed attempt while cut off (as Java does).
    expect(states.slice(-2)).toEqual([KeeperState.Expired, KeeperState.Closed]);
    expect(states.slice(0, -2).every((s) => s === KeeperState.Disconnected)).toBe(true);
    const late = track(w.sim, a.getData("/e"));
    await w.runMs(1);
    expect(late.error).toMatchObject({ code: Code.SESSIONEXPIRED });
  });

  it("client: server: close() ends the session and its ephemerals at once", async () => {
    const w = world({ c1: {}, c2: {} });
    await w.runMs(100);
    const [a, b] = [w.clients.get("c1")!, w.clients.get("c2")!];
    const seen: WatchedEvent[] = [];
    const flow = (async () => {
      await a.create("/e", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      await b.exists("/e", (e) => seen.push(e));
      await a.close();
    })();
    await w.runMs(200);
    await flow;
    expect(a.getState()).toBe("CLOSED");
    expect(seen.map((e) => [e.type, e.path])).toEqual([[EventType.NodeDeleted, "/e"]]);
  });
});
