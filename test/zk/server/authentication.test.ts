/**
 * Authentication as ZooKeeper 3.8 does it, against the simulated standalone server: the super
 * digest bypassing ACLs, an addauth no provider handles (AUTHFAILED, connection closed), the
 * `sasl` provider registered by `authProvider.N`, and the SASL DIGEST-MD5 exchange (RFC 2831)
 * with the JAAS `Server` section's users — success, wrong password, no JAAS at all.
 */
import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/sim/simulator.js";
import { ZooKeeperServer, type ZooKeeperServerConfig } from "../../../src/zk/server/zoo-keeper-server.js";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import { Ids, KeeperState, Perms } from "../../../src/zk/proto/records.js";
import { createClient, type ZooKeeper } from "../../../src/zk/client/index.js";
import { checkACL, clientInfos, fixupACL, generateDigest, isValidSaslId } from "../../../src/zk/server/acl.js";
import { digestResponseHex, parseDirectives, SASL_DIGEST_URI } from "../../../src/zk/server/digest-md5.js";
import { RawClient, dec, enc } from "./raw-client.js";

const SASL_PROVIDERS = new Set(["ip", "digest", "sasl"]);
const USERS = new Map([["bob", "bobsecret"], ["super", "adminsecret"]]);

function world(config: Partial<ZooKeeperServerConfig>, seed = 1) {
  const sim = new Simulator({ seed, retainTrace: true });
  sim.addNode("s1", (ctx) => new ZooKeeperServer(ctx, { tickTimeMs: 2000, ...config }), { fsyncLatencyUs: 2_000 });
  const raw = new Map<string, RawClient>();
  for (const id of ["c1", "c2"]) sim.addNode(id, (ctx) => (raw.set(id, new RawClient(ctx)), {}));
  for (const id of sim.nodeIds) sim.start(id);
  const run = (ms = 50) => sim.runSync({ untilUs: sim.nowUs + ms * 1000 });
  const connected = (id: string) => {
    const c = raw.get(id)!;
    c.connect();
    run();
    return c;
  };
  return { sim, run, connected };
}

/** A ZooKeeper 3.8 client's side of DIGEST-MD5: the digest-response to `challenge`. */
function digestResponse(challenge: string, username: string, password: string): string {
  const d = parseDirectives(challenge)!;
  const v = { username, realm: d.get("realm")!, password, nonce: d.get("nonce")!, cnonce: "OA6MHXh6VqTrRk", nc: "00000001", qop: "auth", digestUri: SASL_DIGEST_URI };
  return `charset=utf-8,username="${username}",realm="${v.realm}",nonce="${v.nonce}",nc=00000001,cnonce="${v.cnonce}",digest-uri="${v.digestUri}",maxbuf=65536,response=${digestResponseHex(v, false)},qop=auth`;
}

/** Runs the two-step exchange on `c`; returns the tokens and reply codes seen. */
function saslLogin(w: ReturnType<typeof world>, c: RawClient, username: string, password: string) {
  const first = c.send(OpCode.sasl, { kind: "GetSASLRequest", token: new Uint8Array(0) });
  w.run();
  const challenge = c.replyTo(first)!;
  const token = challenge.response?.kind === "SetSASLResponse" ? dec(challenge.response.token) : "";
  const second = c.send(OpCode.sasl, { kind: "GetSASLRequest", token: enc(digestResponse(token, username, password)) });
  w.run();
  const done = c.replyTo(second)!;
  return { challenge: token, err: done.header.err, final: done.response?.kind === "SetSASLResponse" ? dec(done.response.token) : null };
}

function whoAmI(w: ReturnType<typeof world>, c: RawClient): string[] {
  const x = c.send(OpCode.whoAmI, { kind: "Empty" });
  w.run();
  const r = c.replyTo(x)!.response;
  return r?.kind === "WhoAmIResponse" ? r.clientInfo.map((i) => `${i.authScheme}:${i.user}`) : [];
}

