/**
 * `zksim serve` under load and bad input, each as 3.8 handles it: 1,000 concurrent real
 * connections each get a session and an answer; `maxClientCnxns` is enforced per address and
 * port (3.8's default 60); a ConnectRequest that does not decode, a frame cut short, a frame
 * over jute.maxbuffer after a session, and a client that connects and sends nothing (closed
 * after 3.8's sessionless-connection timeout, 10 s, shortened here) each cost only their own connection — another client keeps being served and its acknowledged write is
 * still there afterwards.
 */
import { describe, expect, it } from "vitest";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { DEFAULT_MAX_CLIENT_CNXNS, settingsFromFlags, type ServeSettings } from "../../src/serve/zoo-cfg.js";
import { OpCode } from "../../src/zk/proto/op-code.js";
import { Ids, JUTE_MAX_BUFFER_BYTES } from "../../src/zk/proto/records.js";
import { Code } from "../../src/zk/proto/error-code.js";
import { RawZkClient, leaderServing, serveFixture } from "./raw-zk-client.js";

const text = (s: string) => new TextEncoder().encode(s);

const fx = serveFixture();

async function serve(servers: number, change: Partial<ServeSettings> = {}, sessionlessCnxnTimeoutMs?: number): Promise<ServeSession> {
  const s = settingsFromFlags(servers, 0, 2181);
  const settings = { ...s, members: s.members.map((m) => ({ ...m, clientPort: 0 })), ...change };
  fx.session = await startServe({ settings, seed: 1, out: () => undefined, ...(sessionlessCnxnTimeoutMs !== undefined ? { sessionlessCnxnTimeoutMs } : {}) });
  await leaderServing(fx.session);
  return fx.session;
}

async function open(port: number): Promise<RawZkClient> {
  const c = await RawZkClient.connect(port);
  fx.clients.push(c);
  return c;
}

/**
 * A session on `port`. The raw client sends no pings, so the session asks for the longest timeout
 * the ensemble grants (20 ticks, 40 s): a test's own wall time on a loaded machine must not expire it.
 */
async function withSession(port: number): Promise<RawZkClient> {
  const c = await open(port);
  c.sendConnect(0n, new Uint8Array(16), 40_000);
  const reply = await c.next("connect", 10_000);
  if (reply.kind !== "connect" || reply.response.sessionId === 0n) throw new Error("no fx.session");
  return c;
}

/**
 * A session on `port` once the server side has seen a connection over the limit go: until then
 * a new connection is closed unanswered, and the next try starts on that close (no sleep).
 */
async function sessionOnceFree(port: number, tries = 200): Promise<RawZkClient> {
  for (let i = 1; ; i++) {
    try {
      return await withSession(port);
    } catch (err) {
      if (i >= tries || !(err instanceof Error) || err.message !== "connection closed") throw err;
    }
  }
}

