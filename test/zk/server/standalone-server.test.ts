import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { ZooKeeperServer, type ZooKeeperServerConfig } from "../../../src/zk/server/zoo-keeper-server.js";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { CreateMode, EventType, Ids } from "../../../src/zk/proto/records.js";
import { sessionPassword } from "../../../src/zk/proto/session-id.js";
import { RawClient, dec, enc } from "./raw-client.js";

interface World {
  sim: Simulator;
  server: () => ZooKeeperServer;
  client: (id?: string) => RawClient;
}

function world(config: Partial<ZooKeeperServerConfig> = {}, disk = { fsyncLatencyUs: 2_000 }): World {
  const sim = new Simulator({ seed: 1, retainTrace: true });
  let server!: ZooKeeperServer;
  sim.addNode("s1", (ctx) => (server = new ZooKeeperServer(ctx, { tickTimeMs: 2000, ...config })), disk);
  const clients = new Map<string, RawClient>();
  for (const id of ["c1", "c2"]) sim.addNode(id, (ctx) => (clients.set(id, new RawClient(ctx)), {}));
  sim.start("s1");
  sim.start("c1");
  sim.start("c2");
  return { sim, server: () => server, client: (id = "c1") => clients.get(id)! };
}

const create = (path: string, data = "", flags: number = CreateMode.PERSISTENT) =>
  ({ kind: "CreateRequest", path, data: enc(data), acl: Ids.OPEN_ACL_UNSAFE, flags }) as const;

function connected(w: World, id = "c1", timeoutMs = 10_000): RawClient {
  const c = w.client(id);
  c.connect({ timeoutMs });
  w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
  expect(c.connectResponse?.sessionId).not.toBe(0n);
  return c;
}

describe("zk: server: standalone: sessions", () => {
  it("§3.1 negotiates the timeout into [2×tick, 20×tick]; §3.2 session id and password", () => {
    const w = world();
    const low = w.client("c1");
    low.connect({ timeoutMs: 1000 });
    const high = w.client("c2");
    high.connect({ timeoutMs: 100_000 });
    w.sim.runSync({ untilUs: 50_000 });
    expect(low.connectResponse!.timeOut).toBe(4000);
    expect(high.connectResponse!.timeOut).toBe(40000);
    const id = low.connectResponse!.sessionId;
    expect(id >> 56n).toBe(1n); // server id in the top byte
    expect(high.connectResponse!.sessionId).toBe(id + 1n);
    expect(low.connectResponse!.passwd).toEqual(sessionPassword(id));
  });

  it("session creation is a txn: it consumes a zxid", () => {
    const w = world();
    connected(w);
    expect(w.server().lastProcessedZxid).toBe(1n);
  });

  it("§3.3 expiry: a silent session expires in (timeout, timeout+tick] at a tick boundary and its ephemerals go", () => {
    const w = world();
    const c = connected(w, "c1", 4000);
    const watcher = connected(w, "c2");
    c.send(OpCode.create, create("/e", "x", CreateMode.EPHEMERAL));
    watcher.send(OpCode.exists, { kind: "ExistsRequest", path: "/e", watch: true });
    w.sim.runSync({ untilUs: w.sim.nowUs + 100_000 });
    expect(w.server().zkDb.dataTree.getNode("/e")).toBeDefined();
    const lastTouchMs = w.sim.nowUs / 1000; // c1's last packet (its create) arrived before this
    w.sim.network.cut(["c1"], ["s1"]);
    // c2 keeps its session alive with pings.
    for (let t = 300; t < 12_000; t += 1000) w.sim.schedule(t * 1000, () => watcher.ping());
    w.sim.runSync({ untilUs: 12_000_000 });
    const expire = w.sim.trace.events.find((e) => e.kind === "zk.session.expire")!;
    expect(expire).toBeDefined();
    const expiredAtMs = expire.atUs / 1000;
    expect(expiredAtMs % 2000).toBe(0);
    expect(expiredAtMs).toBeGreaterThan(4000);
    expect(expiredAtMs).toBeLessThanOrEqual(lastTouchMs + 4000 + 2000);
    expect(watcher.notifications.map((n) => (n.response as { event: { type: number; path: string } }).event)).toEqual([
      { type: EventType.NodeDeleted, state: 3, path: "/e" },
    ]);
  });

  it("§3.3 expiry closes the expired session's connection on this server (FinalRequestProcessor), even if it is still open", () => {
    const w = world();
    const c = connected(w, "c1", 4000);
    // Silent, but the TCP connection stays up: no cut, just no pings.
    w.sim.runSync({ untilUs: 12_000_000 });
    expect(w.sim.trace.events.some((e) => e.kind === "zk.session.expire")).toBe(true);
    expect(c.closedReason).toBe("closed");
  });

  it("reconnect with id and password re-attaches; a wrong password gets the invalid answer and a close", () => {
    const w = world();
    const c = connected(w);
    const id = c.connectResponse!.sessionId;
    const again = w.client("c2");
    again.connect({ sessionId: id, passwd: sessionPassword(id) });
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(again.connectResponse).toMatchObject({ sessionId: id, timeOut: 10_000 });
    expect(c.closedReason).toBe("closed"); // the server closed the old connection of that session
    const bad = new RawClient(again.ctx);
    bad.connect({ sessionId: id, passwd: new Uint8Array(16) });
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(bad.connectResponse).toMatchObject({ sessionId: 0n, timeOut: 0 });
    expect(bad.closedReason).toBe("closed");
  });

  it("a client that has seen a newer zxid is refused without an answer", () => {
    const w = world();
    const c = w.client();
    c.connect({ lastZxidSeen: 100n });
    w.sim.runSync({ untilUs: 50_000 });
    expect(c.connectResponse).toBeUndefined();
    expect(c.closedReason).toBe("closed");
  });

  it("closeSession replies, then closes the connection, and deletes the session's ephemerals", () => {
    const w = world();
    const c = connected(w);
    c.send(OpCode.create, create("/e1", "", CreateMode.EPHEMERAL));
    const x = c.send(OpCode.closeSession, { kind: "Empty" });
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(c.replyTo(x)!.header.err).toBe(Code.OK);
    expect(c.closedReason).toBe("closed");
    expect(w.server().zkDb.dataTree.getNode("/e1")).toBeUndefined();
  });
});

