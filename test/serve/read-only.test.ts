/**
 * `zksim serve --read-only` (3.8's `-Dreadonlymode.enabled=true`): a member partitioned from the
 * majority answers `isro` with "ro" and `srvr` with "Mode: read-only", serves a real client whose
 * ConnectRequest asks for read-only (ConnectResponse readOnly = true, reads answered, writes
 * NOTREADONLY) and closes one that does not. A short tickTime keeps the wall-clock wait small:
 * the follower notices the lost leader after syncLimit ticks, then waits max(2 s, tickTime).
 */
import { describe, expect, it } from "vitest";
import { startServe } from "../../src/serve/serve-session.js";
import { fourLetterWhitelist, parseZooCfg, settingsFromFlags, type ServeSettings } from "../../src/serve/zoo-cfg.js";
import { QuorumPeer } from "../../src/zk/server/quorum/quorum-peer.js";
import { OpCode } from "../../src/zk/proto/op-code.js";
import { Code } from "../../src/zk/proto/error-code.js";
import { RawZkClient, fourLetterWord, leaderServing, serveFixture, untilSim } from "./raw-zk-client.js";
import { TcpNodeContext } from "../../src/runtime/tcp-node-context.js";
import { fourLetterWordPacket, isZkPacket } from "../../src/zk/proto/wire.js";

/** `isro` as the client library's pingRwServer asks it over a real socket (TcpNodeContext). */
function probeIsro(port: number): Promise<string> {
  const ctx = new TcpNodeContext({ id: "probe" });
  return new Promise((resolve) => {
    let answer = "none";
    ctx.connect("127.0.0.1", port, {
      onOpen: (ep) => ep.send(fourLetterWordPacket("isro")),
      onMessage: (_ep, m) => {
        if (isZkPacket(m)) answer = new TextDecoder().decode(m.bytes);
      },
      onClose: () => resolve(answer),
    }, { timeoutUs: 5_000_000 });
  });
}

function settings(readOnlyModeEnabled: boolean, localSessionsEnabled = true): ServeSettings {
  const s = settingsFromFlags(3, 0, 2181);
  return { ...s, tickTimeMs: 200, members: s.members.map((m) => ({ ...m, clientPort: 0 })), fourLetterWords: fourLetterWhitelist(readOnlyModeEnabled ? "conf, mntr" : "isro"), readOnlyModeEnabled, localSessionsEnabled };
}

const fx = serveFixture();

describe("serve: read-only mode", () => {
  it("serve --read-only: a partitioned follower answers isro ro, srvr Mode: read-only, serves read-only clients only (N=3)", async () => {
    const s = (fx.session = await startServe({ settings: settings(true), seed: 1, controlPort: 0, out: () => undefined }));
    const leader = await leaderServing(s);
    const minority = ["s1", "s2", "s3"].find((id) => id !== leader)!;
    const port = s.clientPorts.get(minority)!;
    // Not in the whitelist, but readonlymode.enabled admits isro, as 3.8's FourLetterCommands does.
    expect(await fourLetterWord(port, "isro")).toBe("rw");
    const rest = ["s1", "s2", "s3"].filter((id) => id !== minority);
    s.command(`partition ${minority} | ${rest.join(" ")}`);
    await untilSim(s, `${minority}'s read-only server`, () => (s.ensemble.sim.node(minority).process as QuorumPeer).readOnlyServer !== undefined);
    expect(await fourLetterWord(port, "isro")).toBe("ro");
    expect(await probeIsro(port)).toBe("ro");
    expect(await fourLetterWord(port, "mntr")).toContain("\nzk_server_state\tread-only\n");
    const conf = await fourLetterWord(port, "conf");
    expect(conf).toMatch(/\npeerType=0\n$/); // ReadOnlyZooKeeperServer.dumpConf: no membership lines
    expect(conf).toContain(`serverId=${minority.slice(1)}\n`);
    expect(await probeIsro(s.clientPorts.get(leader)!)).toBe("rw");
    // The shape a real 3.8.0 printed for a lone member of a 3-server ensemble with -Dreadonlymode.enabled=true.
    expect(await fourLetterWord(port, "srvr")).toMatch(/^Zookeeper version: [^\n]+\nREAD-ONLY mode; serving only read-only clients\nLatency min\/avg\/max: [^\n]+\nReceived: \d+\nSent: \d+\nConnections: \d+\nOutstanding: 0\nZxid: 0x[0-9a-f]+\nMode: read-only\nNode count: \d+\n$/);

    const ro = await RawZkClient.connect(port);
    fx.clients.push(ro);
    ro.sendConnect(0n, new Uint8Array(16), 10_000, true);
    const established = await ro.next("connect");
    expect(established).toMatchObject({ kind: "connect", response: { readOnly: true } });
    ro.sendRequest(1, OpCode.exists, { kind: "ExistsRequest", path: "/zookeeper", watch: false });
    expect(await ro.next("reply")).toMatchObject({ header: { xid: 1, err: Code.OK } });
    ro.sendRequest(2, OpCode.setData, { kind: "SetDataRequest", path: "/zookeeper", data: new Uint8Array(0), version: -1 });
    expect(await ro.next("reply")).toMatchObject({ header: { xid: 2, err: Code.NOTREADONLY } });

    const rw = await RawZkClient.connect(port);
    fx.clients.push(rw);
    rw.sendConnect();
    await rw.closed; // refused unanswered: not a read-only client

    s.command("heal");
    await untilSim(s, `${minority} rejoins`, () => (s.ensemble.sim.node(minority).process as QuorumPeer).serving);
    await ro.closed; // the read-only server's connections close when it shuts down
    expect(await fourLetterWord(port, "isro")).toBe("rw");
  }, 40_000);

  it("serve without --read-only: the partitioned follower is not serving (isro null)", async () => {
    const s = (fx.session = await startServe({ settings: settings(false), seed: 1, controlPort: 0, out: () => undefined }));
    const leader = await leaderServing(s);
    const minority = ["s1", "s2", "s3"].find((id) => id !== leader)!;
    s.command(`partition ${minority} | ${["s1", "s2", "s3"].filter((id) => id !== minority).join(" ")}`);
    await untilSim(s, `${minority} LOOKING`, () => (s.ensemble.sim.node(minority).process as QuorumPeer).state === "LOOKING");
    // Past the read-only grace (max(2 s, tickTime) of virtual time), still no read-only server.
    const lookingUs = s.ensemble.sim.nowUs;
    await untilSim(s, "2.5 s of virtual time", () => s.ensemble.sim.nowUs >= lookingUs + 2_500_000);
    expect(await fourLetterWord(s.clientPorts.get(minority)!, "isro")).toBe("null");
  }, 40_000);
});

describe("serve: zoo.cfg readonlymode.enabled", () => {
  it("zoo.cfg: readonlymode.enabled=true turns read-only mode on, with a warning that 3.8 reads it only as a -D property; a bad value is refused", () => {
    const on = parseZooCfg("tickTime=2000\nreadonlymode.enabled=true\n", "t.cfg");
    expect(on.readOnlyModeEnabled).toBe(true);
    expect(on.warnings.join("\n")).toMatch(/t\.cfg:2: readonlymode\.enabled is a Java system property/);
    expect(parseZooCfg("tickTime=2000\n").readOnlyModeEnabled).toBeUndefined();
    expect(parseZooCfg("localSessionsEnabled=true\n").localSessionsEnabled).toBe(true);
    expect(() => parseZooCfg("readonlymode.enabled=yes\n", "t.cfg")).toThrow(/t\.cfg:1: readonlymode\.enabled: expected true or false, got "yes"/);
  });
});
