/**
 * Read-only mode (3.8's `readonlymode.enabled`, docs/zookeeper.md §3.7): a LOOKING peer's
 * ReadOnlyZooKeeperServer, the client's CONNECTEDREADONLY state and its search for a read/write
 * server (pingRwServer), the `client.timeliness` rules for read-only servers, and the two canaries
 * they catch. Off by default: the same ensemble without the option never serves while LOOKING.
 */
import { asEvent, loose, type LooseEvent } from "../../../helpers/loose-events.js";
import { describe, expect, it } from "vitest";
import { Simulator } from "../../../../src/sim/simulator.js";
import { QuorumPeer, DEFAULT_QUORUM_CONFIG, readOnlyGraceMs } from "../../../../src/zk/server/quorum/quorum-peer.js";
import { createClient, type ClientOptions, type ZooKeeper } from "../../../../src/zk/client/index.js";
import { PING_RW_CONNECT_TIMEOUT_MS } from "../../../../src/zk/client/client-cnxn.js";
import { CreateMode, Ids, KeeperState } from "../../../../src/zk/proto/records.js";
import { runCheckers } from "../../../../src/check/checker.js";
import { TimelinessChecker } from "../../../../src/check/client/index.js";
import { loadScenario } from "../../../../src/cli/scenario-files.js";
import { runScenario } from "../../../../src/scenario/run.js";
import type { Canary } from "../../../../src/scenario/types.js";
import { zkWorkload } from "../../../../src/scenario/workloads/zk.js";

const SERVERS = ["s1", "s2", "s3"];

interface Ensemble {
  sim: Simulator;
  peer(id: string): QuorumPeer;
  client(id: string, servers: readonly string[], options?: Partial<ClientOptions>): ZooKeeper;
  runMs(ms: number): Promise<void>;
}

function ensemble(readOnlyModeEnabled: boolean, clientNodes: readonly string[] = ["c1", "c2"], localSessionsEnabled = true): Ensemble {
  const sim = new Simulator({ seed: 7, retainTrace: true });
  const members = SERVERS.map((host, i) => ({ sid: i + 1, host, role: "participant" as const }));
  SERVERS.forEach((id, i) =>
    sim.addNode(id, (ctx) => new QuorumPeer(ctx, { ...DEFAULT_QUORUM_CONFIG, myid: i + 1, members, server: { serverId: i + 1, localSessionsEnabled }, bugs: new Set(), readOnlyModeEnabled })),
  );
  for (const id of clientNodes) sim.addNode(id, () => ({}));
  for (const id of [...SERVERS, ...clientNodes]) sim.start(id);
  return {
    sim,
    peer: (id) => sim.node(id).process as QuorumPeer,
    client: (id, servers, options = {}) =>
      createClient(sim.node(id).context!, { connectString: servers.join(","), sessionTimeoutMs: 10_000, ...options }),
    runMs: async (ms) => void (await sim.run({ untilUs: sim.nowUs + ms * 1000 })),
  };
}

/** Runs `op` to completion in virtual time; its outcome as a code name or "ok". */
async function outcome(e: Ensemble, op: Promise<unknown>, ms = 2000): Promise<string> {
  let result = "pending";
  op.then(
    () => (result = "ok"),
    (err: { codeName?: string }) => (result = err.codeName ?? String(err)),
  );
  await e.runMs(ms);
  return result;
}

const trace = (e: Ensemble): LooseEvent[] => e.sim.trace.events.map(loose);

