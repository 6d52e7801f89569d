/**
 * The ZooKeeper handle against a scripted fake server: promise API, KeeperException codes,
 * chroot, watch registration on reply, event ordering, multi, close, history annotations.
 */
import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode, Xid } from "../../../src/zk/proto/op-code.js";
import type { CreateRequest, RequestHeader, RequestRecord } from "../../../src/zk/proto/packets.js";
import { CreateMode, EventType, Ids, KeeperState, WatcherType } from "../../../src/zk/proto/records.js";
import { KeeperException, Op, type WatchedEvent } from "../../../src/zk/client/index.js";
import { annotations, dec, statWith, track, world, type FakeConn } from "./fake-server.js";

const node = (event: number, path: string) => ({ type: event, state: KeeperState.SyncConnected, path });

describe("client: api", () => {
  it("client: api: KeeperException codes propagate from the server with the path", async () => {
    const w = world();
    w.zk.script.onRequest = (conn, header) => conn.reply(header.xid, { zxid: 3n, err: header.type === OpCode.delete ? Code.NOTEMPTY : Code.NONODE });
    await w.runMs(10);
    const zk = w.client();
    const read = track(w.sim, zk.getData("/x"));
    const del = track(w.sim, zk.delete("/y", 3));
    const ex = track(w.sim, zk.exists("/z"));
    await w.runMs(10);
    expect(read.error).toBeInstanceOf(KeeperException);
    expect(read.error).toMatchObject({ code: Code.NONODE, codeName: "NONODE", path: "/x", clientSide: false });
    expect(del.error).toMatchObject({ code: Code.NOTEMPTY, codeName: "NOTEMPTY", path: "/y" });
    expect(ex.value).toBeNull(); // exists: NONODE is an answer, not an error
    const done = annotations(w.sim, "client.complete");
    expect(done.map((f) => f.outcome)).toEqual(["fail", "fail", "ok"]);
    expect(done[0]).toMatchObject({ err: "NONODE", zxid: "0x3" });
    expect(done[2]).toMatchObject({ result: { stat: null } });
  });

  it("client: api: invalid paths and arguments are refused locally with BADARGUMENTS (client side)", async () => {
    const w = world();
    await w.runMs(10);
    const zk = w.client();
    const bad = [
      track(w.sim, zk.create("a", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)),
      track(w.sim, zk.create("/a/", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)),
      track(w.sim, zk.getData("/a//b")),
      track(w.sim, zk.create("/a", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_WITH_TTL)),
      track(w.sim, zk.exists("/a", true)), // no default watcher
      track(w.sim, zk.multi([Op.getData("/a"), Op.delete("/b", -1)])),
    ];
    const ok = track(w.sim, zk.create("/p/", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL)); // sequential validates "/p/1"
    const acl = track(w.sim, zk.create("/a", null, [], CreateMode.PERSISTENT));
    await w.runMs(10);
    for (const t of bad) expect(t.error).toMatchObject({ code: Code.BADARGUMENTS, clientSide: true });
    expect(acl.error).toMatchObject({ code: Code.INVALIDACL, clientSide: true });
    expect(ok.error).toBeUndefined();
    expect(w.zk.requests(OpCode.create).map((e) => (e.request as CreateRequest).path)).toEqual(["/p/"]);
  });

  it("client: api: an empty multi is answered locally; a failed multi carries every result", async () => {
    const w = world();
    w.zk.script.onRequest = (conn, header) =>
      conn.reply(header.xid, {
        zxid: 9n,
        response: {
          kind: "MultiResponse",
          results: [
            { type: -1, err: 0, response: { kind: "ErrorResponse", err: 0 } },
            { type: -1, err: Code.BADVERSION, response: { kind: "ErrorResponse", err: Code.BADVERSION } },
          ],
        },
      });
    await w.runMs(10);
    const zk = w.client();
    const empty = track(w.sim, zk.multi([]));
    await w.runMs(1);
    expect(empty.value).toEqual([]);
    expect(w.zk.requests(OpCode.multi).length).toBe(0);
    expect(annotations(w.sim, "client.complete").at(-1)).toMatchObject({ outcome: "ok", local: true });
    const failed = track(w.sim, zk.multi([Op.check("/a", 1), Op.setData("/a", "x", 7)]));
    await w.runMs(10);
    expect(failed.error).toMatchObject({ code: Code.BADVERSION, results: [{ kind: "error", err: 0 }, { kind: "error", err: Code.BADVERSION }] });
    expect(w.zk.requests(OpCode.multi)[0]!.request).toMatchObject({ kind: "MultiOperationRecord", ops: [{ type: OpCode.check }, { type: OpCode.setData }] });
    expect(annotations(w.sim, "client.complete").at(-1)).toMatchObject({ outcome: "fail", err: "BADVERSION", zxid: "0x9" });
  });

  it("client: api: create modes pick create / createContainer / createTTL; create2 resolves path and stat", async () => {
    const w = world();
    w.zk.script.onRequest = (conn, header, req) => {
      const path = (req as CreateRequest).path + (header.type === OpCode.create ? "0000000001" : "");
      conn.reply(header.xid, { zxid: 4n, response: header.type === OpCode.create ? { kind: "CreateResponse", path } : { kind: "Create2Response", path, stat: statWith({ czxid: 4n }) } });
    };
    await w.runMs(10);
    const zk = w.client();
    const seq = track(w.sim, zk.create("/q-", "hello", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL));
    const two = track(w.sim, zk.create2("/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER));
    const ttl = track(w.sim, zk.create2("/t", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_WITH_TTL, 5000));
    await w.runMs(10);
    expect(seq.value).toBe("/q-0000000001");
    expect(two.value).toMatchObject({ path: "/c", stat: { czxid: 4n } });
    expect(ttl.value?.path).toBe("/t");
    expect(w.zk.requests().filter((e) => e.header.type > 0).map((e) => e.header.type)).toEqual([OpCode.create, OpCode.createContainer, OpCode.createTTL]);
    expect(w.zk.requests(OpCode.createTTL)[0]!.request).toMatchObject({ kind: "CreateTTLRequest", ttl: 5000 });
    const invoke = annotations(w.sim, "client.invoke")[0]!;
    expect(invoke).toMatchObject({ client: "c", session: "0x100", opId: 1, op: "create", path: "/q-", mode: CreateMode.EPHEMERAL_SEQUENTIAL, data: "hello" });
    expect(annotations(w.sim, "client.complete")[0]).toMatchObject({ opId: 1, outcome: "ok", zxid: "0x4", result: { path: "/q-0000000001" } });
  });
});

describe("client: watches", () => {
  it("client: watches: exists on a missing node registers an exist watch when the reply arrives; it fires once", async () => {
    const w = world();
    let answer: ((xid: number) => void) | undefined;
    w.zk.script.onRequest = (conn, header) => {
      answer = (xid) => conn.reply(xid, { err: Code.NONODE });
      answer(header.xid);
    };
    await w.runMs(10);
    const zk = w.client();
    const seen: WatchedEvent[] = [];
    const ex = track(w.sim, zk.exists("/x", (e) => seen.push(e)));
    expect(zk.watchManager.existWatches.size).toBe(0); // not before the reply
    await w.runMs(10);
    expect(ex.value).toBeNull();
    expect([...zk.watchManager.existWatches.keys()]).toEqual(["/x"]);
    const missing = track(w.sim, zk.getData("/x", () => seen.push({ type: 0, state: 0, path: "wrong" })));
    await w.runMs(10);
    expect(missing.error).toMatchObject({ code: Code.NONODE });
    expect(zk.watchManager.dataWatches.size).toBe(0); // getData registers only on OK
    const conn = w.zk.openConn()!;
    conn.notify(node(EventType.NodeCreated, "/x"));
    conn.notify(node(EventType.NodeCreated, "/x"));
    await w.runMs(10);
    expect(seen).toEqual([node(EventType.NodeCreated, "/x")]);
    expect(annotations(w.sim, "client.watch")).toEqual([
      { client: "c", session: "0x100", type: "NodeCreated", path: "/x", watchers: 1 },
      { client: "c", session: "0x100", type: "NodeCreated", path: "/x", watchers: 0 },
    ]);
  });

  it("client: watches: a watch event is seen before the reply that follows it (one event thread)", async () => {
    const w = world();
    const order: string[] = [];
    let conn: FakeConn | undefined;
    let readXid = 0;
    w.zk.script.onRequest = (c, header) => {
      conn = c;
      if (header.type === OpCode.getData && readXid === 0) {
        c.reply(header.xid, { response: { kind: "GetDataResponse", data: new TextEncoder().encode("v1"), stat: statWith({ version: 1 }) } });
        readXid = -1;
        return;
      }
      readXid = header.xid;
    };
    await w.runMs(10);
    const zk = w.client();
    await (async () => {
      const p = zk.getData("/n", (e) => order.push(`watch ${e.type}`));
      await w.runMs(10);
      await p;
    })();
    const reader = (async () => {
      const r = await zk.getData("/n");
      order.push(`reply ${dec(r.data)}`);
    })();
    await w.runMs(5);
    conn!.notify(node(EventType.NodeDataChanged, "/n"));
    conn!.reply(readXid, { response: { kind: "GetDataResponse", data: new TextEncoder().encode("v2"), stat: statWith({ version: 2 }) } });
    await w.runMs(10);
    await reader;
    expect(order).toEqual([`watch ${EventType.NodeDataChanged}`, "reply v2"]);
  });

  it("client: watches: removeWatches asks checkWatches, removeAllWatches asks removeWatches; removed watchers are told", async () => {
    const w = world();
    w.zk.script.onRequest = (conn, header) => {
      if (header.type === OpCode.getData) conn.reply(header.xid, { response: { kind: "GetDataResponse", data: null, stat: statWith({}) } });
      else if (header.type === OpCode.getChildren) conn.reply(header.xid, { response: { kind: "GetChildrenResponse", children: [] } });
      else conn.reply(header.xid);
    };
    await w.runMs(10);
    const zk = w.client();
    const seen: string[] = [];
    const a = (e: WatchedEvent) => seen.push(`a:${e.type}`);
    const b = (e: WatchedEvent) => seen.push(`b:${e.type}`);
    track(w.sim, zk.getData("/n", a));
    track(w.sim, zk.getData("/n", b));
    track(w.sim, zk.getChildren("/n", b));
    await w.runMs(10);
    const one = track(w.sim, zk.removeWatches("/n", a, WatcherType.Data, false));
    await w.runMs(10);
    expect(one.done && one.error === undefined).toBe(true);
    const all = track(w.sim, zk.removeAllWatches("/n", WatcherType.Any, false));
    await w.runMs(10);
    expect(all.error).toBeUndefined();
    expect(w.zk.requests().filter((e) => e.header.type === OpCode.checkWatches || e.header.type === OpCode.removeWatches).map((e) => e.request)).toEqual([
      { kind: "CheckWatchesRequest", path: "/n", type: WatcherType.Data },
      { kind: "RemoveWatchesRequest", path: "/n", type: WatcherType.Any },
    ]);
    expect(seen).toEqual([`a:${EventType.DataWatchRemoved}`, `b:${EventType.ChildWatchRemoved}`, `b:${EventType.DataWatchRemoved}`]);
    const none = track(w.sim, zk.removeWatches("/n", a, WatcherType.Data, false));
    await w.runMs(10);
    expect(none.error).toMatchObject({ code: Code.NOWATCHER });
  });
});

describe("client: chroot", () => {
  it("client: chroot: paths go out prefixed and come back stripped as Java's client strips them (created names, events; not ephemerals)", async () => {
    const w = world({ connectString: "s1:2181/app" });
    w.zk.script.onRequest = (conn: FakeConn, header: RequestHeader, req: RequestRecord) => {
      if (header.type === OpCode.create) conn.reply(header.xid, { response: { kind: "CreateResponse", path: (req as CreateRequest).path + "7" } });
      else if (header.type === OpCode.getEphemerals) conn.reply(header.xid, { response: { kind: "GetEphemeralsResponse", ephemerals: ["/app/e1", "/app"] } });
      else conn.reply(header.xid, { response: { kind: "ExistsResponse", stat: statWith({}) } });
    };
    await w.runMs(10);
    const zk = w.client();
    const seen: (string | null)[] = [];
    const created = track(w.sim, zk.create("/x-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
    // A sequential create of "/" names a sibling of the chroot (/app7): Java cuts the chroot's length off.
    const bare = track(w.sim, zk.create("/", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
    track(w.sim, zk.exists("/", (e) => seen.push(e.path)));
    track(w.sim, zk.exists("/y", (e) => seen.push(e.path)));
    const eph = track(w.sim, zk.getEphemerals());
    await w.runMs(10);
    expect(created.value).toBe("/x-7");
    expect(bare.value).toBe("7");
    // getEphemerals: the prefix goes out as given and the paths come back as the server names them.
    expect(eph.value).toEqual(["/app/e1", "/app"]);
    expect(w.zk.requests().filter((e) => e.header.type > 0).map((e) => (e.request as { path?: string; prefixPath?: string }).path ?? (e.request as { prefixPath: string }).prefixPath)).toEqual(["/app/x-", "/app", "/app", "/app/y", "/"]);
    const conn = w.zk.openConn()!;
    conn.notify(node(EventType.NodeDataChanged, "/app"));
    conn.notify(node(EventType.NodeDeleted, "/app/y"));
    await w.runMs(10);
    expect(seen).toEqual(["/", "/y"]);
  });
});

describe("client: close", () => {
  it("client: close: closeSession, then CLOSED and a Closed event; later ops fail SESSIONEXPIRED", async () => {
    const w = world();
    const events: number[] = [];
    w.client().register((e) => events.push(e.state));
    await w.runMs(10);
    const zk = w.client();
    const closed = track(w.sim, zk.close());
    await w.runMs(10);
    expect(closed.done).toBe(true);
    expect(zk.getState()).toBe("CLOSED");
    expect(w.zk.requestNames()).toEqual(["closeSession"]);
    expect(w.zk.requests(OpCode.closeSession)[0]!.header.xid).toBe(1);
    expect(events).toEqual([KeeperState.SyncConnected, KeeperState.Closed]);
    const after = track(w.sim, zk.getData("/a"));
    await w.runMs(1);
    expect(after.error).toMatchObject({ code: Code.SESSIONEXPIRED });
    expect(annotations(w.sim, "client.complete")).toEqual([
      { client: "c", session: "0x100", opId: 1, outcome: "ok", zxid: "0x1" },
      { client: "c", session: "0x100", opId: 2, outcome: "fail", err: "SESSIONEXPIRED", sent: false },
    ]);
    await w.runMs(60_000);
    expect(w.zk.connects().length).toBe(1);
  });

  it("client: close: between attempts it ends at once; during an attempt it waits for that attempt", async () => {
    const w = world({ servers: ["s1"] });
    w.sim.network.partition([["c"]]);
    await w.runMs(30_500); // the first attempt timed out at 30 s; the next waits ≥ 1 s
    const closed = track(w.sim, w.client().close());
    await w.runMs(1);
    expect(closed.done).toBe(true);
    expect(w.client().getState()).toBe("CLOSED");
    expect(annotations(w.sim, "client.complete").at(-1)).toMatchObject({ outcome: "unknown", err: "CONNECTIONLOSS", sent: false });

    const w2 = world({ servers: ["s1"] });
    w2.sim.network.partition([["c"]]);
    await w2.runMs(10);
    const closing = track(w2.sim, w2.client().close());
    await w2.runMs(29_000);
    expect(closing.done).toBe(false);
    await w2.runMs(1_000);
    expect(closing.done).toBe(true);
    expect(w2.client().getState()).toBe("CLOSED");
  });
});

describe("client: history", () => {
  it("client: history: ops in flight at a connection loss complete as unknown; never-sent ones say sent: false", async () => {
    const w = world({ sessionTimeoutMs: 6000 });
    w.zk.script.onRequest = () => undefined; // the server sits on requests
    await w.runMs(10);
    const zk = w.client();
    const inFlight = track(w.sim, zk.setData("/a", "v", 2));
    await w.runMs(10);
    w.sim.network.partition([["c"], ["s1"]]);
    await w.runMs(4100); // read timeout (4000 ms)
    const queued = track(w.sim, zk.delete("/b", -1));
    await w.runMs(9000); // the reconnect attempt (after 1–2 s of sleep) times out after connectTimeout 6000 ms
    expect(inFlight.error).toMatchObject({ code: Code.CONNECTIONLOSS });
    expect(queued.error).toMatchObject({ code: Code.CONNECTIONLOSS });
    const invokes = annotations(w.sim, "client.invoke");
    expect(invokes).toEqual([
      // The server it was connected to; none for the op queued while disconnected.
      { client: "c", session: "0x100", opId: 1, op: "setData", server: "s1", path: "/a", version: 2, data: "v" },
      { client: "c", session: "0x100", opId: 2, op: "delete", path: "/b", version: -1 },
    ]);
    expect(annotations(w.sim, "client.complete")).toEqual([
      // The xid it went out with names the txn it may have become (the trace's ground truth).
      { client: "c", session: "0x100", opId: 1, outcome: "unknown", err: "CONNECTIONLOSS", sent: true, xid: 1 },
      { client: "c", session: "0x100", opId: 2, outcome: "unknown", err: "CONNECTIONLOSS", sent: false },
    ]);
    expect(annotations(w.sim, "client.state").map((f) => f.state)).toEqual(["CONNECTING", "CONNECTED", "CONNECTING"]);
    expect(Xid.ping).toBe(-2);
  });
});
