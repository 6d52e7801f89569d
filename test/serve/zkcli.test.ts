/**
 * A client we did not write: the Debian package's `zkCli.sh` (ZooKeeper 3.8.0's own Java
 * client) runs a scripted session against `zksim serve`. Skipped, saying why, when the package
 * is not installed (`apt-get install -y zookeeper`).
 */
import { describe, expect, it } from "vitest";
import { startServe } from "../../src/serve/serve-session.js";
import { settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { leaderServing } from "./raw-zk-client.js";
import { ZKCLI, zkCli, zkCliInstalled as installed } from "./zkcli-runner.js";

describe.skipIf(!installed)(`serve: zkCli.sh${installed ? "" : ` (skipped: ${ZKCLI} not installed; apt-get install -y zookeeper)`}`, () => {
  it("serve: zkCli.sh: a scripted session creates, reads, lists and stats znodes (N=3)", async () => {
    const base = settingsFromFlags(3, 0, 2181);
    const session = await startServe({ settings: { ...base, members: base.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 5, out: () => undefined });
    try {
      await leaderServing(session);
      const hosts = [...session.clientPorts.values()].map((p) => `127.0.0.1:${p}`).join(",");
      const out = await zkCli(hosts, "create /app hello\nget /app\ncreate -e /app/eph x\nls /\nstat /app\nquit\n");
      expect(out, out).toContain("WatchedEvent state:SyncConnected type:None path:null");
      expect(out).toContain("\nhello\n");
      expect(out).toContain("[app, zookeeper]");
      expect(out).toMatch(/dataLength = 5\nnumChildren = 1\n/); // the ephemeral child exists
      expect(out).toContain("WatchedEvent state:Closed type:None path:null");
    } finally {
      await session.close();
    }
  }, 60_000);
});
