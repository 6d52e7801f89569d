/**
 * ClientCnxn against a scripted fake server: host list, connecting, session establishment,
 * pings, timeouts, reconnect, re-attach, expiry, SetWatches, auth, xids (docs/zookeeper.md §3.5, §2.6).
 */
import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode, Xid } from "../../../src/zk/proto/op-code.js";
import type { SetWatches, SetWatches2 } from "../../../src/zk/proto/packets.js";
import { AddWatchMode, EventType, KeeperState, type WatcherEvent } from "../../../src/zk/proto/records.js";
import { KeeperException, parseConnectString, type WatchedEvent } from "../../../src/zk/client/index.js";
import { annotations, enc, passwordFor, statWith, track, world, type FakeConn } from "./fake-server.js";
import type { RequestHeader, RequestRecord } from "../../../src/zk/proto/packets.js";

const SERVERS = ["s1", "s2", "s3", "s4", "s5", "s6"];

/** Answers reads and writes with OK and a plausible record; `zxid` for writes. */
function okResponder(zxid: () => bigint) {
  return (conn: FakeConn, header: RequestHeader, request: RequestRecord): void => {
    const stat = statWith({ version: 1, mzxid: 3n });
    switch (header.type) {
      case OpCode.getData:
        return conn.reply(header.xid, { response: { kind: "GetDataResponse", data: enc("v"), stat } });
      case OpCode.exists:
        return conn.reply(header.xid, { err: Code.NONODE });
      case OpCode.getChildren:
        return conn.reply(header.xid, { response: { kind: "GetChildrenResponse", children: ["a"] } });
      case OpCode.setData:
        return conn.reply(header.xid, { zxid: zxid(), response: { kind: "SetDataResponse", stat } });
      case OpCode.addWatch:
        return conn.reply(header.xid, { response: { kind: "ErrorResponse", err: 0 } });
      case OpCode.create:
        return conn.reply(header.xid, { zxid: zxid(), response: { kind: "CreateResponse", path: (request as { path: string }).path } });
    }
  };
}

describe("client: hosts", () => {
  it("client: hosts: the connect string gives hosts, default port 2181 and a chroot", () => {
    expect(parseConnectString("s1:2182,s2/app/x")).toEqual({
      hosts: [
        { host: "s1", port: 2182 },
        { host: "s2", port: 2181 },
      ],
      chroot: "/app/x",
    });
    expect(parseConnectString("s1/").chroot).toBeUndefined();
    expect(() => parseConnectString("s1/app/")).toThrow(/invalid chroot/);
    expect(() => parseConnectString("/app")).toThrow(/names no server/);
    expect(() => parseConnectString("s1:abc")).toThrow(/bad port/);
  });

  it("client: hosts: shuffled once with the seeded stream (same seed, same order), first attempt to the first", () => {
    const order = (seed: number) => world({ seed, servers: SERVERS }).client().cnxn.hostProvider.serverAddresses.map((a) => a.host);
    expect(order(7)).toEqual(order(7));
    expect(new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => order(s).join())).size).toBeGreaterThan(1);
    const w = world({ seed: 7, servers: SERVERS });
    expect(annotations(w.sim, "client.connect")[0]!.server).toBe(order(7)[0]);
  });
});

