import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { Perms, type ACL, type Id } from "../../../src/zk/proto/records.js";
import {
  authenticate,
  authenticateDigest,
  checkACL,
  clientInfos,
  fixupACL,
  generateDigest,
  ipMatches,
  maskDigestAcl,
} from "../../../src/zk/server/acl.js";

const ALICE = "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=";
const acl = (perms: number, scheme: string, id: string): ACL => ({ perms, id: { scheme, id } });
const IP: Id = { scheme: "ip", id: "127.0.0.1" };
const DIGEST_ALICE: Id = { scheme: "digest", id: ALICE };

describe("zk: acl: §5.2 digest", () => {
  it("alice:secret → alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E= [probed]", () => {
    expect(generateDigest("alice:secret")).toBe(ALICE);
  });
  it("addauth digest adds the digest id; super too when it equals superDigest", () => {
    expect(authenticateDigest("alice:secret")).toEqual({ kind: "ok", ids: [DIGEST_ALICE] });
    expect(authenticateDigest("alice:secret", ALICE)).toEqual({ kind: "ok", ids: [{ scheme: "super", id: "" }, DIGEST_ALICE] });
    expect(authenticateDigest("bob:pw", ALICE)).toEqual({ kind: "ok", ids: [{ scheme: "digest", id: generateDigest("bob:pw") }] });
  });
  it("unknown auth scheme → AUTHFAILED; ip → the remote address", () => {
    expect(authenticate("kerberos", new Uint8Array(), "10.0.0.1")).toEqual({ kind: "error", err: Code.AUTHFAILED });
    expect(authenticate("ip", new Uint8Array(), "10.0.0.1")).toEqual({ kind: "ok", ids: [{ scheme: "ip", id: "10.0.0.1" }] });
    expect(authenticate("digest", new TextEncoder().encode("alice:secret"), "10.0.0.1")).toEqual({ kind: "ok", ids: [DIGEST_ALICE] });
  });
});

describe("zk: acl: §5.2 fixupACL", () => {
  it("empty list → INVALIDACL [probed]", () => {
    expect(fixupACL([IP], [])).toEqual({ err: Code.INVALIDACL });
  });
  it("world:anyone only; world:other → INVALIDACL [probed]", () => {
    expect(fixupACL([IP], [acl(31, "world", "anyone")])).toEqual([acl(31, "world", "anyone")]);
    expect(fixupACL([IP], [acl(31, "world", "bob")])).toEqual({ err: Code.INVALIDACL });
  });
  it("duplicates removed", () => {
    expect(fixupACL([IP], [acl(31, "world", "anyone"), acl(31, "world", "anyone"), acl(1, "world", "anyone")])).toEqual([
      acl(31, "world", "anyone"),
      acl(1, "world", "anyone"),
    ]);
  });
  it("auth expands to authenticated ids (digest), never ip; none → INVALIDACL [probed]", () => {
    expect(fixupACL([IP], [acl(31, "auth", "")])).toEqual({ err: Code.INVALIDACL });
    expect(fixupACL([IP, DIGEST_ALICE], [acl(31, "auth", "")])).toEqual([acl(31, "digest", ALICE)]);
    expect(fixupACL([IP, { scheme: "super", id: "" }], [acl(31, "auth", "")])).toEqual({ err: Code.INVALIDACL });
  });
  it("null scheme or id (Jute's −1 string) as 3.8's fixupACL meets them [probed: conformance wire-protocol]", () => {
    const nul = (perms: number, scheme: string | null, id: string | null) => ({ perms, id: { scheme, id } });
    // auth ignores its id: CREATOR_ALL_ACL sent with a null id works when authenticated.
    expect(fixupACL([IP], [nul(31, "auth", null)])).toEqual({ err: Code.INVALIDACL });
    expect(fixupACL([IP, DIGEST_ALICE], [nul(31, "auth", null)])).toEqual([acl(31, "digest", ALICE)]);
    // A method called on the null: NullPointerException, MARSHALLINGERROR.
    expect(fixupACL([], [nul(31, "world", null)])).toEqual({ err: Code.MARSHALLINGERROR });
    expect(fixupACL([], [nul(31, "digest", null)])).toEqual({ err: Code.MARSHALLINGERROR });
    expect(fixupACL([], [nul(31, "ip", null)])).toEqual({ err: Code.MARSHALLINGERROR });
    // Checked before any call: a null scheme; no provider for the scheme.
    expect(fixupACL([], [nul(31, null, "anyone")])).toEqual({ err: Code.INVALIDACL });
    expect(fixupACL([], [nul(31, "nosuch", null)])).toEqual({ err: Code.INVALIDACL });
    // removeDuplicates: a later entry's equals() on an earlier one with the same perms.
    expect(fixupACL([], [acl(31, "world", "anyone"), nul(31, null, "x")])).toEqual({ err: Code.MARSHALLINGERROR });
    expect(fixupACL([DIGEST_ALICE], [acl(31, "auth", ""), nul(31, "auth", null)])).toEqual({ err: Code.MARSHALLINGERROR });
    expect(fixupACL([DIGEST_ALICE], [acl(1, "auth", ""), nul(31, "auth", null)])).toEqual([acl(1, "digest", ALICE), acl(31, "digest", ALICE)]);
  });
  it("digest ids need exactly two ':'-separated parts", () => {
    expect(fixupACL([], [acl(1, "digest", ALICE)])).toEqual([acl(1, "digest", ALICE)]);
    expect(fixupACL([], [acl(1, "digest", "alice")])).toEqual({ err: Code.INVALIDACL });
    expect(fixupACL([], [acl(1, "digest", "a:b:c")])).toEqual({ err: Code.INVALIDACL });
  });
  it("ip ids: addr or addr/bits, v4 and v6", () => {
    for (const ok of ["10.0.0.1", "10.0.0.0/8", "0.0.0.0/0", "::1", "fe80::/10", "2001:db8:0:0:0:0:0:1/128"]) {
      expect(Array.isArray(fixupACL([], [acl(1, "ip", ok)]))).toBe(true);
    }
    for (const bad of ["10.0.0", "10.0.0.256", "10.0.0.1/33", "host", "::1/129", "1::2::3"]) {
      expect(fixupACL([], [acl(1, "ip", bad)])).toEqual({ err: Code.INVALIDACL });
    }
  });
  it("unknown scheme and super → INVALIDACL", () => {
    expect(fixupACL([], [acl(1, "sasl2", "x")])).toEqual({ err: Code.INVALIDACL });
    expect(fixupACL([], [acl(1, "super", "")])).toEqual({ err: Code.INVALIDACL });
  });
});

