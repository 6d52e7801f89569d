/**
 * `zksim serve`'s authentication settings: -D words (command line, SERVER_JVMFLAGS), zoo.cfg's
 * authentication keys as `zookeeper.<key>` system properties, the JAAS file's Server section.
 */
import { describe, expect, it } from "vitest";
import { UserInputError } from "../../src/sim/errors.js";
import { parseJaasConfig, saslServerUsers } from "../../src/serve/jaas-config.js";
import { JAAS_PROPERTY, jvmFlagWords, serveAuthFrom, systemPropertiesOf } from "../../src/serve/server-auth.js";
import { parseZooCfg } from "../../src/serve/zoo-cfg.js";

const JAAS = `/* the server's users */
Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_super="admin\\"secret"   // a quoted quote
  user_bob=bobsecret;
};
Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="bob" password="bobsecret"; };
`;

describe("serve: authentication settings", () => {
  it("-D words from a JVMFLAGS-style value and argv; other JVM flags are skipped", () => {
    expect(systemPropertiesOf(jvmFlagWords(" -Xmx1g  -Dzookeeper.superUser=bob -Dflag -D"))).toEqual([["zookeeper.superUser", "bob"], ["flag", ""]]);
  });

  it("zoo.cfg: authProvider.N and superDigest become zookeeper.<key> properties, not unknown keys", () => {
    const s = parseZooCfg("authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\nDigestAuthenticationProvider.superDigest=super:GcMT0ijsx21yLyTWAWMqFV/azZE=\nsuperUser=bob\nnoSuchKey=1\n");
    expect([...(s.systemProperties ?? [])]).toEqual([
      ["zookeeper.authProvider.1", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"],
      ["zookeeper.DigestAuthenticationProvider.superDigest", "super:GcMT0ijsx21yLyTWAWMqFV/azZE="],
      ["zookeeper.superUser", "bob"],
    ]);
    expect(s.warnings).toEqual(['zoo.cfg:4: unknown key "noSuchKey" ignored']);
  });

  it("the merged properties: providers, super digest, SASL users and super users; an unknown provider class is a warning", () => {
    const warnings: string[] = [];
    const props = new Map([
      ["zookeeper.authProvider.1", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"],
      ["zookeeper.authProvider.x", "com.example.Nope"],
      ["zookeeper.DigestAuthenticationProvider.superDigest", "super:GcMT0ijsx21yLyTWAWMqFV/azZE="],
      ["zookeeper.superUser.a", "bob"],
      [JAAS_PROPERTY, "/etc/jaas.conf"],
      ["zookeeper.SASLAuthenticationProvider.superPassword", "override"],
    ]);
    const auth = serveAuthFrom(props, (path) => (path === "/etc/jaas.conf" ? JAAS : ""), (w) => warnings.push(w));
    expect([...auth.authProviders]).toEqual(["ip", "digest", "sasl"]);
    expect(auth.superDigest).toBe("super:GcMT0ijsx21yLyTWAWMqFV/azZE=");
    expect(auth.saslSuperUsers).toEqual(["bob"]);
    expect([...(auth.saslUsers ?? [])]).toEqual([["super", "override"], ["bob", "bobsecret"]]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^zookeeper\.authProvider\.x: problems loading com\.example\.Nope/);
    expect(serveAuthFrom(new Map(), () => "", () => undefined)).toEqual({ authProviders: new Set(["ip", "digest"]), saslSuperUsers: [] });
  });

  it("bad input is one line naming it: a malformed super digest, a JAAS file without Server, a Kerberos module, a syntax error", () => {
    expect(() => serveAuthFrom(new Map([["zookeeper.DigestAuthenticationProvider.superDigest", "super:admin"]]), () => "", () => undefined)).toThrow(UserInputError);
    // No Server section (an empty file too): 3.8 starts without a SASL login.
    expect(saslServerUsers("Client { m required; };", "j.conf")).toBeUndefined();
    expect(saslServerUsers("", "j.conf")).toBeUndefined();
    expect(serveAuthFrom(new Map([["java.security.auth.login.config", "j.conf"]]), () => "// nothing for the server\n", () => undefined).saslUsers).toBeUndefined();
    expect(() => saslServerUsers("Server { com.sun.security.auth.module.Krb5LoginModule required; };", "j.conf")).toThrow(/only org.apache.zookeeper.server.auth.DigestLoginModule/);
    expect(() => parseJaasConfig("Server {\n m required a=1\n};", "j.conf")).toThrow(/^j\.conf:3: expected "="/);
    expect(() => parseJaasConfig("Server { m required", "j.conf")).toThrow(/ends where/);
    expect(saslServerUsers(JAAS, "j.conf")?.get("super")).toBe('admin"secret');
  });
});