/** A session on `port` that writes `path` and has it acknowledged. */
async function acknowledgedWrite(port: number, path: string): Promise<RawZkClient> {
  const c = await withSession(port);
  c.sendRequest(1, OpCode.create, { kind: "CreateRequest", path, data: text("kept"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
  expect(await c.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
  return c;
}

/** The write is still there and the client is still served. */
async function stillServed(c: RawZkClient, path: string, xid: number): Promise<void> {
  c.sendRequest(xid, OpCode.getData, { kind: "GetDataRequest", path, watch: false });
  const read = await c.next("reply");
  expect(read).toMatchObject({ header: { xid, err: Code.OK } });
  expect(read.kind === "reply" && read.response?.kind === "GetDataResponse" ? new TextDecoder().decode(read.response.data!) : undefined).toBe("kept");
}

describe("serve: limits", () => {
  it("serve: limits: 1,000 concurrent connections each get a session and an answer, and the first stays served (N=3, maxClientCnxns=0)", async () => {
    const s = await serve(3, { maxClientCnxns: 0 });
    const ports = [...s.clientPorts.values()];
    const first = await acknowledgedWrite(ports[0]!, "/before");
    const CONNECTIONS = 1000;
    const many = await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => open(ports[i % ports.length]!)));
    for (const c of many) c.sendConnect();
    // Bounds on a hang, generous: a loaded 2-core machine took over 20 s to answer the thousand.
    const sessions = await Promise.all(many.map((c) => c.next("connect", 90_000)));
    const ids = new Set(sessions.map((r) => (r.kind === "connect" ? r.response.sessionId : 0n)));
    ids.delete(0n);
    expect(ids.size).toBe(CONNECTIONS);
    many.forEach((c, i) => c.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: `/c${i}`, data: text("x"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 }));
    const replies = await Promise.all(many.map((c) => c.next("reply", 90_000)));
    expect(replies.filter((r) => r.kind === "reply" && r.header.err === Code.OK).length).toBe(CONNECTIONS);
    expect(many.every((c) => !c.isClosed)).toBe(true);
    await stillServed(first, "/before", 2);
  }, 240_000);

  it("serve: limits: maxClientCnxns is per address and port, 60 by default: the 61st connection from 127.0.0.1 is closed (N=3)", async () => {
    const s = await serve(3);
    expect(s.ensemble.settings.maxClientCnxns).toBe(DEFAULT_MAX_CLIENT_CNXNS);
    const [p1, p2] = [s.clientPorts.get("s1")!, s.clientPorts.get("s2")!];
    const first = await acknowledgedWrite(p1, "/limit");
    const more = await Promise.all(Array.from({ length: DEFAULT_MAX_CLIENT_CNXNS - 1 }, () => open(p1)));
    const over = await open(p1);
    await over.closed;
    expect(more.every((c) => !c.isClosed)).toBe(true);
    // Another port is another server: its own count.
    await withSession(p2);
    // A slot freed is a slot taken again.
    more[0]!.close();
    await more[0]!.closed;
    await sessionOnceFree(p1);
    await stillServed(first, "/limit", 2);
  }, 30_000);

  it("serve: limits: a ConnectRequest that does not decode, a frame cut short, an oversized frame after a session and a silent client cost only their own connection (N=3)", async () => {
    const SESSIONLESS_MS = 1500;
    const s = await serve(3, {}, SESSIONLESS_MS);
    const port = s.clientPorts.get("s1")!;
    const silent = await open(port);
    const silentSince = Date.now();
    const good = await acknowledgedWrite(port, "/kept");
    const sessionsBefore = s.ensemble.sim.trace.kindCounts()["zk.session.established"] ?? 0;

    // A ConnectRequest frame too short to hold its fields: closed, no session made.
    const badConnect = await open(port);
    badConnect.writeRaw(Uint8Array.of(0, 0, 0, 6, 0, 0, 0, 0, 0, 0));
    await badConnect.closed;

    // A frame whose length promises more than ever comes: closed once it has been quiet for the sessionless timeout.
    const truncated = await open(port);
    truncated.writeRaw(Uint8Array.of(0, 0, 0, 44, 0, 0, 0, 0, 0, 0, 0, 0));

    // A session, then a frame over jute.maxbuffer: that connection closes.
    const oversized = await withSession(port);
    const len = new Uint8Array(4);
    new DataView(len.buffer).setInt32(0, JUTE_MAX_BUFFER_BYTES + 1);
    oversized.writeRaw(len);
    await oversized.closed;

    // Connected first and sent nothing: open meanwhile, closed after the sessionless timeout.
    await silent.closed;
    expect(Date.now() - silentSince).toBeGreaterThanOrEqual(SESSIONLESS_MS - 50);
    await truncated.closed;

    await stillServed(good, "/kept", 2);
    const late = await withSession(port);
    late.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/kept", watch: false });
    expect(await late.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
    // Sessions: the good client's, the oversized one's and the late one's; the bad ConnectRequest made none.
    expect((s.ensemble.sim.trace.kindCounts()["zk.session.established"] ?? 0) - sessionsBefore).toBe(2);
  }, 30_000);
});