describe("zk: acl: §5.3 checkACL", () => {
  it("empty ACL allows everything; skipACL allows everything", () => {
    expect(checkACL([], Perms.ADMIN, [])).toBe(true);
    expect(checkACL([acl(Perms.READ, "digest", ALICE)], Perms.WRITE, [], { skipACL: true })).toBe(true);
  });
  it("world:anyone needs the perm bit", () => {
    expect(checkACL([acl(Perms.READ, "world", "anyone")], Perms.READ, [])).toBe(true);
    expect(checkACL([acl(Perms.READ, "world", "anyone")], Perms.WRITE, [])).toBe(false);
  });
  it("digest: exact id match", () => {
    expect(checkACL([acl(Perms.ALL, "digest", ALICE)], Perms.WRITE, [IP, DIGEST_ALICE])).toBe(true);
    expect(checkACL([acl(Perms.ALL, "digest", ALICE)], Perms.WRITE, [IP])).toBe(false);
  });
  it("super bypasses", () => {
    expect(checkACL([acl(Perms.READ, "digest", ALICE)], Perms.ADMIN, [{ scheme: "super", id: "" }])).toBe(true);
  });
  it("ip with /bits (v4 and v6)", () => {
    expect(ipMatches("10.1.2.3", "10.0.0.0/8")).toBe(true);
    expect(ipMatches("11.1.2.3", "10.0.0.0/8")).toBe(false);
    expect(ipMatches("10.1.2.3", "10.1.2.3")).toBe(true);
    expect(ipMatches("10.1.2.4", "10.1.2.3")).toBe(false);
    expect(ipMatches("10.1.2.3", "10.1.2.0/23")).toBe(true);
    expect(ipMatches("10.1.4.3", "10.1.2.0/23")).toBe(false);
    expect(ipMatches("anything", "0.0.0.0/0")).toBe(false);
    expect(ipMatches("1.2.3.4", "0.0.0.0/0")).toBe(true);
    expect(ipMatches("fe80::1", "fe80::/10")).toBe(true);
    expect(ipMatches("fec0::1", "fe80::/10")).toBe(false);
    expect(ipMatches("::1", "0:0:0:0:0:0:0:1")).toBe(true);
    expect(ipMatches("::1", "127.0.0.1")).toBe(false);
    expect(checkACL([acl(Perms.READ, "ip", "127.0.0.0/8")], Perms.READ, [IP])).toBe(true);
    expect(checkACL([acl(Perms.READ, "ip", "10.0.0.0/8")], Perms.READ, [IP])).toBe(false);
  });
});

describe("zk: acl: §5.4 getACL masking and whoAmI", () => {
  it("digest ids are masked to user:x", () => {
    expect(maskDigestAcl([acl(31, "digest", ALICE), acl(1, "world", "anyone"), acl(1, "ip", "1.2.3.4")])).toEqual([
      acl(31, "digest", "alice:x"),
      acl(1, "world", "anyone"),
      acl(1, "ip", "1.2.3.4"),
    ]);
  });
  it("whoAmI: digest user name without hash, ip address [probed]", () => {
    expect(clientInfos([DIGEST_ALICE, IP])).toEqual([
      { authScheme: "digest", user: "alice" },
      { authScheme: "ip", user: "127.0.0.1" },
    ]);
    expect(clientInfos([{ scheme: "super", id: "" }])).toEqual([{ authScheme: "super", user: "" }]);
  });
});
