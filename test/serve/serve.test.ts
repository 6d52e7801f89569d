/**
 * `zksim serve` end to end, in process, on free loopback ports: real TCP clients speak Jute to
 * the simulated ensemble, four-letter words answer as 3.8 does, bad frames close only their own
 * connection, and a crashed leader costs a client its connection but not its session.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { fourLetterWhitelist, parseZooCfg, settingsFromFlags, type ServeSettings } from "../../src/serve/zoo-cfg.js";
import { OpCode } from "../../src/zk/proto/op-code.js";
import { Ids, JUTE_MAX_BUFFER_BYTES } from "../../src/zk/proto/records.js";
import { Code } from "../../src/zk/proto/error-code.js";
import { sendControlLine } from "../../src/cli/commands/ctl.js";
import { mntrKeys } from "../../src/serve/mntr-keys.js";
import { LOOPBACK_STARTUP } from "../../src/serve/serve-timing.js";
import { RawZkClient, allServing, fourLetterWord, leaderServing, untilSim } from "./raw-zk-client.js";

const text = (s: string) => new TextEncoder().encode(s);

function freePortSettings(servers: number, whitelist?: string): ServeSettings {
  const s = settingsFromFlags(servers, 0, 2181);
  return { ...s, members: s.members.map((m) => ({ ...m, clientPort: 0 })), fourLetterWords: fourLetterWhitelist(whitelist) };
}

let session: ServeSession | undefined;
const lines: string[] = [];
const clients: RawZkClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await session?.close();
  session = undefined;
  lines.length = 0;
});

async function serve(servers: number, whitelist?: string): Promise<ServeSession> {
  session = await startServe({ settings: freePortSettings(servers, whitelist), seed: 1, controlPort: 0, out: (l) => lines.push(l) });
  return session;
}

async function connected(port: number, sessionId = 0n, passwd: Uint8Array = new Uint8Array(16)) {
  const c = await RawZkClient.connect(port);
  clients.push(c);
  c.sendConnect(sessionId, passwd);
  const reply = await c.next("connect");
  if (reply.kind !== "connect") throw new Error("expected a ConnectResponse");
  return { client: c, response: reply.response };
}

describe("serve", () => {
  it("serve: a raw TCP client connects, creates and reads a znode (N=3)", async () => {
    const s = await serve(3);
    await leaderServing(s);
    const { client, response } = await connected(s.clientPorts.get("s1")!);
    expect(response.sessionId).not.toBe(0n);
    expect(response.timeOut).toBe(10_000);
    client.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/real", data: text("hello"), acl: Ids.OPEN_ACL_UNSAFE, flags: 0 });
    const created = await client.next("reply");
    expect(created).toMatchObject({ kind: "reply", header: { xid: 1, err: Code.OK }, response: { kind: "CreateResponse", path: "/real" } });
    client.sendRequest(2, OpCode.getData, { kind: "GetDataRequest", path: "/real", watch: false });
    const read = await client.next("reply");
    expect(read.kind === "reply" && read.response?.kind === "GetDataResponse" ? new TextDecoder().decode(read.response.data!) : undefined).toBe("hello");
    client.sendRequest(3, OpCode.getData, { kind: "GetDataRequest", path: "/missing", watch: false });
    expect(await client.next("reply")).toMatchObject({ header: { xid: 3, err: Code.NONODE } });
    expect(lines.some((l) => /session 0x[0-9a-f]+ established on s1/.test(l))).toBe(true);
  });

  it("serve: four-letter words answer in 3.8's formats, gated by the whitelist (N=3)", async () => {
    const s = await serve(3, "ruok, srvr, conf, envi, mntr, isro");
    const leader = await leaderServing(s);
    const port = s.clientPorts.get(leader)!;
    expect(await fourLetterWord(port, "ruok")).toBe("imok");
    expect(await fourLetterWord(port, "isro")).toBe("rw");
    const srvr = await fourLetterWord(port, "srvr");
    expect(srvr).toMatch(/^Zookeeper version: 3\.8\.0-zksim, built on .*\nLatency min\/avg\/max: \d+\/[\d.]+\/\d+\nReceived: \d+\nSent: \d+\nConnections: 1\nOutstanding: 0\nZxid: 0x[0-9a-f]+\nMode: leader\nNode count: \d+\nProposal sizes last\/min\/max: -1\/-1\/-1\n$/);
    expect(await fourLetterWord(port, "stat")).toBe("stat is not executed because it is not in the whitelist.\n");
    const conf = await fourLetterWord(port, "conf");
    expect(conf).toContain(`clientPort=${port}\n`);
    expect(conf).toContain("initLimit=10\nsyncLimit=5\n");
    // No zoo.cfg: the addresses a one-machine zoo.cfg conventionally gives (127.0.0.1, 2888/3888 + N − 1).
    expect(conf).toContain("membership: \nserver.1=127.0.0.1:2888:3888:participant\nserver.2=127.0.0.1:2889:3889:participant\n");
    expect(await fourLetterWord(port, "envi")).toMatch(/^Environment:\nzookeeper\.version=3\.8\.0-zksim/);
    expect(await fourLetterWord(port, "mntr")).toMatch(/^zk_version\t3\.8\.0-zksim.*\nzk_server_state\tleader\n/);
  });

  it("serve: conf of a member shows zoo.cfg's directories, addresses and ports, line for line as a real 3.8.0 ensemble's (N=3)", async () => {
    // Answered by s2 of a real 3.8.0 ensemble on this machine started with this zoo.cfg (each
    // member with its own dataDir, s2's here); the byte counts and client port vary.
    const cfg = ["tickTime=2000", "initLimit=10", "syncLimit=5", "dataDir=/tmp/zkens/s2/data", "clientPort=24011", "clientPortAddress=127.0.0.1", "4lw.commands.whitelist=*", "admin.enableServer=false", "server.1=127.0.0.1:24021:24031", "server.2=127.0.0.1:24022:24032", "server.3=127.0.0.1:24023:24033"];
    const real = "clientPort=24012\nsecureClientPort=-1\ndataDir=/tmp/zkens/s2/data/version-2\ndataDirSize=597\ndataLogDir=/tmp/zkens/s2/data/version-2\ndataLogSize=597\ntickTime=2000\nmaxClientCnxns=60\nminSessionTimeout=4000\nmaxSessionTimeout=40000\nclientPortListenBacklog=-1\nserverId=2\ninitLimit=10\nsyncLimit=5\nelectionAlg=3\nelectionPort=24032\nquorumPort=24022\npeerType=0\nmembership: \nserver.1=127.0.0.1:24021:24031:participant\nserver.2=127.0.0.1:24022:24032:participant\nserver.3=127.0.0.1:24023:24033:participant\nversion=0\n";
    const settings = parseZooCfg(cfg.join("\n"));
    session = await startServe({ settings: { ...settings, members: settings.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 1, controlPort: 0, out: () => undefined });
    await allServing(session);
    const vary = (text: string) => text.replace(/^(clientPort|dataDirSize|dataLogSize)=\d+$/gm, "$1=N");
    expect(vary(await fourLetterWord(session.clientPorts.get("s2")!, "conf"))).toBe(vary(real));
    // A client address in the server line is printed as 3.8's QuorumServer prints it (0.0.0.0 when left out).
    expect(parseZooCfg("server.1=10.0.0.1:2888:3888;2181\nserver.2=10.0.0.2:2888:3888:observer;10.0.0.2:2182").members.map((m) => m.quorumAddress)).toEqual([
      { host: "10.0.0.1", peerPort: 2888, electionPort: 3888, client: "0.0.0.0:2181" },
      { host: "10.0.0.2", peerPort: 2888, electionPort: 3888, client: "10.0.0.2:2182" },
    ]);
  });

  it("serve: mntr prints every key 3.8.0 prints for the member's role, with the watches, ephemerals, sessions and learners computed (N=3)", async () => {
    const s = await serve(3, "mntr");
    const leader = await leaderServing(s);
    await allServing(s);
    const follower = ["s1", "s2", "s3"].find((n) => n !== leader)!;
    const { client } = await connected(s.clientPorts.get(follower)!);
    client.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/e", data: text("x"), acl: Ids.OPEN_ACL_UNSAFE, flags: 1 }); // ephemeral
    await client.next("reply");
    client.sendRequest(2, OpCode.getData, { kind: "GetDataRequest", path: "/e", watch: true });
    await client.next("reply");
    client.sendRequest(3, OpCode.getChildren, { kind: "GetChildrenRequest", path: "/", watch: true });
    await client.next("reply");
    const mntr = async (node: string) => new Map((await fourLetterWord(s.clientPorts.get(node)!, "mntr")).trim().split("\n").map((l) => l.split("\t") as [string, string]));
    const f = await mntr(follower);
    expect([...f.keys()]).toEqual(mntrKeys(["follower"])); // its first start: zk_num_alive_connections before zk_avg_latency, as a fresh 3.8.0 member
    expect(f.size).toBe(487);
    expect([f.get("zk_server_state"), f.get("zk_peer_state"), f.get("zk_quorum_size")]).toEqual(["follower", "following - broadcast", "3"]);
    expect([f.get("zk_watch_count"), f.get("zk_ephemerals_count"), f.get("zk_global_sessions")]).toEqual(["2", "1", "1"]);
    expect([f.get("zk_last_client_response_size"), f.get("zk_avg_commit_commit_proc_req_queued"), f.get("zk_snap_count")]).toEqual(["-1", "0.0", "0"]);
    const l = await mntr(leader);
    expect(l.size).toBe(496);
    expect([l.get("zk_server_state"), l.get("zk_learners"), l.get("zk_synced_followers"), l.get("zk_synced_observers"), l.get("zk_ephemerals_count")]).toEqual(["leader", "2", "2", "0", "1"]);
    expect(Number(l.get("zk_uptime"))).toBeGreaterThan(0);
  });

  it("serve: the default whitelist admits srvr only (N=1)", async () => {
    const s = await serve(1);
    await allServing(s);
    const port = s.clientPorts.get("s1")!;
    expect(await fourLetterWord(port, "srvr")).toContain("Mode: standalone\n");
    expect(await fourLetterWord(port, "ruok")).toBe("ruok is not executed because it is not in the whitelist.\n");
  });

  it("serve: stat of a standalone server has 3.8.0's shape, its own connection listed (N=1)", async () => {
    const s = await serve(1, "stat");
    await allServing(s);
    const stat = await fourLetterWord(s.clientPorts.get("s1")!, "stat");
    // The shape a real 3.8.0 answered on this machine (version, port and counters varying).
    expect(stat).toMatch(/^Zookeeper version: 3\.8\.0-zksim, built on [^\n]+\nClients:\n \/127\.0\.0\.1:\d+\[0\]\(queued=0,recved=1,sent=0\)\n\nLatency min\/avg\/max: 0\/0\.0\/0\nReceived: 1\nSent: 0\nConnections: 1\nOutstanding: 0\nZxid: 0x0\nMode: standalone\nNode count: \d+\n$/);
  });

  it("serve: an oversized or malformed frame closes that connection only (N=3)", async () => {
    const s = await serve(3);
    await leaderServing(s);
    const port = s.clientPorts.get("s2")!;
    const good = await connected(port);
    const oversized = await RawZkClient.connect(port);
    clients.push(oversized);
    const len = new Uint8Array(4);
    new DataView(len.buffer).setInt32(0, JUTE_MAX_BUFFER_BYTES + 1);
    oversized.writeRaw(len);
    await oversized.closed;
    const malformed = await connected(port);
    malformed.client.writeRaw(Uint8Array.of(0, 0, 0, 3, 1, 2, 3)); // a 3-byte request: no room for its header
    await malformed.client.closed;
    good.client.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/", watch: false });
    expect(await good.client.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
    expect(good.client.isClosed).toBe(false);
  });

  it("serve: crashing the leader disconnects its client, which keeps its session on another server (N=3)", async () => {
    const s = await serve(3);
    const leader = await leaderServing(s);
    const first = await connected(s.clientPorts.get(leader)!);
    first.client.sendRequest(1, OpCode.create, { kind: "CreateRequest", path: "/eph", data: text("x"), acl: Ids.OPEN_ACL_UNSAFE, flags: 1 });
    expect(await first.client.next("reply")).toMatchObject({ header: { err: Code.OK } });
    expect(s.command(`crash ${leader}`)).toBe(`ok: crash ${leader}`);
    await first.client.closed;
    await leaderServing(s);
    const other = s.ensemble.settings.members.find((m) => m.node !== leader)!;
    const again = await connected(s.clientPorts.get(other.node)!, first.response.sessionId, first.response.passwd);
    expect(again.response.sessionId).toBe(first.response.sessionId);
    expect(again.response.timeOut).toBeGreaterThan(0);
    again.client.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/eph", watch: false });
    expect(await again.client.next("reply")).toMatchObject({ header: { err: Code.OK }, response: { kind: "ExistsResponse" } });
    expect(lines.some((l) => l.includes(`crash ${leader}`))).toBe(true);
    expect(lines.filter((l) => l.includes("leader") && l.includes("established")).length).toBeGreaterThanOrEqual(2);
  });

  it("serve: mntr's failover summaries count each election and sync of the member's incarnation, in ms of virtual time (N=3)", async () => {
    const s = await serve(3, "mntr");
    const leader = await leaderServing(s);
    await allServing(s);
    const mntr = async (node: string) => new Map((await fourLetterWord(s.clientPorts.get(node)!, "mntr")).trim().split("\n").map((l) => l.split("\t") as [string, string]));
    const summary = (m: Map<string, string>, name: string) => ({ cnt: Number(m.get(`zk_cnt_${name}`)), sum: Number(m.get(`zk_sum_${name}`)) });
    const survivors = ["s1", "s2", "s3"].filter((n) => n !== leader);
    const before = new Map(await Promise.all(survivors.map(async (n) => [n, await mntr(n)] as const)));
    for (const m of before.values()) {
      // The start-up election: each voter elected once and synced once as a follower.
      expect([summary(m, "election_time").cnt, summary(m, "unavailable_time").cnt, summary(m, "follower_sync_time").cnt, summary(m, "leader_unavailable_time").cnt]).toEqual([1, 1, 1, 0]);
    }
    expect(s.command(`crash ${leader}`)).toBe(`ok: crash ${leader}`);
    await untilSim(s, `${leader} down`, () => s.ensemble.sim.node(leader).status === "down");
    const next = await leaderServing(s);
    const after = await mntr(next);
    const electionMs = summary(after, "election_time").sum - summary(before.get(next)!, "election_time").sum;
    // FastLeaderElection's finalizeWait (200 ms) after the survivors agree; then 3.8's connect retry (100 ms) at most.
    expect(electionMs).toBeGreaterThanOrEqual(200);
    expect(electionMs).toBeLessThan(260);
    expect(summary(after, "leader_unavailable_time").cnt).toBe(1);
    expect(summary(after, "leader_unavailable_time").sum).toBeGreaterThanOrEqual(electionMs);
    expect(summary(after, "leader_unavailable_time").sum).toBeLessThan(electionMs + 150);
    expect(after.get("zk_min_leader_unavailable_time")).toBe(after.get("zk_max_leader_unavailable_time"));
    expect(after.get("zk_avg_leader_unavailable_time")).toBe(`${summary(after, "leader_unavailable_time").sum}.0`);
    const follower = survivors.find((n) => n !== next)!;
    const f = await mntr(follower);
    expect([summary(f, "election_time").cnt, summary(f, "follower_sync_time").cnt, summary(f, "unavailable_time").cnt, summary(f, "leader_unavailable_time").cnt]).toEqual([2, 2, 2, 0]);
    // The follower's sync shows the loopback profile's modelled JVM work: its own sync before the
    // NEWLEADER ACK, then the leader's startZkServer before UPTODATE (plus hops and fsyncs, < 2 ms).
    const syncMs = summary(f, "follower_sync_time").sum - summary(before.get(follower)!, "follower_sync_time").sum;
    const { learnerSyncMs, leaderServingStartupMs } = LOOPBACK_STARTUP;
    expect(syncMs).toBeGreaterThanOrEqual(learnerSyncMs + leaderServingStartupMs);
    expect(syncMs).toBeLessThanOrEqual(learnerSyncMs + leaderServingStartupMs + 2);
    expect(summary(after, "leader_unavailable_time").sum).toBeGreaterThanOrEqual(electionMs + learnerSyncMs + leaderServingStartupMs);
    // The restarted member's metrics start afresh, as a new JVM's do.
    expect(s.command(`restart ${leader}`)).toBe(`ok: restart ${leader}`);
    await untilSim(s, `${leader} up`, () => s.ensemble.sim.node(leader).status === "up");
    await allServing(s);
    expect([summary(await mntr(leader), "election_time").cnt, summary(await mntr(leader), "follower_sync_time").cnt]).toEqual([1, 1]);
  });

  it("serve: a cut between a real client's gateway and its server holds its traffic until the heal (N=3)", async () => {
    const s = await serve(3);
    await leaderServing(s);
    const { client } = await connected(s.clientPorts.get("s1")!);
    expect(s.command("cut c1 <-> s1")).toBe("ok: cut c1 <-> s1");
    client.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/", watch: false });
    await expect(client.next("reply", 300)).rejects.toThrow(/no frame within 300 ms/);
    expect(s.command("heal")).toBe("ok: heal");
    expect(await client.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
    expect(lines.some((l) => l.includes("partition c1>s1 s1>c1"))).toBe(true);
  });

  it("serve: the control socket takes the same commands (N=3)", async () => {
    const s = await serve(3);
    expect(await sendControlLine(s.controlPort!, "pause s3 for 1s")).toBe("ok: pause s3 for 1s");
    expect(s.command("status")).toContain("s3 paused");
    expect(await sendControlLine(s.controlPort!, "crash s7")).toMatch(/^error: /);
  });

  it("serve: a checker's violation is printed while serving, and close reports it (canary: two leaders of one epoch) (N=3)", async () => {
    const s = await serve(3);
    const { sim } = s.ensemble;
    // A deliberately broken history: s1 and s2 both establish epoch 99 (what ZOOKEEPER-335 did).
    for (const node of ["s1", "s2"]) sim.trace.annotation(sim.nowUs, "zab.leader.established", node, sim.node(node).idHash, { sid: Number(node.slice(1)), epoch: 99, lastZxid: "0x0" });
    expect(s.command("heal")).toBe("ok: heal"); // a pacing step polls the checkers
    expect(lines.some((l) => /VIOLATION zab\.leadership: Leadership2 violated: epoch 99/.test(l))).toBe(true);
    const violations = await s.close();
    session = undefined;
    expect(violations).toBeGreaterThanOrEqual(1);
  });

  it("serve: maxClientCnxns closes a connection over the per-address limit, and only that one (N=1)", async () => {
    const base = freePortSettings(1);
    session = await startServe({ settings: { ...base, maxClientCnxns: 1 }, seed: 1, out: (l) => lines.push(l) });
    await allServing(session);
    const port = session.clientPorts.get("s1")!;
    const first = await connected(port);
    const second = await RawZkClient.connect(port);
    clients.push(second);
    await second.closed;
    first.client.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/", watch: false });
    expect(await first.client.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
  });

  it("serve: a bad fault command is answered with an error and changes nothing (N=3)", async () => {
    const s = await serve(3);
    expect(s.command("crash s9")).toMatch(/^error: .*unknown node "s9"/);
    expect(s.command("explode s1")).toMatch(/^error: unknown command "explode"/);
    expect(s.command("status")).not.toContain("down");
  });
});
