import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { ZooKeeperServer, type ZooKeeperServerConfig } from "../../../src/zk/server/zoo-keeper-server.js";
import { DataTree, type DataTreeSnapshot } from "../../../src/zk/server/data-tree.js";
import { DataTreeWalk, readSnapshotFile, snapshotFileName } from "../../../src/zk/server/fuzzy-snapshot.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { CreateMode, Ids, type Zxid } from "../../../src/zk/proto/records.js";
import { RawClient, enc } from "./raw-client.js";

const create = (path: string, flags: number = CreateMode.PERSISTENT) =>
  ({ kind: "CreateRequest", path, data: enc(path), acl: Ids.OPEN_ACL_UNSAFE, flags }) as const;
const del = (path: string) => ({ kind: "DeleteRequest", path, version: -1 }) as const;
const setData = (path: string, data: string) => ({ kind: "SetDataRequest", path, data: enc(data), version: -1 }) as const;

/** One node per 20 ms step: the walk order below is predictable to the millisecond. */
const SLOW_WALK: Partial<ZooKeeperServerConfig> = { snapCount: 1_000_000, snapChunkNodes: 1, snapChunkIntervalUs: 20_000 };
// Names whose Java hash buckets (in the root's 32-bucket children set) fall between /m's and
// /z-unreached's, so the walk visits them after /m and before /z-unreached.
const FILLERS = ["/n11", "/n12", "/n13", "/n14", "/n15", "/n16", "/n18", "/n23", "/n25", "/n26"];

interface Outcome {
  /** The tree of every synced (hence applied) txn, just before the crash. */
  before: DataTreeSnapshot;
  /** The tree the restarted server recovered from snapshot + log. */
  after: DataTreeSnapshot;
  /** What the fuzzy snapshot file holds, and the zxid it is named by. */
  file: DataTreeSnapshot;
  snapZxid: Zxid;
}

/**
 * A standalone server takes a fuzzy snapshot while a client writes. Walk order (pre-order,
 * children in Java's HashSet order, as ZooKeeper's serializeNode walks): /, /zookeeper and its
 * two children, /a-passed, /m, the fillers, /z-unreached and its children.
 * The writes land between the walk's visit of /a-passed (≈ +100 ms) and /m (≈ +120 ms).
 */
function crashDuringFuzzySnapshot(config: Partial<ZooKeeperServerConfig>): Outcome {
  const sim = new Simulator({ seed: 7, retainTrace: true });
  let server!: ZooKeeperServer;
  sim.addNode("s1", (ctx) => (server = new ZooKeeperServer(ctx, { tickTimeMs: 2000, ...SLOW_WALK, ...config })), { fsyncLatencyUs: 2_000 });
  const clients: RawClient[] = [];
  for (const id of ["c1", "c2"]) sim.addNode(id, (ctx) => (clients.push(new RawClient(ctx)), {}));
  for (const id of ["s1", "c1", "c2"]) sim.start(id);
  const [c1, c2] = clients as [RawClient, RawClient];
  c1.connect({ timeoutMs: 30_000 });
  c2.connect({ timeoutMs: 30_000 });
  sim.runSync({ untilUs: 50_000 });
  const xids: number[] = [];
  const send = (c: RawClient, type: number, req: Parameters<RawClient["send"]>[1]): void => void xids.push(c.send(type, req));

  for (const p of ["/a-passed", "/m", ...FILLERS, "/z-unreached", "/z-unreached/old", "/z-unreached/keep"]) send(c1, OpCode.create, create(p));
  send(c2, OpCode.create, create("/z-unreached/eph", CreateMode.EPHEMERAL));
  sim.runSync({ untilUs: sim.nowUs + 100_000 });

  const start = sim.nowUs;
  server.zkDb.startSnapshot();
  const snapZxid = server.zkDb.snapshotRunning!.zxid;
  sim.runSync({ untilUs: start + 110_000 });
  // The walk has copied / and /a-passed, and not yet /m.
  send(c1, OpCode.create, create("/a-passed/c")); // passed parent: create + delete
  send(c1, OpCode.delete, del("/a-passed/c"));
  send(c1, OpCode.create, create("/a-passed/e")); // passed parent: a child the file lacks
  send(c1, OpCode.setData, setData("/a-passed", "x1"));
  send(c1, OpCode.create, create("/z-unreached/c")); // unreached parent: create + delete …
  send(c1, OpCode.delete, del("/z-unreached/c"));
  send(c1, OpCode.create, create("/z-unreached/d")); // … and a create the file already holds
  send(c1, OpCode.delete, del("/z-unreached/old")); // a delete the file already holds
  send(c1, OpCode.setData, setData(FILLERS[5]!, "y"));
  send(c1, OpCode.create, create("/new-top")); // under the root, which the walk passed
  send(c2, OpCode.closeSession, { kind: "Empty" }); // its ephemeral goes before the walk gets there
  sim.runSync({ untilUs: start + 1_000_000 });
  expect(server.zkDb.snapshotRunning).toBeUndefined();
  // After the snapshot: replayed from the new log.
  send(c1, OpCode.create, create("/after"));
  send(c1, OpCode.setData, setData("/m", "z"));
  sim.runSync({ untilUs: sim.nowUs + 100_000 });
  for (const x of xids) expect([x, (c1.replyTo(x) ?? c2.replyTo(x))?.header.err]).toEqual([x, 0]);

  const before = server.zkDb.dataTree.serialize();
  const file = readSnapshotFile(sim.node("s1").disk.read(snapshotFileName(snapZxid)));
  sim.restart("s1");
  return { before, after: server.zkDb.dataTree.serialize(), file: file!, snapZxid };
}