describe("zk: server: standalone: pipeline", () => {
  it("a write is acknowledged only after its txn is fsynced", () => {
    const w = world({}, { fsyncLatencyUs: 30_000 });
    const c = connected(w);
    const sentAt = w.sim.nowUs;
    const x = c.send(OpCode.create, create("/a", "1"));
    w.sim.runSync({ untilUs: sentAt + 200_000 });
    const r = c.replyTo(x)!;
    expect(r.header.err).toBe(Code.OK);
    expect(r.atUs - sentAt).toBeGreaterThanOrEqual(30_000);
    const fsyncDone = w.sim.trace.events.filter((e) => e.kind === "disk.fsync.done" && e.atUs > sentAt)[0]!;
    expect(r.atUs).toBeGreaterThanOrEqual(fsyncDone.atUs);
  });

  it("replies are FIFO per session; a read behind a write sees it; failed writes consume a zxid", () => {
    const w = world();
    const c = connected(w);
    const x1 = c.send(OpCode.create, create("/a", "v1"));
    const x2 = c.send(OpCode.getData, { kind: "GetDataRequest", path: "/a", watch: false });
    const x3 = c.send(OpCode.create, create("/a", "again"));
    const x4 = c.send(OpCode.setData, { kind: "SetDataRequest", path: "/missing", data: enc("z"), version: -1 });
    w.sim.runSync({ untilUs: w.sim.nowUs + 100_000 });
    expect(c.replies.map((r) => r.header.xid)).toEqual([x1, x2, x3, x4]);
    expect(dec((c.replyTo(x2)!.response as { data: Uint8Array }).data)).toBe("v1");
    expect(c.replyTo(x3)!.header.err).toBe(Code.NODEEXISTS);
    expect(c.replyTo(x4)!.header.err).toBe(Code.NONODE);
    const zxids = [x1, x3, x4].map((x) => c.replyTo(x)!.header.zxid);
    expect(zxids).toEqual([2n, 3n, 4n]); // zxid 1 was the session; each write, failed or not, took one
  });

  it("§2.5 a watch event reaches the client before the reply of a later read that shows the change", () => {
    const w = world();
    const a = connected(w, "c1");
    const b = connected(w, "c2");
    a.send(OpCode.create, create("/w", "0"));
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    b.send(OpCode.getData, { kind: "GetDataRequest", path: "/w", watch: true });
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    a.send(OpCode.setData, { kind: "SetDataRequest", path: "/w", data: enc("1"), version: -1 });
    const x = b.send(OpCode.getData, { kind: "GetDataRequest", path: "/w", watch: false });
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    const read = b.replyTo(x)!;
    const ev = b.notifications[0]!;
    if (dec((read.response as { data: Uint8Array }).data) === "1") expect(ev.atUs).toBeLessThanOrEqual(read.atUs);
    expect((ev.response as { event: { type: number } }).event.type).toBe(EventType.NodeDataChanged);
  });

  it("bad input: oversized frame closes, unknown op answers UNIMPLEMENTED (zxid −1) and closes, a malformed body is MARSHALLINGERROR and kept, a header cut short closes", () => {
    const w = world({ maxBufferBytes: 1000 });
    const c = connected(w);
    c.send(OpCode.create, create("/big", "x".repeat(2000)));
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(c.closedReason).toBe("closed");
    expect(w.server().zkDb.dataTree.getNode("/big")).toBeUndefined();

    const d = connected(w, "c2");
    d.sendRaw(new Uint8Array([0, 0, 0, 7, 0, 0, 0, 99])); // xid 7, op 99
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(d.replies[0]!.header).toMatchObject({ xid: 7, zxid: -1n, err: Code.UNIMPLEMENTED });
    expect(d.closedReason).toBe("closed");

    const w2 = world();
    const e = connected(w2);
    e.sendRaw(new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 0xff])); // a create whose body is cut short
    w2.sim.runSync({ untilUs: w2.sim.nowUs + 50_000 });
    expect(e.replies[0]!.header).toMatchObject({ xid: 1, err: Code.MARSHALLINGERROR });
    expect(e.closedReason).toBeUndefined();
    e.sendRaw(new Uint8Array([0, 0, 0, 2])); // a header cut short
    w2.sim.runSync({ untilUs: w2.sim.nowUs + 50_000 });
    expect(e.closedReason).toBe("closed");
    expect(w2.sim.trace.events.some((ev) => ev.kind === "zk.cnxn.malformed")).toBe(true);
  });

  it("auth: digest ids are added and used by ACLs; a failed auth closes with AUTHFAILED", () => {
    const w = world();
    const c = connected(w);
    c.send(OpCode.auth, { kind: "AuthPacket", type: 0, scheme: "digest", auth: enc("alice:secret") }, -4);
    const x = c.send(OpCode.create, { kind: "CreateRequest", path: "/mine", data: enc(""), acl: Ids.CREATOR_ALL_ACL, flags: 0 });
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(c.replies[0]!.header).toMatchObject({ xid: -4, err: 0 });
    expect(c.replyTo(x)!.header.err).toBe(Code.OK);
    expect(w.server().zkDb.dataTree.getACL("/mine")!.acl).toEqual([{ perms: 31, id: { scheme: "digest", id: "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=" } }]);
    const other = connected(w, "c2");
    const y = other.send(OpCode.getData, { kind: "GetDataRequest", path: "/mine", watch: false });
    other.send(OpCode.auth, { kind: "AuthPacket", type: 0, scheme: "nope", auth: enc("x") }, -4);
    w.sim.runSync({ untilUs: w.sim.nowUs + 50_000 });
    expect(other.replyTo(y)!.header.err).toBe(Code.NOAUTH);
    expect(other.replies.find((r) => r.header.xid === -4)!.header.err).toBe(Code.AUTHFAILED);
    expect(other.closedReason).toBe("closed");
  });
});