describe("client: connect", () => {
  it("client: connect: each host gets connectTimeout = T/hosts, then the next host after a random sleep; 1 s more after a full cycle", async () => {
    const servers = ["s1", "s2", "s3"];
    const w = world({ servers, sessionTimeoutMs: 30_000 });
    const events: WatchedEvent[] = [];
    w.client().register((e) => events.push(e));
    w.sim.network.partition([["c"]]); // every SYN is lost
    await w.runMs(60_000);
    const attempts = w.sim.trace.events.filter((e) => e.kind === "client.connect").map((e) => ({ atMs: e.atUs / 1000, server: e.fields!.server as string }));
    const order = w.client().cnxn.hostProvider.serverAddresses.map((a) => a.host);
    expect(attempts.slice(0, 4).map((a) => a.server)).toEqual([...order, order[0]]);
    expect(attempts[0]!.atMs).toBe(0);
    const gaps = attempts.slice(1, 4).map((a, i) => a.atMs - attempts[i]!.atMs);
    // connectTimeout 10 000 ms, plus a jitter in [0, 1000); the 4th attempt (back to the first host) also waits 1000 ms.
    for (const g of gaps.slice(0, 2)) expect(g).toBeGreaterThanOrEqual(10_000), expect(g).toBeLessThan(11_000);
    expect(gaps[2]).toBeGreaterThanOrEqual(11_000);
    expect(gaps[2]).toBeLessThan(12_000);
    // Java tells the watchers Disconnected after every failed attempt.
    expect(events.filter((e) => e.state === KeeperState.Disconnected).length).toBe(attempts.length - 1);
    expect(w.client().getState()).toBe("CONNECTING");
  });

  it("client: connect: a refused host is left at once; a silent one (no ConnectResponse) after connectTimeout", async () => {
    const w = world({ seed: 5, servers: ["s1", "s2", "s3"], sessionTimeoutMs: 9000 });
    const order = w.client().cnxn.hostProvider.serverAddresses.map((a) => a.host);
    w.sim.crash(order[0]!); // connection refused
    w.zk.script.onConnect = (conn) => (conn.server === order[1] ? "ignore" : "accept");
    await w.runMs(10_000);
    const attempts = w.sim.trace.events.filter((e) => e.kind === "client.connect").map((e) => ({ atMs: e.atUs / 1000, server: e.fields!.server }));
    expect(attempts.map((a) => a.server)).toEqual(order);
    expect(attempts[1]!.atMs).toBeLessThan(1000 + 10); // refused within a few ms, then the jitter
    const silentFor = attempts[2]!.atMs - attempts[1]!.atMs;
    expect(silentFor).toBeGreaterThanOrEqual(3000); // connectTimeout = 9000 / 3
    expect(silentFor).toBeLessThan(4000 + 10);
    expect(w.zk.connects().map((c) => c.server)).toEqual([order[1], order[2]]);
    expect(w.client().getState()).toBe("CONNECTED");
  });

  it("client: session: establishment adopts the negotiated timeout (readTimeout 2T/3, connectTimeout T/hosts)", async () => {
    const w = world({ servers: ["s1", "s2"], sessionTimeoutMs: 30_000 });
    w.zk.script.negotiate = () => 4000;
    const events: WatchedEvent[] = [];
    w.client().register((e) => events.push(e));
    const zk = w.client();
    expect(zk.cnxn.readTimeoutMs).toBe(20_000);
    expect(zk.cnxn.connectTimeoutMs).toBe(15_000);
    await w.runMs(50);
    expect(zk.getState()).toBe("CONNECTED");
    expect(zk.getSessionTimeout()).toBe(4000);
    expect(zk.cnxn.readTimeoutMs).toBe(2666);
    expect(zk.cnxn.connectTimeoutMs).toBe(2000);
    expect(zk.getSessionId()).toBe(0x100n);
    expect(zk.getSessionIdHex()).toBe("0x100");
    expect(zk.getSessionPasswd()).toEqual(passwordFor(0x100n));
    const req = w.zk.connects()[0]!.request;
    expect(req).toMatchObject({ protocolVersion: 0, lastZxidSeen: 0n, timeOut: 30_000, sessionId: 0n, readOnly: false });
    expect(req.passwd).toEqual(new Uint8Array(16));
    expect(events).toEqual([{ type: EventType.None, state: KeeperState.SyncConnected, path: null }]);
    expect(annotations(w.sim, "client.state").map((f) => f.state)).toEqual(["CONNECTING", "CONNECTED"]);
  });
});

describe("client: ping", () => {
  it("client: ping: an idle session pings (xid −2) every readTimeout/2 and stays connected", async () => {
    const w = world({ sessionTimeoutMs: 30_000 });
    await w.runMs(65_000);
    const pings = w.zk.requests(OpCode.ping);
    expect(pings.every((p) => p.header.xid === Xid.ping)).toBe(true);
    expect(pings.length).toBe(6);
    const gaps = pings.slice(1).map((p, i) => p.atMs - pings[i]!.atMs);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(9000), expect(g).toBeLessThanOrEqual(10_010);
    expect(w.client().getState()).toBe("CONNECTED");
    expect(w.zk.connects().length).toBe(1);
  });

  it("client: ping: traffic postpones pings (they measure send-idleness)", async () => {
    const w = world({ sessionTimeoutMs: 30_000 });
    w.zk.script.onRequest = okResponder(() => 1n);
    await w.runMs(10);
    for (let i = 0; i < 10; i++) {
      track(w.sim, w.client().getData("/a"));
      await w.runMs(3000);
    }
    expect(w.zk.requests(OpCode.ping).length).toBe(0);
  });
});