describe("zk: server: authentication", () => {
  it("digest-md5: the RFC 2831 §4 example's response and rspauth", () => {
    const v = { username: "chris", realm: "elwood.innosoft.com", password: "secret", nonce: "OA6MG9tEQGm2hh", cnonce: "OA6MHXh6VqTrRk", nc: "00000001", qop: "auth", digestUri: "imap/elwood.innosoft.com" };
    expect(digestResponseHex(v, false)).toBe("d388dad90d4bbd760a152321f2143af7");
    expect(digestResponseHex(v, true)).toBe("ea40f60335c427b5527b84dbabcdfffd");
    expect(parseDirectives(`a="x\\"y",b=2`)).toEqual(new Map([["a", 'x"y'], ["b", "2"]]));
    expect(parseDirectives(`a=1,a=2`)).toBeNull();
  });

  it("the sasl scheme (SASLAuthenticationProvider): valid names, matches, auth expansion and whoAmI only when registered", () => {
    expect(["bob", "bob/host@EXAMPLE.COM", "bob@EXAMPLE.COM", "a/b"].map(isValidSaslId)).toEqual([true, true, true, true]);
    expect(["a@b@c", "a/b/c@R", "@"].map(isValidSaslId)).toEqual([false, false, true]);
    const acl = [{ perms: Perms.READ, id: { scheme: "sasl", id: "bob" } }];
    const bob = [{ scheme: "sasl", id: "bob" }];
    expect(checkACL(acl, Perms.READ, bob, { authProviders: SASL_PROVIDERS })).toBe(true);
    expect(checkACL(acl, Perms.READ, [{ scheme: "sasl", id: "super" }], { authProviders: SASL_PROVIDERS })).toBe(true);
    expect(checkACL(acl, Perms.READ, [{ scheme: "sasl", id: "eve" }], { authProviders: SASL_PROVIDERS })).toBe(false);
    expect(checkACL(acl, Perms.READ, bob)).toBe(false);
    expect(fixupACL(bob, Ids.CREATOR_ALL_ACL, SASL_PROVIDERS)).toEqual([{ perms: Perms.ALL, id: { scheme: "sasl", id: "bob" } }]);
    expect(fixupACL(bob, Ids.CREATOR_ALL_ACL)).toEqual({ err: Code.INVALIDACL });
    expect(fixupACL([], acl)).toEqual({ err: Code.INVALIDACL });
    expect(clientInfos(bob, SASL_PROVIDERS)).toEqual([{ authScheme: "sasl", user: "bob" }]);
    expect(clientInfos(bob)).toEqual([{ authScheme: "sasl", user: "" }]);
  });

  it("super digest: a session authenticated as the super user passes every ACL check (client library)", async () => {
    const sim = new Simulator({ seed: 3, retainTrace: true });
    sim.addNode("s1", (ctx) => new ZooKeeperServer(ctx, { tickTimeMs: 2000, superDigest: generateDigest("super:adminsecret") }), { fsyncLatencyUs: 2_000 });
    const clients = new Map<string, ZooKeeper>();
    for (const id of ["c1", "c2", "c3"]) sim.addNode(id, (ctx) => (clients.set(id, createClient(ctx, { connectString: "s1", sessionTimeoutMs: 10_000 })), {}));
    for (const id of sim.nodeIds) sim.start(id);
    const [alice, admin, mallory] = ["c1", "c2", "c3"].map((id) => clients.get(id)!) as [ZooKeeper, ZooKeeper, ZooKeeper];
    const got: Record<string, unknown> = {};
    const script = (async () => {
      alice.addAuthInfo("digest", "alice:secret");
      await alice.create("/locked", "v", Ids.CREATOR_ALL_ACL, 0);
      await alice.create("/locked/child", "c", [{ perms: Perms.READ, id: { scheme: "digest", id: generateDigest("alice:secret") } }], 0);
      mallory.addAuthInfo("digest", "super:wrong");
      got.mallory = await mallory.getData("/locked").then(() => "read", (e: { code: number }) => e.code);
      admin.addAuthInfo("digest", "super:adminsecret");
      got.whoAmI = (await admin.whoAmI()).map((c) => `${c.authScheme}:${c.user}`).sort();
      got.read = dec((await admin.getData("/locked")).data);
      await admin.setData("/locked", "w", -1);
      got.acl = (await admin.getACL("/locked")).acl[0]?.id.id; // ADMIN granted: the digest is not masked
      await admin.delete("/locked/child", -1); // alice's child grants only READ, even to alice
      got.children = await admin.getChildren("/locked");
    })();
    await sim.run({ untilUs: sim.nowUs + 1_000_000 });
    await script;
    expect(got).toEqual({ mallory: Code.NOAUTH, whoAmI: ["digest:super", "ip:10.0.0.3", "super:"], read: "v", acl: generateDigest("alice:secret"), children: [] });
  });

  it("addauth with a scheme no provider handles: AUTHFAILED, the connection closed, the handle dead (client library)", async () => {
    const sim = new Simulator({ seed: 3, retainTrace: true });
    sim.addNode("s1", (ctx) => new ZooKeeperServer(ctx, { tickTimeMs: 2000, authProviders: SASL_PROVIDERS }), { fsyncLatencyUs: 2_000 });
    let zk!: ZooKeeper;
    const events: number[] = [];
    sim.addNode("c1", (ctx) => ((zk = createClient(ctx, { connectString: "s1", sessionTimeoutMs: 10_000, watcher: (e) => events.push(e.state) })), {}));
    for (const id of sim.nodeIds) sim.start(id);
    await sim.run({ untilUs: sim.nowUs + 100_000 });
    // `sasl` is registered, but SASLAuthenticationProvider.handleAuthentication always fails.
    zk.addAuthInfo("sasl", "bob");
    await sim.run({ untilUs: sim.nowUs + 100_000 });
    expect(events).toContain(KeeperState.AuthFailed);
    expect(zk.getState()).toBe("AUTH_FAILED");
    await expect(zk.exists("/")).rejects.toMatchObject({ code: Code.AUTHFAILED });
    const w = world({});
    const c = w.connected("c1");
    c.send(OpCode.auth, { kind: "AuthPacket", type: 0, scheme: "x509", auth: enc("CN=bob") }, -4);
    w.run();
    expect(c.replyTo(-4)!.header.err).toBe(Code.AUTHFAILED);
    expect(c.closedReason).toBe("closed");
  });

  it("sasl DIGEST-MD5: challenge, response, rspauth; the session gets sasl:<user>, which ACLs with scheme sasl match", () => {
    const w = world({ authProviders: SASL_PROVIDERS, saslUsers: USERS });
    const c = w.connected("c1");
    const r = saslLogin(w, c, "bob", "bobsecret");
    expect(r.challenge).toMatch(/^realm="zk-sasl-md5",nonce="[A-Za-z0-9+/]{40}",charset=utf-8,algorithm=md5-sess$/);
    expect(r.err).toBe(Code.OK);
    expect(r.final).toMatch(/^rspauth=[0-9a-f]{32}$/);
    expect(whoAmI(w, c)).toEqual(["sasl:bob", "ip:10.0.0.2"]); // 3.8's ConcurrentHashMap-set order
    const create = c.send(OpCode.create, { kind: "CreateRequest", path: "/bob", data: enc("b"), acl: Ids.CREATOR_ALL_ACL, flags: 0 });
    w.run();
    expect(c.replyTo(create)!.header.err).toBe(Code.OK);
    const other = w.connected("c2");
    const denied = other.send(OpCode.getData, { kind: "GetDataRequest", path: "/bob", watch: false });
    w.run();
    expect(other.replyTo(denied)!.header.err).toBe(Code.NOAUTH);
    const read = c.send(OpCode.getACL, { kind: "GetACLRequest", path: "/bob" });
    w.run();
    expect(c.replyTo(read)!.response).toMatchObject({ acl: [{ perms: Perms.ALL, id: { scheme: "sasl", id: "bob" } }] });
    // The same seed draws the same nonce: the exchange is deterministic.
    const again = world({ authProviders: SASL_PROVIDERS, saslUsers: USERS });
    expect(saslLogin(again, again.connected("c1"), "bob", "bobsecret").challenge).toBe(r.challenge);
  });

  it("sasl DIGEST-MD5: a wrong password or an unknown user gets AUTHFAILED and the connection closed", () => {
    const w = world({ authProviders: SASL_PROVIDERS, saslUsers: USERS });
    const c = w.connected("c1");
    expect(saslLogin(w, c, "bob", "guess")).toMatchObject({ err: Code.AUTHFAILED, final: null });
    expect(c.closedReason).toBe("closed");
    const d = w.connected("c2");
    expect(saslLogin(w, d, "eve", "x").err).toBe(Code.AUTHFAILED);
    expect(d.closedReason).toBe("closed");
    expect(w.sim.trace.events.filter((e) => e.kind === "zk.sasl.failed").map((e) => (e.fields as { reason: string }).reason)).toEqual([
      "DIGEST-MD5: mismatched response",
      "DIGEST-MD5: cannot acquire password for eve",
    ]);
  });

  it("sasl without the provider: the login works but sasl ids match nothing, are INVALIDACL, and whoAmI shows no user; no JAAS: OK with a null token", () => {
    const w = world({ saslUsers: USERS, saslSuperUsers: ["super"] });
    const c = w.connected("c1");
    expect(saslLogin(w, c, "super", "adminsecret").err).toBe(Code.OK);
    expect(whoAmI(w, c)).toEqual(["sasl:", "super:", "ip:10.0.0.2"]);
    const x = c.send(OpCode.create, { kind: "CreateRequest", path: "/s", data: enc(""), acl: [{ perms: Perms.ALL, id: { scheme: "sasl", id: "super" } }], flags: 0 });
    const y = c.send(OpCode.create, { kind: "CreateRequest", path: "/t", data: enc(""), acl: Ids.CREATOR_ALL_ACL, flags: 0 });
    w.run();
    expect(c.replyTo(x)!.header.err).toBe(Code.INVALIDACL);
    expect(c.replyTo(y)!.header.err).toBe(Code.INVALIDACL); // super and unregistered sasl are not "authenticated" ids
    const none = world({});
    const n = none.connected("c1");
    const z = n.send(OpCode.sasl, { kind: "GetSASLRequest", token: new Uint8Array(0) });
    none.run();
    expect(n.replyTo(z)).toMatchObject({ header: { err: Code.OK }, response: { kind: "SetSASLResponse", token: null } });
  });
});