describe("zk: read-only mode", () => {
  it("server: a peer cut off from the quorum serves read-only max(2 s, tickTime) after it went LOOKING; off by default", async () => {
    for (const enabled of [false, true]) {
      const e = ensemble(enabled);
      await e.runMs(2000);
      e.sim.network.partition([["s1", "c1"], ["s2", "s3", "c2"]]);
      await e.runMs(40_000);
      const looking = trace(e).filter((x) => x.kind === "zab.state" && x.node === "s1" && x.fields?.state === "LOOKING").map((x) => x.atUs);
      const started = trace(e).filter((x) => x.kind === "zk.readonly.start" && x.node === "s1").map((x) => x.atUs);
      expect(looking.length, `enabled ${enabled}`).toBeGreaterThan(0);
      if (!enabled) {
        expect(started).toEqual([]);
        expect(e.peer("s1").readOnlyServer).toBeUndefined();
        continue;
      }
      expect(started[0]! - looking[0]!).toBe(readOnlyGraceMs(2000) * 1000);
      expect(e.peer("s1").state).toBe("LOOKING");
      expect(e.peer("s1").readOnlyServer?.isServing).toBe(true);
      expect(e.peer("s2").readOnlyServer).toBeUndefined(); // the majority elected: no read-only server there
    }
  });

  it("server + client: reads from the local tree, NOTREADONLY for writes, non-read-only clients refused, a new session after the heal", async () => {
    const e = ensemble(true);
    await e.runMs(2000);
    const writer = e.client("c2", ["s2", "s3"]);
    await outcome(e, writer.create("/a", "v1", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    e.sim.network.partition([["s1", "c1"], ["s2", "s3", "c2"]]);
    await e.runMs(30_000);
    const states: number[] = [];
    const ro = e.client("c1", ["s1"], { canBeReadOnly: true, watcher: (ev) => states.push(ev.state) });
    const plain = e.client("c1", ["s1"]);
    await e.runMs(3000);
    expect(ro.getState()).toBe("CONNECTEDREADONLY");
    expect(states).toContain(KeeperState.ConnectedReadOnly);
    expect(plain.getState()).toBe("CONNECTING");
    expect(trace(e).some((x) => x.kind === "zk.cnxn.refused" && x.fields?.reason === "not a read-only client")).toBe(true);
    const roSession = ro.getSessionId();
    expect(Number(BigInt.asUintN(64, roSession) >> 56n)).toBe(1); // LocalSessionTracker: myid in the top byte
    await outcome(e, writer.setData("/a", "v2", -1));
    let read = "";
    await outcome(e, ro.getData("/a").then((r) => (read = new TextDecoder().decode(r.data ?? new Uint8Array()))));
    expect(read).toBe("v1");
    for (const op of [ro.setData("/a", "x", -1), ro.create("/b", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT), ro.delete("/a", -1), ro.sync("/a")]) {
      expect(await outcome(e, op)).toBe("NOTREADONLY");
    }
    // A read-only session is local: nothing was logged, no zxid consumed.
    expect(e.peer("s1").zkDb.dataTree.sessionsWithTimeouts.has(roSession)).toBe(false);

    e.sim.network.healAll();
    await e.runMs(30_000);
    expect(trace(e).some((x) => x.kind === "zk.readonly.stop" && x.node === "s1")).toBe(true);
    expect(ro.getState()).toBe("CONNECTED");
    expect(ro.getSessionId()).not.toBe(roSession);
    expect(states).toContain(KeeperState.SyncConnected);
    expect(await outcome(e, ro.setData("/a", "v3", -1))).toBe("ok");
    expect(plain.getState()).toBe("CONNECTED");
  });

  it("server: without localSessionsEnabled (3.8's default) a read-only client gets no session: NOTREADONLY in place of the ConnectResponse", async () => {
    const e = ensemble(true, ["c1", "c2"], false);
    await e.runMs(2000);
    e.sim.network.partition([["s1", "c1"], ["s2", "s3", "c2"]]);
    await e.runMs(30_000);
    expect(e.peer("s1").readOnlyServer).toBeDefined();
    const ro = e.client("c1", ["s1"], { canBeReadOnly: true });
    await e.runMs(10_000);
    expect(ro.getState()).toBe("CONNECTING");
    const lost = trace(e).filter((x) => x.kind === "client.disconnect" && x.node === "c1").map((x) => String(x.fields?.reason));
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.every((r) => r.startsWith("bad ConnectResponse"))).toBe(true);
    expect(trace(e).some((x) => x.kind === "send" && x.node === "s1" && x.detail === "notReadOnly")).toBe(true);
  });

  it("client: pingRwServer asks the next host isro, backs off 100 ms → 60 s, and moves to a read/write server it finds", async () => {
    const e = ensemble(true, ["c1"]);
    await e.runMs(2000);
    // s1 alone: s2 and s3 are down, so their ports refuse at once.
    e.sim.crash("s2");
    e.sim.crash("s3");
    await e.runMs(20_000);
    expect(e.peer("s1").readOnlyServer).toBeDefined();
    const ro = e.client("c1", SERVERS, { canBeReadOnly: true });
    await e.runMs(10_000);
    expect(ro.getState()).toBe("CONNECTEDREADONLY");
    const probes = () => trace(e).filter((x) => x.kind === "client.rw-probe");
    const gapsMs = probes().slice(1).map((p, i) => Math.round((p.atUs - probes()[i]!.atUs) / 1000));
    // Each pause doubles (the probes of down hosts end at once, "ro" comes back in a round trip).
    for (let i = 1; i < gapsMs.length; i++) expect(gapsMs[i]! / gapsMs[i - 1]!).toBeCloseTo(2, 1);
    expect(probes().map((p) => p.fields?.result)).toContain("ro");
    const roSession = ro.getSessionId();

    // s2 and s3 come back, but s1 stays cut off from them: they form a quorum without it.
    e.sim.network.cut(["s1"], ["s2", "s3"]);
    e.sim.restart("s2");
    e.sim.restart("s3");
    await e.runMs(90_000);
    expect(e.peer("s1").state).toBe("LOOKING");
    expect(probes().some((p) => p.fields?.result === "rw")).toBe(true);
    expect(ro.getState()).toBe("CONNECTED");
    expect(ro.getSessionId()).not.toBe(roSession);
  });

  it("client: the probe blocks the SendThread; a host that never answers the connect blocks it for the OS connect timeout", async () => {
    const e = ensemble(true, ["c1"]);
    await e.runMs(2000);
    e.sim.network.partition([["s1", "c1"], ["s2", "s3"]]);
    await e.runMs(30_000);
    const ro = e.client("c1", SERVERS, { canBeReadOnly: true, sessionTimeoutMs: 30_000 });
    await e.runMs(200_000);
    const silent = trace(e).filter((x) => x.kind === "client.rw-probe" && x.fields?.result === "none");
    expect(silent.length).toBeGreaterThan(0);
    // The first probe (≤ 100 ms after the handle started) asks the next host, one across the cut.
    const connectedUs = trace(e).find((x) => x.kind === "client.state" && x.fields?.state === "CONNECTEDREADONLY")!.atUs;
    const blockedMs = (silent[0]!.atUs - connectedUs) / 1000;
    expect(blockedMs).toBeGreaterThanOrEqual(PING_RW_CONNECT_TIMEOUT_MS);
    expect(blockedMs).toBeLessThan(PING_RW_CONNECT_TIMEOUT_MS + 200);
    // While blocked nothing is sent: the read-only server's local session expires, and the client,
    // back from the probe, finds its connection gone and gets a new read-only session.
    expect(trace(e).some((x) => x.kind === "zk.session.expire" && x.node === "s1")).toBe(true);
    expect(["CONNECTEDREADONLY", "CONNECTING"]).toContain(ro.getState());
  });
});

/** Feeds hand-written events to the timeliness checker. */
function judge(events: Partial<LooseEvent>[]): string[] {
  const full = events.map((e, index) => asEvent({ index, atUs: 0, kind: "", node: "", ...e }));
  return runCheckers([new TimelinessChecker()], full).map((v) => v.message);
}

describe("check: client.timeliness in read-only mode", () => {
  const start = { kind: "zk.readonly.start", node: "s1", fields: { sid: 1, lastZxid: "0x5" } };
  const connect = (conn: number, readOnly: boolean) => ({ kind: "client.connect", node: "c1", fields: { client: "c1", server: "s1", session: "0x0", conn, ...(readOnly ? { readOnly: true } : {}) } });
  const send = (detail: string, conn: number) => ({ kind: "send", node: "s1", peer: "c1", detail, conn });

  it("reads and refusals to a read-only client pass; a write's reply or any answer to another client fails", () => {
    expect(judge([start, connect(4, true), send("connected", 4), send("reply:getData", 4), send("notReadOnly", 4), send("ping", 4)])).toEqual([]);
    expect(judge([start, connect(4, true), send("reply:setData", 4)])).toHaveLength(1);
    expect(judge([start, connect(4, false), send("connected", 4)])).toHaveLength(1);
    // A connection no client.connect named (a real client through zksim serve) is judged by its op only.
    expect(judge([start, send("reply:getData", 9)])).toEqual([]);
    expect(judge([start, send("reply:create", 9)])).toHaveLength(1);
    // Outside read-only mode these rules say nothing (a LOOKING server without one sends nothing to clients).
    expect(judge([start, { kind: "zk.readonly.stop", node: "s1", fields: { sid: 1 } }, connect(4, false), send("reply:setData", 4)])).toEqual([]);
  });
});

describe("scenario: read-only-mode: clean, and each read-only canary caught by client.timeliness", () => {
  const generic = (checkers: readonly string[]) => [...new Set(checkers.filter((c) => !c.startsWith("scenario.")))].sort();
  it("passes at seeds 1 and 2", async () => {
    for (const seed of [1, 2]) expect((await runScenario(loadScenario("read-only-mode"), { seed })).violations).toEqual([]);
  }, 60_000);
  for (const canary of ["read-only-accepts-writes", "read-only-serves-any-client"] as Canary[]) {
    it(`canary ${canary}: caught by client.timeliness`, async () => {
      const r = await runScenario(loadScenario("read-only-mode"), { seed: 1, canary });
      expect(generic(r.violations.map((v) => v.checker))).toContain("client.timeliness");
    }, 60_000);
  }
});

describe("scenario: workload parameter readOnlyMode", () => {
  it("true or false, for ensembles only; anything else is one clear line", () => {
    const params = { script: "read-only-mode", servers: 3, clients: 2 };
    expect(zkWorkload.nodes({ ...params, readOnlyMode: true })).toContain("s3");
    expect(() => zkWorkload.nodes({ ...params, readOnlyMode: "yes" })).toThrow(/workload\.readOnlyMode: expected true or false, got "yes"/);
    expect(() => zkWorkload.nodes({ ...params, servers: 1, readOnlyMode: true })).toThrow(/read-only mode needs an ensemble/);
  });
});