describe("client: session", () => {
  it("client: session: read timeout during a partition → Disconnected, pending ops fail CONNECTIONLOSS (unknown)", async () => {
    const w = world({ sessionTimeoutMs: 30_000 });
    const events: WatchedEvent[] = [];
    w.client().register((e) => events.push(e));
    await w.runMs(1000);
    const lastHeardMs = w.sim.trace.events.filter((e) => e.kind === "deliver" && e.node === "c").at(-1)!.atUs / 1000;
    w.sim.network.partition([["c"], ["s1"]]);
    const op = track(w.sim, w.client().getData("/x"));
    await w.runMs(25_000);
    expect(op.done).toBe(true);
    expect(op.error).toBeInstanceOf(KeeperException);
    expect((op.error as KeeperException).code).toBe(Code.CONNECTIONLOSS);
    expect((op.error as KeeperException).codeName).toBe("CONNECTIONLOSS");
    expect(op.atMs! - lastHeardMs).toBeGreaterThanOrEqual(20_000);
    expect(op.atMs! - lastHeardMs).toBeLessThan(20_010);
    expect(events.map((e) => e.state)).toEqual([KeeperState.SyncConnected, KeeperState.Disconnected]);
    expect(w.client().getState()).toBe("CONNECTING");
    const complete = annotations(w.sim, "client.complete").at(-1)!;
    expect(complete).toMatchObject({ outcome: "unknown", err: "CONNECTIONLOSS", sent: true });
  });

  it("client: session: reconnect sleeps a random [0,1000) ms, 1000 ms more when back at the last good host; lagging servers are skipped", async () => {
    const w = world({ servers: ["s1", "s2", "s3"] });
    await w.runMs(500);
    const order = w.client().cnxn.hostProvider.serverAddresses.map((a) => a.host);
    // The other two servers close without answering (as one behind in zxid does).
    w.zk.script.onConnect = (conn) => (conn.server === order[0] ? "accept" : "close");
    w.zk.openConn()!.close();
    await w.runMs(5000);
    const attempts = w.sim.trace.events.filter((e) => e.kind === "client.connect").map((e) => ({ atMs: e.atUs / 1000, server: e.fields!.server }));
    expect(attempts.map((a) => a.server)).toEqual([order[0], order[1], order[2], order[0]]);
    const gap = (i: number) => attempts[i]!.atMs - attempts[i - 1]!.atMs;
    expect(gap(1) - 500).toBeLessThan(1000 + 2); // close seen ~1 ms after 500; jitter only
    expect(gap(2)).toBeLessThan(1000 + 10); // refused after a few ms; jitter only
    expect(gap(3)).toBeGreaterThanOrEqual(1000);
    expect(gap(3)).toBeLessThan(2000 + 10);
    expect(w.client().getState()).toBe("CONNECTED");
    expect(w.client().cnxn.currentAddress!.host).toBe(order[0]);
  });

  it("client: session: re-attach presents session id, password and lastZxidSeen; the requested timeout is asked again", async () => {
    const w = world({ sessionTimeoutMs: 12_000 });
    w.zk.script.negotiate = () => 6000;
    w.zk.script.onRequest = okResponder(() => 0x42n);
    await w.runMs(10);
    const write = track(w.sim, w.client().setData("/a", "x", -1));
    await w.runMs(10);
    expect(write.done).toBe(true);
    expect(w.client().getLastZxid()).toBe(0x42n);
    w.zk.openConn()!.close();
    await w.runMs(3000);
    const [first, second] = w.zk.connects();
    expect(first!.request.sessionId).toBe(0n);
    expect(second!.request).toMatchObject({ sessionId: 0x100n, lastZxidSeen: 0x42n, timeOut: 12_000 });
    expect(second!.request.passwd).toEqual(passwordFor(0x100n));
    expect(w.client().getState()).toBe("CONNECTED");
  });

  it("client: session: a handle made with sessionId + password re-attaches on its first attempt", async () => {
    const passwd = passwordFor(0x777n);
    const w = world({ sessionId: 0x777n, sessionPasswd: passwd });
    await w.runMs(10);
    expect(w.zk.connects()[0]!.request.sessionId).toBe(0x777n);
    expect(w.zk.connects()[0]!.request.passwd).toEqual(passwd);
    expect(w.client().getSessionId()).toBe(0x777n);
  });

  it("client: session: expire during partition — timeOut 0 on reconnect → CLOSED, Expired to every watcher, ops fail SESSIONEXPIRED", async () => {
    const w = world({ sessionTimeoutMs: 6000 });
    w.zk.script.onRequest = okResponder(() => 1n);
    const events: WatchedEvent[] = [];
    const dataEvents: WatchedEvent[] = [];
    w.client().register((e) => events.push(e));
    await w.runMs(10);
    const read = track(w.sim, w.client().getData("/d", (e) => dataEvents.push(e)));
    await w.runMs(10);
    expect(read.done).toBe(true);
    w.sim.network.partition([["c"], ["s1"]]);
    await w.runMs(5000); // readTimeout 4000: disconnected by now
    const queued = track(w.sim, w.client().exists("/y"));
    w.zk.script.onConnect = () => "expire";
    w.sim.network.heal();
    await w.runMs(20_000);
    expect(w.client().getState()).toBe("CLOSED");
    expect(events.map((e) => e.state)).toEqual([KeeperState.SyncConnected, KeeperState.Disconnected, KeeperState.Expired, KeeperState.Closed]);
    expect(dataEvents.map((e) => e.state)).toEqual([KeeperState.Disconnected, KeeperState.Expired, KeeperState.Closed]);
    expect((queued.error as KeeperException).code).toBe(Code.SESSIONEXPIRED);
    const after = track(w.sim, w.client().getData("/d"));
    await w.runMs(1);
    expect((after.error as KeeperException).code).toBe(Code.SESSIONEXPIRED);
    expect(annotations(w.sim, "client.state").at(-1)).toMatchObject({ state: "CLOSED", cause: "expired" });
    // Terminal: no more connection attempts.
    const attempts = annotations(w.sim, "client.connect").length;
    await w.runMs(30_000);
    expect(annotations(w.sim, "client.connect").length).toBe(attempts);
  });
});

