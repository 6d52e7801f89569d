/**
 * A client we did not write: the Debian package's `zkCli.sh` (ZooKeeper 3.8.0's own Java
 * client) runs a scripted session against `zksim serve`. Skipped, saying why, when the package
 * is not installed (`apt-get install -y zookeeper`).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startServe } from "../../src/serve/serve-session.js";
import { settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { leaderServing } from "./raw-zk-client.js";
import { ZKCLI, zkCli, zkCliInstalled as installed, zkCliSession } from "./zkcli-runner.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
const EPHEMERAL_OWNER = /ephemeralOwner = (0x[0-9a-f]+)/;

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

  it("serve: zkCli.sh: `zksim ctl crash` of the leader is a disconnect and a reconnect to a new leader; the session and its ephemeral are kept (N=3)", async () => {
    const base = settingsFromFlags(3, 0, 2181);
    const session = await startServe({ settings: { ...base, members: base.members.map((m) => ({ ...m, clientPort: 0 })) }, seed: 5, controlPort: 0, out: () => undefined });
    const cli = zkCliSession([...session.clientPorts.values()].map((p) => `127.0.0.1:${p}`).join(","));
    try {
      const leader = await leaderServing(session);
      await cli.waitFor(/state:SyncConnected type:None/);
      cli.send("create -e /eph x");
      cli.send("stat /eph");
      const owner = EPHEMERAL_OWNER.exec(await cli.waitFor(EPHEMERAL_OWNER))![1]!;
      expect(owner).not.toBe("0x0");
      const mark = cli.output().length;
      // As a user does it: the control socket, through the zksim ctl command.
      // (Asynchronously: this process is also the server the control socket belongs to.)
      const ctl = await promisify(execFile)(process.execPath, [BIN, "ctl", "--port", String(session.controlPort), "crash", leader], { encoding: "utf8", timeout: 30_000 });
      expect(ctl.stdout).toContain(`ok: crash ${leader}`);
      // Every member's clients lose their connection (the followers go LOOKING), then find the new leader.
      await cli.waitFor(/state:Disconnected type:None[\s\S]*state:SyncConnected type:None/, mark);
      expect(await leaderServing(session)).not.toBe(leader);
      const after = cli.output().length;
      cli.send("stat /eph");
      const owners = [...(await cli.waitFor(EPHEMERAL_OWNER, after)).slice(after).matchAll(new RegExp(EPHEMERAL_OWNER, "g"))].map((m) => m[1]);
      expect(owners[0]).toBe(owner); // the same session still owns its ephemeral
      expect(cli.output().slice(mark)).not.toContain("state:Expired");
    } finally {
      await cli.quit();
      await session.close();
    }
  }, 90_000);
});
