/**
 * /zookeeper/config is filled on every quorum peer whether or not reconfig is enabled, as 3.8's
 * QuorumPeerMain does (`initConfigInZKDatabase` at start and after each sync with a leader):
 * `zkCli config` against a real 3.8.0 ensemble with reconfigEnabled=false prints the server
 * lines and version=0, with dataVersion −1 and mzxid 0.
 */
import { describe, expect, it } from "vitest";
import { Simulator } from "../../../../src/sim/simulator.js";
import { QuorumPeer, DEFAULT_QUORUM_CONFIG } from "../../../../src/zk/server/quorum/quorum-peer.js";
import { createClient } from "../../../../src/zk/client/index.js";

const SERVERS = ["s1", "s2", "s3"];

describe("zk: /zookeeper/config without reconfigEnabled", () => {
  it("every server answers getConfig with the static config, version 0", async () => {
    const sim = new Simulator({ seed: 3 });
    const members = SERVERS.map((host, i) => ({ sid: i + 1, host, role: "participant" as const }));
    SERVERS.forEach((id, i) => sim.addNode(id, (ctx) => new QuorumPeer(ctx, { ...DEFAULT_QUORUM_CONFIG, myid: i + 1, members, server: { serverId: i + 1 }, bugs: new Set() })));
    sim.addNode("c1", () => ({}));
    for (const id of [...SERVERS, "c1"]) sim.start(id);
    await sim.run({ untilUs: 5_000_000 });
    const expected = "server.1=s1:2888:3888:participant\nserver.2=s2:2888:3888:participant\nserver.3=s3:2888:3888:participant\nversion=0";
    for (const id of SERVERS) {
      const peer = sim.node(id).process as QuorumPeer;
      expect(peer.reconfigEnabled).toBe(false);
      const node = peer.zkDb.dataTree.getNode("/zookeeper/config");
      expect(new TextDecoder().decode(node?.data ?? new Uint8Array())).toBe(expected);
      expect(node?.stat.version).toBe(-1);
      expect(node?.stat.mzxid).toBe(0n);
    }
    const zk = createClient(sim.node("c1").context!, { connectString: SERVERS.join(","), sessionTimeoutMs: 10_000 });
    let got: string | undefined;
    zk.getConfig().then((r) => (got = new TextDecoder().decode(r.data ?? new Uint8Array())));
    await sim.run({ untilUs: sim.nowUs + 3_000_000 });
    expect(got).toBe(expected);
  });
});