describe("client: reconnect", () => {
  function watchesWorld(connectString?: string) {
    const w = world(connectString === undefined ? {} : { connectString });
    let zxid = 0x40n;
    w.zk.script.onRequest = okResponder(() => ++zxid);
    return w;
  }

  it("client: reconnect: SetWatches carries every watch and relativeZxid = lastZxid (chroot prefixed)", async () => {
    const w = watchesWorld("s1/app");
    await w.runMs(10);
    const zk = w.client();
    const noop = () => undefined;
    for (const p of [zk.getData("/d", noop), zk.exists("/e", noop), zk.getChildren("/c", noop), zk.setData("/w", "1", -1)] as Promise<unknown>[]) track(w.sim, p);
    await w.runMs(10);
    expect(zk.getLastZxid()).toBe(0x41n);
    w.zk.openConn()!.close();
    await w.runMs(3000);
    const sw = w.zk.requests(OpCode.setWatches);
    expect(sw.length).toBe(1);
    expect(sw[0]!.header.xid).toBe(Xid.setWatches);
    expect(sw[0]!.request).toEqual({ kind: "SetWatches", relativeZxid: 0x41n, dataWatches: ["/app/d"], existWatches: ["/app/e"], childWatches: ["/app/c"] } satisfies SetWatches);
  });

  it("client: reconnect: persistent watches make it SetWatches2", async () => {
    const w = watchesWorld();
    await w.runMs(10);
    track(w.sim, w.client().addWatch("/p", () => undefined, AddWatchMode.PERSISTENT_RECURSIVE));
    await w.runMs(10);
    w.zk.openConn()!.close();
    await w.runMs(3000);
    const sw2 = w.zk.requests(OpCode.setWatches2);
    expect(sw2.map((e) => e.request)).toEqual([
      { kind: "SetWatches2", relativeZxid: 0n, dataWatches: [], existWatches: [], childWatches: [], persistentWatches: [], persistentRecursiveWatches: ["/p"] } satisfies SetWatches2,
    ]);
  });

  it("client: reconnect: SetWatches is batched at ~128 KB of path text", async () => {
    const w = watchesWorld();
    await w.runMs(10);
    const long = "x".repeat(1000);
    for (let i = 0; i < 300; i++) track(w.sim, w.client().getData(`/${long}${i}`, () => undefined));
    await w.runMs(100);
    w.zk.openConn()!.close();
    await w.runMs(3000);
    const batches = w.zk.requests(OpCode.setWatches).map((e) => (e.request as SetWatches).dataWatches.length);
    expect(batches.length).toBe(3);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(300);
    expect(batches[0]).toBe(Math.ceil((128 * 1024) / 1002));
  });

  it("client: reconnect: auth is re-sent first, then SetWatches, then requests queued while disconnected", async () => {
    const w = watchesWorld();
    await w.runMs(10);
    const zk = w.client();
    zk.addAuthInfo("digest", "u:p");
    track(w.sim, zk.getData("/d", () => undefined));
    await w.runMs(10);
    w.sim.network.partition([["c"], ["s1"]]);
    await w.runMs(25_000); // read timeout, then failing attempts
    const queued = track(w.sim, zk.getData("/q"));
    w.sim.network.heal();
    await w.runMs(40_000);
    expect(queued.done && queued.error === undefined).toBe(true);
    const conns = w.zk.connects();
    const last = conns.at(-1)!.conn;
    const onLast = w.zk.requests().filter((e) => e.conn === last);
    expect(onLast.slice(0, 3).map((e) => e.header.type)).toEqual([OpCode.auth, OpCode.setWatches, OpCode.getData]);
    expect(onLast[0]!.header.xid).toBe(Xid.auth);
    expect(onLast[0]!.request).toMatchObject({ kind: "AuthPacket", type: 0, scheme: "digest", auth: enc("u:p") });
  });

  it("client: reconnect: a reply whose xid is not the head of the pending queue drops the connection", async () => {
    const w = world();
    w.zk.script.onRequest = (conn, header) => conn.reply(header.xid + 1, { response: { kind: "GetDataResponse", data: null, stat: statWith({}) } });
    await w.runMs(10);
    const op = track(w.sim, w.client().getData("/a"));
    await w.runMs(10);
    expect((op.error as KeeperException).code).toBe(Code.CONNECTIONLOSS);
    expect(w.zk.conns[0]!.closed).toBe(true);
    expect(annotations(w.sim, "client.disconnect")[0]!.reason).toMatch(/xid out of order/);
    await w.runMs(2000);
    expect(w.zk.connects().length).toBe(2);
    expect(w.client().getState()).toBe("CONNECTED");
  });

  it("client: reconnect: an AUTHFAILED auth reply is terminal (AUTH_FAILED, AuthFailed then Closed)", async () => {
    const w = world();
    w.zk.script.onSpecial = (conn, header) => {
      if (header.type !== OpCode.auth) return false;
      conn.reply(Xid.auth, { err: Code.AUTHFAILED });
      return true;
    };
    const events: number[] = [];
    w.client().register((e) => events.push(e.state));
    await w.runMs(10);
    w.client().addAuthInfo("digest", "bad");
    const op = track(w.sim, w.client().getData("/a"));
    await w.runMs(10);
    expect(w.client().getState()).toBe("AUTH_FAILED");
    expect(events).toEqual([KeeperState.SyncConnected, KeeperState.AuthFailed, KeeperState.Closed]);
    expect((op.error as KeeperException).code).toBe(Code.AUTHFAILED);
    expect(annotations(w.sim, "client.complete").at(-1)).toMatchObject({ outcome: "unknown", err: "AUTHFAILED", sent: true });
  });
});

