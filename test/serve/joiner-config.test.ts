/**
 * Joiners declared by their own zoo.cfg (`zksim serve --joiner FILE`), as 3.8's reconfig guide
 * starts a server about to be added: the ensemble's config plus itself, here through a dynamic
 * config file (`dynamicConfigFile`) as 3.5+ writes them. A real client (the project's own over
 * TCP) adds the declared joiner with `reconfig -add` through the CLI's serve, then reads through
 * the joiner's own client port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePortRun } from "./raw-zk-client.js";
import { OutputWatch } from "../helpers/output.js";
import { connectOverTcp, type TcpClient } from "../../src/runtime/tcp-client.js";
import { CreateMode, Ids, KeeperState } from "../../src/zk/proto/records.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));
/** super:adminsecret (DigestAuthenticationProvider.generateDigest). */
const SUPER_DIGEST = "super:GcMT0ijsx21yLyTWAWMqFV/azZE=";

let child: ChildProcess | undefined;
const clients: TcpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  child?.kill("SIGKILL");
  child = undefined;
});

/** A client of `connect`, once its session is established. */
async function connected(connect: string): Promise<TcpClient> {
  let resolve = () => {};
  const established = new Promise<void>((r) => (resolve = r));
  const c = connectOverTcp({ connectString: connect, sessionTimeoutMs: 10_000, seed: 1, watcher: (e) => e.state === KeeperState.SyncConnected && resolve() });
  clients.push(c);
  await established;
  return c;
}

describe("serve: joiners from their zoo.cfg", () => {
  it("serve: a joiner declared by --joiner FILE (its own zoo.cfg and dynamic file) is added by a real client's reconfig -add and then serves on its client port", async () => {
    const control = await freePortRun(5);
    const ports = [1, 2, 3, 4].map((i) => control + i);
    const dir = mkdtempSync(join(tmpdir(), "zksim-joiner-"));
    const line = (sid: number) => `server.${sid}=127.0.0.1:${2887 + sid}:${3887 + sid}:participant;127.0.0.1:${ports[sid - 1]}`;
    const staticCfg = (dynamic: string) => ["tickTime=2000", "initLimit=10", "syncLimit=5", "reconfigEnabled=true", `DigestAuthenticationProvider.superDigest=${SUPER_DIGEST}`, `dynamicConfigFile=${join(dir, dynamic)}`, ""].join("\n");
    writeFileSync(join(dir, "zoo.cfg"), staticCfg("zoo.cfg.dynamic"));
    writeFileSync(join(dir, "zoo.cfg.dynamic"), [1, 2, 3].map(line).join("\n") + "\n");
    // The joiner's own files: the last committed config plus itself, as a participant.
    writeFileSync(join(dir, "joiner.cfg"), staticCfg("joiner.cfg.dynamic"));
    writeFileSync(join(dir, "joiner.cfg.dynamic"), [1, 2, 3, 4].map(line).join("\n") + "\n");
    child = spawn(process.execPath, [BIN, "serve", "--config", join(dir, "zoo.cfg"), "--joiner", join(dir, "joiner.cfg"), "--no-record", "--seed", "3", "--control-port", String(control)], { stdio: ["pipe", "pipe", "pipe"] });
    const out = OutputWatch.of(child.stdout!);
    await out.until("leader");
    expect(out.text).toContain(`s4 127.0.0.1:${ports[3]}`);
    const admin = await connected(ports.slice(0, 3).map((p) => `127.0.0.1:${p}`).join(","));
    admin.zk.addAuthInfo("digest", "super:adminsecret");
    const decode = (data: Uint8Array | null) => new TextDecoder().decode(data ?? new Uint8Array());
    expect(decode((await admin.zk.getConfig()).data)).not.toContain("server.4=");
    const added = decode((await admin.zk.reconfig(line(4), null, null)).data);
    expect(added.split("\n").filter((l) => l.startsWith("server."))).toEqual([1, 2, 3, 4].map(line));
    await admin.zk.create("/after-join", new TextEncoder().encode("x"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    // The joiner, now a voter, serves its own clients the committed tree and config.
    const joiner = await connected(`127.0.0.1:${ports[3]}`);
    await joiner.zk.sync("/");
    expect(await joiner.zk.exists("/after-join")).not.toBeNull();
    expect(decode((await joiner.zk.getConfig()).data)).toContain(line(4));
  }, 40_000);
});
