/**
 * sasl-auth: SASL DIGEST-MD5 logins and the `sasl` ACL scheme (docs/zookeeper.md §5.2), with the
 * server set up as a JAAS `Server` section (`saslUsers`), `authProvider.1=SASLAuthenticationProvider`
 * (`authProviders: ["sasl"]`) and `zookeeper.superUser` (`saslSuperUsers`): a handle with a JAAS
 * `Client` login authenticates on connect and gains `sasl:<user>`, which opens the nodes whose ACL
 * names that user (reads and writes alike) and only those; `sasl:anyone` is a user called anyone,
 * not everyone; a SASL super user passes every check; a wrong password fails the handle (AUTH_FAILED).
 */
import { createClient } from "../../zk/client/index.js";
import { CreateMode, Perms } from "../../zk/proto/records.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import { text, utf8, type ScriptDef } from "./script.js";

const sasl = (id: string, perms: number = Perms.ALL) => [{ perms, id: { scheme: "sasl", id } }];

export const saslAuth: ScriptDef = {
  name: "sasl-auth",
  description: "SASL DIGEST-MD5 logins, the sasl ACL scheme, a SASL super user, a wrong password",
  async run(s) {
    const bob = await s.connect("c1", { sasl: { username: "bob", password: "bobs-secret" } });
    const anon = await s.connect("c2");
    s.expectEqual(
      (await bob.whoAmI()).map((c) => `${c.authScheme}:${c.user}`).filter((c) => !c.startsWith("ip:")),
      ["sasl:bob"],
      "whoAmI after a SASL login: the sasl id with its user",
    );

    await bob.create("/bobs", "only bob", sasl("bob"), CreateMode.PERSISTENT);
    s.expectEqual(text((await bob.getData("/bobs")).data), "only bob", "sasl:bob reads the node whose ACL names bob");
    await bob.setData("/bobs", "still bob", -1);
    await s.expectError(anon.getData("/bobs"), "NOAUTH", "a caller with no SASL login does not read sasl:bob's node");
    await s.expectError(anon.setData("/bobs", "not bob", -1), "NOAUTH", "nor write it");

    await bob.create("/anyone", "for the user called anyone", sasl("anyone", Perms.READ), CreateMode.PERSISTENT);
    await s.expectError(anon.getData("/anyone"), "NOAUTH", "sasl:anyone names a user called anyone, not everyone (only world:anyone is)");
    await s.expectError(bob.getData("/anyone"), "NOAUTH", "and not bob either");

    const admin = await s.connect("c3", { sasl: { username: "admin", password: "admins-secret" } });
    s.expectEqual(text((await admin.getData("/bobs")).data), "still bob", "a zookeeper.superUser SASL login passes every check");

    // A wrong password: the exchange fails, the server answers AUTHFAILED and the handle is dead.
    const node = s.sim.node("c4").context!;
    const mallory = createClient(node, { connectString: `${s.servers[0]}:${CLIENT_PORT}`, sessionTimeoutMs: 10_000, sasl: { username: "bob", password: "guessed" } });
    await s.waitFor(() => mallory.getState() === "AUTH_FAILED", 5_000, "a wrong SASL password fails the handle (AUTH_FAILED)");
    await s.expectError(mallory.getData("/bobs"), "AUTHFAILED", "a failed handle's requests fail AUTHFAILED");

    // digest and sasl ids live side by side on one connection.
    bob.addAuthInfo("digest", utf8("bob:hunter2"));
    await bob.create("/both", "", [...sasl("bob", Perms.READ), { perms: Perms.ALL, id: { scheme: "auth", id: "" } }], CreateMode.PERSISTENT);
    s.expectEqual(
      (await bob.getACL("/both")).acl.map((a) => `${a.id.scheme}:${a.id.id.split(":")[0]}:${a.perms}`).sort(),
      ["digest:bob:31", "sasl:bob:1", "sasl:bob:31"],
      "the auth scheme expands to every authenticated id: the digest one and the sasl one",
    );
    s.conclude("SASL DIGEST-MD5 behaved as ZooKeeper 3.8: the login's sasl id opens its own nodes only, the super user all, a wrong password fails the handle");
  },
};