describe("client: xid", () => {
  it("client: xid: 1, 2, … and from 2^31−1 back to 1; lastZxid only from replies (not pings or notifications)", async () => {
    const w = world();
    w.zk.script.onRequest = (conn, header) => conn.reply(header.xid, { zxid: 5n, response: { kind: "GetChildrenResponse", children: [] } });
    w.zk.zxid = 99n; // what pings report
    await w.runMs(10);
    const zk = w.client();
    track(w.sim, zk.getChildren("/"));
    track(w.sim, zk.getChildren("/"));
    await w.runMs(10);
    zk.cnxn.xid = 0x7ffffffe;
    track(w.sim, zk.getChildren("/"));
    track(w.sim, zk.getChildren("/"));
    await w.runMs(10);
    expect(w.zk.requests(OpCode.getChildren).map((e) => e.header.xid)).toEqual([1, 2, 0x7ffffffe, 1]);
    expect(zk.getLastZxid()).toBe(5n);
    const ev: WatcherEvent = { type: EventType.NodeCreated, state: KeeperState.SyncConnected, path: "/x" };
    w.zk.openConn()!.notify(ev);
    await w.runMs(25_000); // pings answered with zxid 99
    expect(w.zk.requests(OpCode.ping).length).toBeGreaterThan(0);
    expect(zk.getLastZxid()).toBe(5n);
  });
});

describe("client: determinism", () => {
  it("client: determinism: same seed, same trace (reconnects, jitter and all); another seed differs", async () => {
    const run = async (seed: number) => {
      const w = world({ seed, servers: ["s1", "s2", "s3"], sessionTimeoutMs: 9000 });
      w.zk.script.onRequest = okResponder(() => 7n);
      await w.runMs(100);
      for (let i = 0; i < 3; i++) {
        track(w.sim, w.client().getData("/a", () => undefined));
        await w.runMs(500);
        w.zk.openConn()?.close();
        await w.runMs(3000);
      }
      w.sim.network.partition([["c"]]);
      await w.runMs(30_000);
      return w.sim.trace.hash();
    };
    expect(await run(11)).toBe(await run(11));
    expect(await run(11)).not.toBe(await run(12));
  });
});