/** A standalone server and one connected raw client; `server()` is the current incarnation's. */
function standalone(seed: number, config: Partial<ZooKeeperServerConfig>): { sim: Simulator; server: () => ZooKeeperServer; c: RawClient } {
  const sim = new Simulator({ seed, retainTrace: true });
  let server!: ZooKeeperServer;
  sim.addNode("s1", (ctx) => (server = new ZooKeeperServer(ctx, { tickTimeMs: 2000, ...config })));
  let c!: RawClient;
  sim.addNode("c1", (ctx) => ((c = new RawClient(ctx)), {}));
  sim.start("s1");
  sim.start("c1");
  c.connect({ timeoutMs: 30_000 });
  sim.runSync({ untilUs: 50_000 });
  return { sim, server: () => server, c };
}

function nodeOf(snap: DataTreeSnapshot, path: string) {
  return snap.nodes.find((n) => n.path === path);
}

describe("zk: server: fuzzy snapshot", () => {
  it("the walk copies each node when it reaches it, with the children it has then", () => {
    const tree = new DataTree();
    const at = (zxid: bigint) => ({ clientId: 1n, cxid: 0, zxid, time: 0, type: OpCode.create });
    const mk = (path: string, zxid: bigint) => tree.processTxn(at(zxid), { kind: "CreateTxn", path, data: enc(""), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: -1 });
    mk("/a", 1n);
    mk("/b", 2n);
    mk("/b/x", 3n);
    const walk = new DataTreeWalk(tree);
    expect(walk.next(2).map((n) => n.path)).toEqual(["/", "/a"]);
    mk("/a/late", 4n); // under a passed node: never visited
    tree.processTxn({ ...at(5n), type: OpCode.delete }, { kind: "DeleteTxn", path: "/b/x" }); // gone by its turn
    mk("/b/y", 6n); // under a node not reached yet: visited
    const rest = walk.next(100).map((n) => n.path);
    expect(rest).toEqual(["/b", "/b/y", "/zookeeper", "/zookeeper/config", "/zookeeper/quota"]);
    expect(walk.done).toBe(true);
  });

  it("a crash after a snapshot that overlapped creates, deletes and setData recovers every synced txn, Stat included", () => {
    const { before, after, file, snapZxid } = crashDuringFuzzySnapshot({});
    // The file is fuzzy: it misses what happened under nodes the walk had passed, and holds
    // effects of txns after its name under nodes it had not reached.
    expect(file.lastProcessedZxid).toBe(snapZxid);
    expect(nodeOf(file, "/a-passed/e")).toBeUndefined();
    expect(nodeOf(file, "/new-top")).toBeUndefined();
    expect(nodeOf(file, "/a-passed")!.stat.mzxid).toBeLessThanOrEqual(snapZxid);
    expect(nodeOf(file, "/z-unreached/d")!.stat.czxid).toBeGreaterThan(snapZxid);
    expect(nodeOf(file, "/z-unreached/old")).toBeUndefined();
    expect(nodeOf(file, "/z-unreached/eph")).toBeUndefined();
    expect(nodeOf(file, FILLERS[5]!)!.stat.mzxid).toBeGreaterThan(snapZxid);
    expect(file.sessions).toHaveLength(2); // copied at the start, before c2's closeSession
    // Recovery: the same tree, every persisted Stat field (cversion, pzxid …) and the children.
    expect(after).toEqual(before);
    const recovered = DataTree.deserialize(after);
    const original = DataTree.deserialize(before);
    for (const path of ["/", "/a-passed", "/z-unreached"]) expect(recovered.getChildren(path)).toEqual(original.getChildren(path));
    expect(original.getChildren("/z-unreached")!.stat).toMatchObject({ numChildren: 2 });
  });

  it("canary: a recovery that stops at txns the snapshot already holds loses later txns", () => {
    const { before, after } = crashDuringFuzzySnapshot({ canary: "fuzzy-replay-strict" });
    expect(after).not.toEqual(before);
    expect(nodeOf(after, "/after")).toBeUndefined();
  });

  it("canary: a replay without the cversion/pzxid fixups (pre ZOOKEEPER-1046) gets the parent's Stat wrong", () => {
    const { before, after } = crashDuringFuzzySnapshot({ canary: "fuzzy-replay-no-fixup" });
    expect(after.nodes.map((n) => n.path)).toEqual(before.nodes.map((n) => n.path));
    expect(nodeOf(after, "/z-unreached")!.stat.cversion).toBeLessThan(nodeOf(before, "/z-unreached")!.stat.cversion);
    expect(after).not.toEqual(before);
  });

  it("a crash in the middle of a walk leaves no valid snapshot of it: recovery falls back to the older one and the log", () => {
    const { sim, server, c } = standalone(9, SLOW_WALK);
    for (const p of FILLERS) c.send(OpCode.create, create(p));
    sim.runSync({ untilUs: sim.nowUs + 100_000 });
    server().zkDb.startSnapshot();
    const first = server().zkDb.snapshotRunning!.zxid;
    sim.runSync({ untilUs: sim.nowUs + 1_000_000 });
    server().zkDb.startSnapshot(); // nothing applied since: a valid snapshot of this zxid exists
    expect(server().zkDb.snapshotRunning).toBeUndefined();
    c.send(OpCode.create, create("/later"));
    sim.runSync({ untilUs: sim.nowUs + 100_000 });
    server().zkDb.startSnapshot();
    const second = server().zkDb.snapshotRunning!.zxid;
    expect(second).toBeGreaterThan(first);
    sim.runSync({ untilUs: sim.nowUs + 70_000 }); // three nodes into the walk
    expect(server().zkDb.snapshotRunning?.zxid).toBe(second);
    const before = server().zkDb.dataTree.serialize();
    sim.crash("s1");
    expect(readSnapshotFile(sim.node("s1").disk.read(snapshotFileName(second)))).toBeUndefined();
    expect(readSnapshotFile(sim.node("s1").disk.read(snapshotFileName(first)))).toBeDefined();
    sim.start("s1");
    expect(server().zkDb.dataTree.serialize()).toEqual(before);
  });

  it("snapshots start after a randomised number of txns and never overlap; the newest valid one is used", () => {
    const { sim, server, c } = standalone(3, { snapCount: 8, snapChunkNodes: 2, snapChunkIntervalUs: 3_000 });
    const t0 = sim.nowUs;
    for (let i = 0; i < 60; i++) sim.schedule(t0 + i * 4_000, () => c.send(OpCode.create, create(`/k${i}`)));
    sim.runSync({ untilUs: t0 + 2_000_000 });
    const kinds = sim.trace.events.filter((e) => e.kind.startsWith("zk.snapshot.")).map((e) => e.kind);
    expect(kinds.filter((k) => k === "zk.snapshot.start").length).toBeGreaterThan(2);
    // Never two at once: every start is followed by its done before the next start.
    const started = kinds.filter((k) => k !== "zk.snapshot.skipped").join(" ");
    expect(started).toMatch(/^(zk\.snapshot\.start zk\.snapshot\.done ?)+$/);
    const digest = server().zkDb.dataTree.digest();
    sim.restart("s1");
    expect(server().zkDb.dataTree.digest()).toBe(digest);
  });
});
