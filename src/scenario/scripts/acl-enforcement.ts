/**
 * acl-enforcement: the ACL schemes and checks of docs/zookeeper.md §5 through the client library —
 * digest auth and the `auth` scheme (CREATOR_ALL_ACL), which permission each op checks on which
 * node, getACL masking digests for callers without ADMIN, read-only ACLs, the `ip` scheme,
 * super-digest bypass, INVALIDACL and AUTHFAILED.
 */
import { CreateMode, Ids, Perms } from "../../zk/proto/records.js";
import { text, utf8, type ScriptDef } from "./script.js";

export const aclEnforcement: ScriptDef = {
  name: "acl-enforcement",
  description: "digest, auth, ip and super ACLs; which op checks which permission; masking, INVALIDACL, AUTHFAILED",
  async run(s) {
    const alice = await s.connect("c1");
    const bob = await s.connect("c2");
    const anon = await s.connect("c3");
    alice.addAuthInfo("digest", utf8("alice:secret"));
    bob.addAuthInfo("digest", utf8("bob:hunter2"));

    await s.expectError(anon.create("/x", "", Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT), "INVALIDACL", "the auth scheme with no authenticated id");
    await alice.create("/private", "secret", Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
    const acl = (await alice.getACL("/private")).acl;
    s.expectEqual(acl, [{ perms: Perms.ALL, id: { scheme: "digest", id: "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=" } }], "auth expands to the creator's digest id");
    await s.expectError(bob.getData("/private"), "NOAUTH", "READ is checked on the node");
    await s.expectError(bob.setData("/private", "mine", -1), "NOAUTH", "WRITE is checked on the node");
    await s.expectError(bob.create("/private/child", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT), "NOAUTH", "CREATE is checked on the parent");
    s.expect((await bob.exists("/private")) !== null, "exists checks no ACL in 3.8.0");
    s.expectEqual(text((await alice.getData("/private")).data), "secret", "the owner reads");

    await alice.create("/shared", "", [
      { perms: Perms.ALL, id: { scheme: "digest", id: "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=" } },
      { perms: Perms.READ, id: { scheme: "world", id: "anyone" } },
    ], CreateMode.PERSISTENT);
    const masked = (await bob.getACL("/shared")).acl;
    s.expectEqual(masked.map((a) => `${a.id.scheme}:${a.id.id}`), ["digest:alice:x", "world:anyone"], "getACL without ADMIN masks digests");
    await alice.create("/shared/doc", "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    await s.expectError(bob.delete("/shared/doc", -1), "NOAUTH", "deleting a child needs DELETE on its parent, whatever the child's own ACL");
    await alice.create("/locked", "", Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
    await bob.delete("/locked", -1);
    s.expectEqual(await alice.exists("/locked"), null, "bob deleted alice's /locked: its own ACL does not guard a delete, its parent's does");

    const bobIp = s.sim.node("c2").context!.addressOf("c2");
    await alice.create("/byip", "", [{ perms: Perms.ALL, id: { scheme: "ip", id: bobIp } }], CreateMode.PERSISTENT);
    await bob.setData("/byip", "from bob's address", -1);
    await s.expectError(alice.getData("/byip"), "NOAUTH", "the ip scheme matches the connection's address only");
    await s.expectError(alice.setACL("/byip", Ids.OPEN_ACL_UNSAFE, -1), "NOAUTH", "setACL needs ADMIN");
    await s.expectError(alice.create("/bad", "", [{ perms: Perms.ALL, id: { scheme: "world", id: "someone" } }], CreateMode.PERSISTENT), "INVALIDACL", "world only has the id anyone");

    // IPv6 `ip` ids: eight groups, or fewer around one `::`, each with an optional prefix length.
    const v6 = (id: string) => [{ perms: Perms.ALL, id: { scheme: "ip", id } }];
    await alice.create("/v6-full", "", v6("2001:db8:0:0:0:0:0:1"), CreateMode.PERSISTENT);
    await alice.create("/v6-short", "", v6("fe80::/10"), CreateMode.PERSISTENT);
    await s.expectError(alice.getData("/v6-short"), "NOAUTH", "an IPv6 id matches no IPv4 client");
    for (const bad of ["1:2:3:4:5:6:7:8:9", "1:2:3:4::5:6:7:8", "1::2::3", "::1/129"]) {
      await s.expectError(alice.create("/v6-bad", "", v6(bad), CreateMode.PERSISTENT), "INVALIDACL", `the ip id ${bad} is not an IPv6 address or prefix`);
    }

    const root = await s.connect("c3");
    root.addAuthInfo("digest", utf8("super:admin"));
    s.expectEqual(text((await root.getData("/private")).data), "secret", "the super digest bypasses every ACL");

    anon.addAuthInfo("nosuchscheme", utf8("x"));
    await s.waitFor(() => anon.getState() === "AUTH_FAILED", 5_000, "an unknown auth scheme fails the handle (AUTH_FAILED)");
    s.conclude("digest, auth, ip and super behaved as ZooKeeper 3.8: the right permission on the right node, masked getACL, INVALIDACL and AUTHFAILED");
  },
};