describe("zk: server: standalone: recovery", () => {
  it("restart recovers every acknowledged write from snapshot + log; sessions come back with fresh timeouts", () => {
    const w = world({ snapCount: 3 });
    const c = connected(w);
    for (let i = 0; i < 8; i++) c.send(OpCode.create, create(`/n${i}`, `v${i}`));
    w.sim.runSync({ untilUs: w.sim.nowUs + 200_000 });
    const acked = c.replies.filter((r) => r.header.err === 0).length;
    expect(acked).toBe(8);
    const digest = w.server().zkDb.dataTree.digest();
    w.sim.restart("s1");
    expect(w.server().zkDb.dataTree.digest()).toBe(digest);
    expect(w.sim.node("s1").disk.list().some((f) => f.startsWith("version-2/snapshot."))).toBe(true);
    expect(w.server().sessionTracker.sessionsById.size).toBe(1);
  });

  it("a crash between write and fsync loses only the unacknowledged txn", () => {
    const w = world({}, { fsyncLatencyUs: 20_000 });
    const c = connected(w);
    const x1 = c.send(OpCode.create, create("/durable"));
    w.sim.runSync({ untilUs: w.sim.nowUs + 100_000 });
    expect(c.replyTo(x1)!.header.err).toBe(0);
    const x2 = c.send(OpCode.create, create("/lost"));
    w.sim.runSync({ untilUs: w.sim.nowUs + 5_000 }); // logged, fsync in flight
    w.sim.crash("s1");
    expect(c.replyTo(x2)).toBeUndefined();
    w.sim.start("s1");
    expect(w.server().zkDb.dataTree.getNode("/durable")).toBeDefined();
    expect(w.server().zkDb.dataTree.getNode("/lost")).toBeUndefined();
  });
});
