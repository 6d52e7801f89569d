/**
 * The project's client over real TCP (src/runtime/tcp-client.ts) against `zksim serve`: the same
 * promise API as in the simulator creates, reads, watches and multi-ops; a crash of the server
 * it is on costs it its connection, not its session (Disconnected, then SyncConnected on another
 * server, the ephemeral kept); closing the session deletes its ephemerals; a refused server in
 * the connect string is skipped.
 */
import { afterEach, describe, expect, it } from "vitest";
import net from "node:net";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { connectOverTcp, type TcpClient } from "../../src/runtime/tcp-client.js";
import { CreateMode, EventType, Ids, KeeperState } from "../../src/zk/proto/records.js";
import { Op } from "../../src/zk/client/op.js";
import { isKeeperException } from "../../src/zk/client/keeper-exception.js";
import type { WatchedEvent } from "../../src/zk/client/watch-manager.js";
import { leaderServing } from "../serve/raw-zk-client.js";

let session: ServeSession | undefined;
const clients: TcpClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.abandon();
  await session?.close();
  session = undefined;
});

async function serve(servers: number): Promise<ServeSession> {
  const s = settingsFromFlags(servers, 0, 2181);
  session = await startServe({ settings: { ...s, members: s.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 1, controlPort: 0, out: () => {} });
  await leaderServing(session);
  return session;
}

function connectString(s: ServeSession): string {
  return [...s.clientPorts.values()].map((port) => `127.0.0.1:${port}`).join(",");
}

/** A client and the events its default watcher saw. */
async function client(connect: string, seed = 1) {
  const events: WatchedEvent[] = [];
  let onEvent = () => {};
  const c = connectOverTcp({ connectString: connect, sessionTimeoutMs: 10_000, seed, watcher: (e) => (events.push(e), onEvent()) });
  clients.push(c);
  const until = (pred: (e: WatchedEvent) => boolean, timeoutMs = 10_000) =>
    new Promise<WatchedEvent>((resolve, reject) => {
      const seen = events.find(pred);
      if (seen !== undefined) return resolve(seen);
      const timer = setTimeout(() => reject(new Error(`no such event within ${timeoutMs} ms; saw ${JSON.stringify(events)}`)), timeoutMs);
      onEvent = () => {
        const e = events.find(pred);
        if (e !== undefined) {
          clearTimeout(timer);
          resolve(e);
        }
      };
    });
  await until((e) => e.state === KeeperState.SyncConnected);
  return { c, zk: c.zk, events, until };
}

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

describe("our client over TCP, against zksim serve", () => {
  it("creates, reads, watches and runs a multi with the simulator's promise API (N=3)", async () => {
    const s = await serve(3);
    const a = await client(connectString(s), 1);
    const b = await client(connectString(s), 2);
    expect(await a.zk.create("/app", text("v0"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)).toBe("/app");
    const seq = await a.zk.create("/app/n-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
    expect(seq).toBe("/app/n-0000000000");
    const fired = new Promise<WatchedEvent>((resolve) => void b.zk.getData("/app", resolve));
    await b.zk.sync("/app");
    const stat = await a.zk.setData("/app", text("v1"), 0);
    expect(stat.version).toBe(1);
    expect(await fired).toMatchObject({ type: EventType.NodeDataChanged, path: "/app" });
    const read = await b.zk.getData("/app");
    expect(str(read.data)).toBe("v1");
    expect(read.stat.mzxid).toBe(stat.mzxid);
    const results = await a.zk.multi([Op.create("/app/m", text("x"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT), Op.setData("/app", text("v2"), 1)]);
    expect(results).toHaveLength(2);
    let caught: unknown;
    try {
      await a.zk.create("/app", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (err) {
      caught = err;
    }
    expect(isKeeperException(caught) && caught.codeName).toBe("NODEEXISTS");
    expect((await b.zk.getChildren("/app")).sort()).toEqual(["m", "n-0000000000"]);
  });

  it("a crash of its server costs a connection, not the session; close deletes the ephemeral (N=3)", async () => {
    const s = await serve(3);
    const a = await client(connectString(s), 3);
    const sessionId = a.zk.getSessionId();
    await a.zk.create("/eph", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    const on = a.c.connectedTo()!;
    const member = [...s.clientPorts.entries()].find(([, port]) => on.endsWith(`:${port}`))![0];
    expect(s.command(`crash ${member}`)).toBe(`ok: crash ${member}`);
    await a.until((e) => e.state === KeeperState.Disconnected);
    const reconnected = a.events.length;
    await a.until((e) => e.state === KeeperState.SyncConnected && a.events.indexOf(e) >= reconnected);
    expect(a.c.connectedTo()).not.toBe(on);
    expect(a.zk.getSessionId()).toBe(sessionId);
    const b = await client(connectString(s), 4);
    expect(await b.zk.exists("/eph")).not.toBeNull();
    await a.c.close();
    expect(await b.zk.exists("/eph")).toBeNull();
  });

  it("a refused server in the connect string is skipped", async () => {
    const s = await serve(3);
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (probe.address() as net.AddressInfo).port;
        probe.close(() => resolve(port));
      });
    });
    const a = await client(`127.0.0.1:${closed},${connectString(s)}`, 5);
    expect(await a.zk.exists("/")).not.toBeNull();
  });
});
