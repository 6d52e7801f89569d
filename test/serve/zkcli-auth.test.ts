/**
 * Authentication through `zksim serve` with ZooKeeper 3.8.0's own client, `zkCli.sh`: SASL
 * DIGEST-MD5 from a JAAS file (the client's `Client` section, the server's `Server` section),
 * a wrong password (AuthFailed), and the super digest passing an ACL that shuts everyone else
 * out. The expected lines are what zkCli.sh printed against a real 3.8.0 server set up the same
 * way (docs/serve.md, "Authentication"). Skipped, saying why, without the Debian package.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startServe } from "../../src/serve/serve-session.js";
import { parseZooCfg } from "../../src/serve/zoo-cfg.js";
import { JAAS_PROPERTY, serveAuthFrom } from "../../src/serve/server-auth.js";
import { leaderServing } from "./raw-zk-client.js";
import { ZKCLI, zkCli, zkCliInstalled as installed } from "./zkcli-runner.js";

const JAAS = (clientPassword: string) => `Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_super="adminsecret"
  user_bob="bobsecret";
};
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="bob"
  password="${clientPassword}";
};
`;

const ZOO_CFG = `tickTime=2000
clientPort=2181
server.1=127.0.0.1:2888:3888
server.2=127.0.0.1:2889:3889
server.3=127.0.0.1:2890:3890
authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider
DigestAuthenticationProvider.superDigest=super:GcMT0ijsx21yLyTWAWMqFV/azZE=
`;

describe.skipIf(!installed)(`serve: zkCli.sh authentication${installed ? "" : ` (skipped: ${ZKCLI} not installed; apt-get install -y zookeeper)`}`, () => {
  it("serve: zkCli.sh: SASL DIGEST-MD5 login, a wrong password, and the super digest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zksim-auth-"));
    const good = join(dir, "jaas.conf");
    const bad = join(dir, "jaas-bad.conf");
    writeFileSync(good, JAAS("bobsecret"));
    writeFileSync(bad, JAAS("wrong"));
    const parsed = parseZooCfg(ZOO_CFG);
    const settings = { ...parsed, members: parsed.members.map((m) => ({ ...m, clientPort: 0 })) }; // any free port
    const props = new Map([...(settings.systemProperties ?? []), [JAAS_PROPERTY, good]]);
    const auth = serveAuthFrom(props, () => JAAS("unused"), (line) => expect.unreachable(line));
    const session = await startServe({ settings: { ...settings, auth }, seed: 5, out: () => undefined });
    try {
      await leaderServing(session);
      const host = [...session.clientPorts.values()].map((p) => `127.0.0.1:${p}`).join(",");
      const sasl = await zkCli(host, "whoami\ncreate /s x sasl:bob:cdrwa\ngetAcl /s\nquit\n", 30_000, { CLIENT_JVMFLAGS: `-D${JAAS_PROPERTY}=${good}` });
      expect(sasl, sasl).toContain("WatchedEvent state:SaslAuthenticated type:None path:null");
      expect(sasl).toMatch(/Auth scheme: User\nsasl: bob\nip: [\d.]+\n/);
      expect(sasl).toContain("'sasl,'bob\n: cdrwa\n"); // created with that ACL ("Created /s" goes to stderr)
      const wrong = await zkCli(host, "ls /\nquit\n", 30_000, { CLIENT_JVMFLAGS: `-D${JAAS_PROPERTY}=${bad}` });
      expect(wrong, wrong).toContain("WatchedEvent state:AuthFailed type:None path:null");
      const admin = await zkCli(host, "get /s\naddauth digest super:adminsecret\nget /s\nwhoami\nquit\n");
      // The first get is refused (on stderr); after the addauth the second prints the data.
      expect(admin, admin).toMatch(/\nx\nAuth scheme: User\nsuper: \nip: [\d.]+\ndigest: super\n/);
      expect(admin.match(/^x$/gm)).toHaveLength(1);
    } finally {
      const violations = await session.close();
      rmSync(dir, { recursive: true, force: true });
      // An AUTHFAILED close is the server's doing on purpose: no checker may call it a violation.
      expect(violations).toBe(0);
    }
  }, 120_000);
});
