/**
 * A client we did not write against `zksim serve`: the npm package `node-zookeeper-client`
 * (a pure JavaScript ZooKeeper client) creates, reads, lists and watches through the simulated
 * ensemble, and a crash of the server it is on costs it its connection, not its session: it
 * reconnects to another server with the same session id and its ephemeral is still there.
 */
import { afterEach, describe, expect, it } from "vitest";
import zookeeper from "node-zookeeper-client";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { leaderServing } from "./raw-zk-client.js";

let session: ServeSession | undefined;
const clients: ReturnType<typeof zookeeper.createClient>[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await session?.close();
  session = undefined;
});

/** Node-style callback → promise. */
function call<T>(f: (cb: (error: Error | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => f((error, value) => (error ? reject(error) : resolve(value))));
}

async function connected(connectString: string) {
  const c = zookeeper.createClient(connectString, { sessionTimeout: 10_000, spinDelay: 100 });
  clients.push(c);
  const up = new Promise<void>((resolve) => c.once("connected", resolve));
  c.connect();
  await up;
  return c;
}

describe("serve: an npm ZooKeeper client (node-zookeeper-client)", () => {
  it("creates, reads, lists and watches; a crash of its server keeps its session and ephemeral (N=3)", async () => {
    const base = settingsFromFlags(3, 0, 2181);
    const settings = { ...base, members: base.members.map((m) => ({ ...m, clientPort: 0 })) };
    session = await startServe({ settings, seed: 1, controlPort: 0, out: () => {} });
    await leaderServing(session);
    const ports = [...session.clientPorts.entries()];
    const a = await connected(ports.map(([, p]) => `127.0.0.1:${p}`).join(","));
    const b = await connected(ports.map(([, p]) => `127.0.0.1:${p}`).join(","));

    expect(await call<string>((cb) => a.create("/npm", Buffer.from("v0"), zookeeper.CreateMode.PERSISTENT, cb))).toBe("/npm");
    expect(await call<string>((cb) => a.create("/npm/e", null, zookeeper.CreateMode.EPHEMERAL, cb))).toBe("/npm/e");
    const changed = new Promise<number>((resolve) => b.getData("/npm", (e) => resolve(e.getType()), () => {}));
    await call((cb) => b.exists("/npm", cb));
    await call((cb) => a.setData("/npm", Buffer.from("v1"), 0, cb));
    expect(await changed).toBe(zookeeper.Event.NODE_DATA_CHANGED);
    const read = await new Promise<Buffer>((resolve, reject) => b.getData("/npm", null, (err, data) => (err ? reject(err) : resolve(data))));
    expect(read.toString()).toBe("v1");
    expect(await call<string[]>((cb) => b.getChildren("/npm", cb))).toEqual(["e"]);

    // The server a is on. serve's `cons` lists no session ids yet (3.8's long format does), so
    // this reads the library's own socket: a test-only reach into its internals.
    const sessionId = a.getSessionId().toString("hex");
    const remotePort = (a as unknown as { connectionManager: { socket: { remotePort: number } } }).connectionManager.socket.remotePort;
    const on = ports.find(([, port]) => port === remotePort);
    expect(on, `a is on port ${remotePort}`).toBeDefined();
    const lost = new Promise<void>((resolve) => a.once("disconnected", resolve));
    const back = new Promise<void>((resolve) => void lost.then(() => a.once("connected", resolve)));
    expect(session.command(`crash ${on![0]}`)).toBe(`ok: crash ${on![0]}`);
    await lost;
    await back;
    expect(a.getSessionId().toString("hex")).toBe(sessionId);
    // A new session sees a's ephemeral: the session outlived its connection.
    const c = await connected(ports.map(([, p]) => `127.0.0.1:${p}`).join(","));
    expect(await call((cb) => c.exists("/npm/e", cb))).not.toBeNull();
  }, 60_000);
});
