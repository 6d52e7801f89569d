/**
 * Unit tests of the reference model against the [probed] examples of
 * docs/zookeeper.md (§1, §4, §5) and the Java 3.8.0 sources. The model is
 * the oracle of the model-based test, so it gets its own tests first.
 */
import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import type { ACL } from "../../../src/zk/proto/records.js";
import { ReferenceZooKeeper, digestId, isValidPath, sequenceSuffix } from "./reference-tree.js";

const OPEN: ACL[] = [{ perms: 31, id: { scheme: "world", id: "anyone" } }];
const READ_ONLY: ACL[] = [{ perms: 1, id: { scheme: "world", id: "anyone" } }];
const CREATOR_ALL: ACL[] = [{ perms: 31, id: { scheme: "auth", id: "" } }];
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

const S1 = 0x0100000ac3920000n;
const S2 = 0x0100000ac3920001n;

/** A fresh server with two sessions (zxids 1 and 2) and the clock at 1000 ms. */
function fresh(): ReferenceZooKeeper {
  const zk = new ReferenceZooKeeper();
  zk.setTimeMs(1000);
  zk.createSession(S1);
  zk.createSession(S2);
  return zk;
}

describe("model: reference-tree: paths (§1.1)", () => {
  it("model: paths: validation table", () => {
    for (const p of ["/", "/a", "/a/b", "/a.b", "/..x", "/x..", "/...", "/zookeeper/foo", "/a/b-0000000001"]) {
      expect(isValidPath(p), p).toBe(true);
    }
    for (const p of ["", "a", "/a/", "//x", "/a//b", "/a/.", "/a/..", "/.", "/..", "/a/./b", "/a\u0000", "/a\u0001", "/\u007f", "/\ud83d\ude00", "/\ue000", "/\ufff0"]) {
      expect(isValidPath(p), JSON.stringify(p)).toBe(false);
    }
  });

  it("model: paths: create /a//b is NONODE, not BADARGUMENTS (parent lookup first) [probed]", () => {
    const zk = fresh();
    expect(zk.create(S1, "/a", null, OPEN, 0).err).toBe(Code.OK);
    expect(zk.create(S1, "/a//b", null, OPEN, 0).err).toBe(Code.NONODE);
    expect(zk.create(S1, "//x", null, OPEN, 0).err).toBe(Code.BADARGUMENTS);
    expect(zk.create(S1, "/a/", null, OPEN, 0).err).toBe(Code.BADARGUMENTS);
    expect(zk.create(S1, "/a/.", null, OPEN, 0).err).toBe(Code.BADARGUMENTS);
    expect(zk.create(S1, "/b/.", null, OPEN, 0).err).toBe(Code.NONODE);
    expect(zk.create(S1, "a", null, OPEN, 0).err).toBe(Code.BADARGUMENTS);
    expect(zk.create(S1, "", null, OPEN, 0).err).toBe(Code.BADARGUMENTS);
    // "/" has parent "" (the root's alias in Java's DataTree) and exists already.
    expect(zk.create(S1, "/", null, OPEN, 0).err).toBe(Code.NODEEXISTS);
  });

  it("model: paths: reads do not validate, an invalid path is just not found", () => {
    const zk = fresh();
    expect(zk.getData(S1, "/a/").err).toBe(Code.NONODE);
    expect(zk.exists(S1, "//x").err).toBe(Code.NONODE);
    expect(zk.getChildren(S1, "/").children).toEqual(["zookeeper"]);
  });

  it("model: paths: creating /zookeeper/foo is allowed; deleting special paths is BADARGUMENTS [probed]", () => {
    const zk = fresh();
    expect(zk.create(S1, "/zookeeper/foo", null, OPEN, 0).err).toBe(Code.OK);
    for (const p of ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"]) {
      expect(zk.delete(S1, p, -1).err, p).toBe(Code.BADARGUMENTS);
    }
    // delete does not validate the path: /a/ is simply missing (parent /a missing → NONODE).
    expect(zk.delete(S1, "/a/", -1).err).toBe(Code.NONODE);
    expect(zk.delete(S1, "a", -1).err).toBe(Code.BADARGUMENTS);
  });
});

describe("model: reference-tree: sequence suffix (§1.3)", () => {
  it("model: sequence: numbers follow the stored cversion and are never reused [probed]", () => {
    const zk = fresh();
    expect(zk.create(S1, "/p", null, OPEN, 0).err).toBe(Code.OK);
    expect(zk.create(S1, "/p/s-", null, OPEN, 2).path).toBe("/p/s-0000000000");
    expect(zk.create(S1, "/p/x", null, OPEN, 0).path).toBe("/p/x");
    expect(zk.create(S1, "/p/s-", null, OPEN, 2).path).toBe("/p/s-0000000002");
    expect(zk.create(S1, "/p/", null, OPEN, 2).path).toBe("/p/0000000003");
    expect(zk.delete(S1, "/p/x", -1).err).toBe(Code.OK);
    expect(zk.create(S1, "/p/s-", null, OPEN, 3).path).toBe("/p/s-0000000004");
  });

  it("model: sequence: %010d formatting incl. negative wrap", () => {
    expect(sequenceSuffix(0)).toBe("0000000000");
    expect(sequenceSuffix(42)).toBe("0000000042");
    expect(sequenceSuffix(-1)).toBe("-000000001");
    expect(sequenceSuffix(-2147483648)).toBe("-2147483648");
  });
});

describe("model: reference-tree: error precedence (§1.4)", () => {
  it("model: precedence: failed writes consume a zxid; reads do not [probed]", () => {
    const zk = fresh();
    expect(zk.lastProcessedZxid).toBe(2n);
    expect(zk.setData(S1, "/nope", null, -1)).toEqual({ err: Code.NONODE, zxid: 3n });
    expect(zk.create(S1, "/nope/x", null, OPEN, 0)).toEqual({ err: Code.NONODE, zxid: 4n });
    zk.getData(S1, "/");
    const created = zk.create(S1, "/a", bytes("x"), OPEN, 0);
    expect(created.zxid).toBe(5n);
    expect(created.stat?.czxid).toBe(5n);
  });

  it("model: precedence: create — NODEEXISTS before NOCHILDRENFOREPHEMERALS", () => {
    const zk = fresh();
    expect(zk.create(S1, "/e", null, OPEN, 1).err).toBe(Code.OK);
    expect(zk.create(S1, "/e/x", null, OPEN, 0).err).toBe(Code.NOCHILDRENFOREPHEMERALS);
    expect(zk.create(S1, "/e", null, OPEN, 0).err).toBe(Code.NODEEXISTS);
    // Containers may have children.
    expect(zk.create(S1, "/c", null, OPEN, 4).err).toBe(Code.OK);
    expect(zk.create(S1, "/c/x", null, OPEN, 1).err).toBe(Code.OK);
  });

  it("model: precedence: create — INVALIDACL before NONODE, NOAUTH before NODEEXISTS", () => {
    const zk = fresh();
    expect(zk.create(S1, "/missing/x", null, [], 0).err).toBe(Code.INVALIDACL);
    expect(zk.create(S1, "/r", null, READ_ONLY, 0).err).toBe(Code.OK);
    expect(zk.create(S1, "/r/x", null, OPEN, 0).err).toBe(Code.NOAUTH);
    // /zookeeper/config is world:READ: no CREATE for anybody.
    expect(zk.create(S1, "/zookeeper/config/x", null, OPEN, 0).err).toBe(Code.NOAUTH);
  });

  it("model: precedence: TTL and container modes (§1.2) [probed]", () => {
    const zk = fresh();
    expect(zk.create(S1, "/t", null, OPEN, 5, 1000).err).toBe(Code.UNIMPLEMENTED);
    expect(zk.create(S1, "/t", null, OPEN, 0, 1000).err).toBe(Code.BADARGUMENTS);
    expect(zk.create(S1, "/t", null, OPEN, 7).err).toBe(Code.BADARGUMENTS);
    const ttl = new ReferenceZooKeeper({ extendedTypesEnabled: true });
    ttl.createSession(S1);
    expect(ttl.create(S1, "/t", null, OPEN, 5, 0).err).toBe(Code.BADARGUMENTS);
    expect(ttl.create(S1, "/t", null, OPEN, 5, 2 ** 40).err).toBe(Code.BADARGUMENTS);
    expect(ttl.create(S1, "/t", null, OPEN, 5).err).toBe(Code.BADARGUMENTS);
    const made = ttl.create(S1, "/t", null, OPEN, 6, 1000);
    expect(made.path).toBe("/t0000000000");
    expect(made.stat?.ephemeralOwner).toBe(0n);
    expect(zk.create(S1, "/c", null, OPEN, 4).stat?.ephemeralOwner).toBe(0n);
    expect(zk.create(S1, "/e", null, OPEN, 1).stat?.ephemeralOwner).toBe(S1);
  });

  it("model: precedence: delete — NOAUTH on the parent beats NONODE; BADVERSION before NOTEMPTY", () => {
    const zk = fresh();
    expect(zk.create(S1, "/nd", null, [{ perms: 31 - 8, id: { scheme: "world", id: "anyone" } }], 0).err).toBe(Code.OK);
    expect(zk.delete(S1, "/nd/missing", -1).err).toBe(Code.NOAUTH);
    expect(zk.create(S1, "/a", null, OPEN, 0).err).toBe(Code.OK);
    expect(zk.create(S1, "/a/b", null, OPEN, 0).err).toBe(Code.OK);
    expect(zk.delete(S1, "/a", 5).err).toBe(Code.BADVERSION);
    expect(zk.delete(S1, "/a", 0).err).toBe(Code.NOTEMPTY);
    expect(zk.delete(S1, "/a/b", 0).err).toBe(Code.OK);
  });

  it("model: precedence: setACL — INVALIDACL before NONODE, then NOAUTH, then aversion", () => {
    const zk = fresh();
    expect(zk.setACL(S1, "/missing", [], -1).err).toBe(Code.INVALIDACL);
    expect(zk.setACL(S1, "/missing", OPEN, -1).err).toBe(Code.NONODE);
    expect(zk.setACL(S1, "/a/", OPEN, -1).err).toBe(Code.BADARGUMENTS);
    expect(zk.setACL(S1, "/zookeeper/config", OPEN, -1).err).toBe(Code.NOAUTH);
    expect(zk.setACL(S1, "/zookeeper", OPEN, 1).err).toBe(Code.BADVERSION);
  });

  it("model: precedence: unknown sessions — UNKNOWNSESSION, but SESSIONEXPIRED for ephemerals", () => {
    const zk = fresh();
    expect(zk.create(42n, "/a", null, OPEN, 0).err).toBe(Code.UNKNOWNSESSION);
    expect(zk.create(42n, "/a", null, OPEN, 1).err).toBe(Code.SESSIONEXPIRED);
    // TTL checks come before the session.
    expect(zk.create(42n, "/a", null, OPEN, 5, 10).err).toBe(Code.UNIMPLEMENTED);
    expect(zk.getData(42n, "/").err).toBe(Code.UNKNOWNSESSION);
  });
});

describe("model: reference-tree: Stat (§1.6)", () => {
  it("model: stat: initial tree [probed]", () => {
    const zk = fresh();
    expect(zk.getChildren(S1, "/zookeeper").children).toEqual(["config", "quota"]);
    const config = zk.getACL(S1, "/zookeeper/config");
    expect(config.acl).toEqual(READ_ONLY);
    expect(config.stat?.aversion).toBe(-1);
    const root = zk.exists(S1, "/").stat!;
    expect(root).toMatchObject({ czxid: 0n, mzxid: 0n, pzxid: 0n, version: 0, numChildren: 1, cversion: -1 });
    // "" is the root's alias in Java's DataTree.
    expect(zk.exists(S1, "").stat).toEqual(root);
  });

  it("model: stat: visible cversion = 2*creations − numChildren [probed: 4, 5, 6]", () => {
    const zk = fresh();
    zk.create(S1, "/p", null, OPEN, 0);
    for (const c of ["a", "b", "c", "d"]) zk.create(S1, `/p/${c}`, null, OPEN, 0);
    expect(zk.exists(S1, "/p").stat?.cversion).toBe(4);
    zk.delete(S1, "/p/a", -1);
    expect(zk.exists(S1, "/p").stat?.cversion).toBe(5);
    zk.create(S1, "/p/e", null, OPEN, 0);
    expect(zk.exists(S1, "/p").stat?.cversion).toBe(6);
  });

  it("model: stat: create / setData / delete / setACL rules", () => {
    const zk = fresh();
    zk.setTimeMs(5000);
    const p = zk.create(S1, "/p", bytes("abc"), OPEN, 0); // zxid 3
    expect(p.stat).toEqual({
      czxid: 3n, mzxid: 3n, ctime: 5000, mtime: 5000, version: 0, cversion: 0, aversion: 0,
      ephemeralOwner: 0n, dataLength: 3, numChildren: 0, pzxid: 3n,
    });
    zk.setTimeMs(6000);
    zk.create(S1, "/p/c", null, OPEN, 0); // zxid 4: parent pzxid/cversion change, mzxid/mtime/version do not
    expect(zk.exists(S1, "/p").stat).toMatchObject({ mzxid: 3n, mtime: 5000, version: 0, cversion: 1, pzxid: 4n, numChildren: 1 });
    zk.setTimeMs(7000);
    const set = zk.setData(S1, "/p", bytes("hello"), 0); // zxid 5
    expect(set.stat).toMatchObject({ mzxid: 5n, mtime: 7000, version: 1, dataLength: 5, pzxid: 4n, ctime: 5000 });
    const noAdmin: ACL[] = [{ perms: 15, id: { scheme: "world", id: "anyone" } }];
    const acl = zk.setACL(S1, "/p", noAdmin, 0); // zxid 6: aversion only [probed]
    expect(acl.stat).toMatchObject({ mzxid: 5n, mtime: 7000, version: 1, aversion: 1, pzxid: 4n });
    expect(zk.setACL(S1, "/p", OPEN, -1).err).toBe(Code.NOAUTH); // zxid 7: no ADMIN any more
    expect(zk.delete(S1, "/p/c", 0).err).toBe(Code.OK); // zxid 8
    expect(zk.exists(S1, "/p").stat).toMatchObject({ mzxid: 5n, cversion: 2, numChildren: 0, pzxid: 8n, aversion: 1 });
  });

  it("model: stat: closeSession deletes the session's ephemerals", () => {
    const zk = fresh();
    zk.create(S1, "/p", null, OPEN, 0);
    zk.create(S1, "/p/e1", null, OPEN, 1);
    zk.create(S1, "/p/e2", null, OPEN, 3);
    zk.create(S2, "/p/other", null, OPEN, 1);
    const closed = zk.closeSession(S1);
    expect(closed.deleted).toEqual(["/p/e1", "/p/e20000000001"]);
    expect(zk.getChildren(S2, "/p").children).toEqual(["other"]);
    expect(zk.exists(S2, "/p").stat).toMatchObject({ pzxid: closed.zxid, cversion: 5, numChildren: 1 });
    expect(zk.hasSession(S1)).toBe(false);
    expect(zk.checkInvariants()).toEqual([]);
  });
});

describe("model: reference-tree: multi (§4)", () => {
  it("model: multi: failure gives (0, code, −2), applies nothing, consumes a zxid [probed]", () => {
    const zk = fresh();
    const before = zk.dump();
    const r = zk.multi(S1, [
      { kind: "create", path: "/a", data: null, acl: OPEN, mode: 0 },
      { kind: "setData", path: "/nope", data: null, version: -1 },
      { kind: "delete", path: "/a", version: -1 },
    ]);
    expect(r.err).toBe(Code.OK);
    expect(r.zxid).toBe(3n);
    expect(r.results.map((x) => x.err)).toEqual([0, Code.NONODE, Code.RUNTIMEINCONSISTENCY]);
    expect(r.results.every((x) => x.kind === "error")).toBe(true);
    expect(zk.dump()).toEqual(before);
    expect(zk.lastProcessedZxid).toBe(3n);
  });

  it("model: multi: sub-ops compose against earlier ones and share one zxid and time", () => {
    const zk = fresh();
    zk.setTimeMs(9000);
    const r = zk.multi(S1, [
      { kind: "create", path: "/a", data: null, acl: OPEN, mode: 0 },
      { kind: "create", path: "/a/b", data: null, acl: OPEN, mode: 0 },
      { kind: "create", path: "/a/s", data: null, acl: OPEN, mode: 2 },
      { kind: "delete", path: "/a/b", version: 0 },
      { kind: "create", path: "/a/b", data: bytes("x"), acl: OPEN, mode: 0 },
      { kind: "create", path: "/a/s", data: null, acl: OPEN, mode: 2 },
      { kind: "setData", path: "/a", data: bytes("yy"), version: 0 },
      { kind: "check", path: "/a", version: 1 },
    ]);
    expect(r.results.map((x) => x.err)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.results.map((x) => (x.kind === "create" ? x.path : x.kind))).toEqual([
      "/a", "/a/b", "/a/s0000000001", "delete", "/a/b", "/a/s0000000003", "setData", "check",
    ]);
    // Plain creates answer only a path; a CONTAINER create answers a Stat snapshot taken
    // when that sub-op applied (before later sub-ops touched the node).
    expect(r.results[0]).toEqual({ kind: "create", err: 0, path: "/a" });
    const c = zk.multi(S1, [
      { kind: "create", path: "/c", data: null, acl: OPEN, mode: 4 },
      { kind: "create", path: "/c/x", data: null, acl: OPEN, mode: 0 },
    ]);
    const container = c.results[0]!;
    expect(container.kind === "create" && container.stat?.numChildren).toBe(0);
    expect(zk.exists(S1, "/c").stat?.numChildren).toBe(1);
    const a = zk.exists(S1, "/a").stat!;
    expect(a).toMatchObject({ czxid: 3n, mzxid: 3n, pzxid: 3n, ctime: 9000, version: 1, numChildren: 3, cversion: 5 });
  });
});

describe("model: reference-tree: ACLs (§5)", () => {
  it("model: acl: digest id of alice:secret [probed]", () => {
    expect(digestId("alice:secret")).toBe("alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=");
  });

  it("model: acl: fix-up — INVALIDACL cases, dedupe, auth expansion", () => {
    const zk = fresh();
    expect(zk.create(S1, "/x", null, [{ perms: 31, id: { scheme: "world", id: "nobody" } }], 0).err).toBe(Code.INVALIDACL);
    expect(zk.create(S1, "/x", null, CREATOR_ALL, 0).err).toBe(Code.INVALIDACL);
    expect(zk.create(S1, "/x", null, [{ perms: 31, id: { scheme: "digest", id: "alice" } }], 0).err).toBe(Code.INVALIDACL);
    expect(zk.create(S1, "/x", null, [{ perms: 31, id: { scheme: "foo", id: "bar" } }], 0).err).toBe(Code.INVALIDACL);
    expect(zk.create(S1, "/x", null, [...OPEN, ...OPEN], 0).err).toBe(Code.OK);
    expect(zk.getACL(S1, "/x").acl).toEqual(OPEN);
    zk.addAuth(S1, "digest", "alice:secret");
    expect(zk.create(S1, "/y", null, CREATOR_ALL, 0).err).toBe(Code.OK);
    expect(zk.getACL(S1, "/y").acl).toEqual([{ perms: 31, id: { scheme: "digest", id: "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=" } }]);
  });

  it("model: acl: checks and getACL masking without ADMIN [probed]", () => {
    const zk = fresh();
    zk.addAuth(S1, "digest", "alice:secret");
    const alice = { scheme: "digest", id: digestId("alice:secret") };
    const acl: ACL[] = [{ perms: 31, id: alice }, { perms: 1, id: { scheme: "world", id: "anyone" } }];
    expect(zk.create(S1, "/x", bytes("d"), acl, 0).err).toBe(Code.OK);
    expect(zk.getData(S2, "/x").err).toBe(Code.OK);
    expect(zk.setData(S2, "/x", null, -1).err).toBe(Code.NOAUTH);
    expect(zk.create(S2, "/x/c", null, OPEN, 0).err).toBe(Code.NOAUTH);
    expect(zk.getACL(S2, "/x").acl).toEqual([{ perms: 31, id: { scheme: "digest", id: "alice:x" } }, acl[1]]);
    expect(zk.getACL(S1, "/x").acl).toEqual(acl);
    expect(zk.setData(S1, "/x", null, -1).err).toBe(Code.OK);
    // A node only alice can touch: reads check NONODE first, then READ.
    expect(zk.create(S1, "/p", null, [{ perms: 31, id: alice }], 0).err).toBe(Code.OK);
    expect(zk.getData(S2, "/p").err).toBe(Code.NOAUTH);
    expect(zk.getData(S2, "/p/missing").err).toBe(Code.NONODE);
    expect(zk.getACL(S2, "/p").err).toBe(Code.NOAUTH);
    expect(zk.exists(S2, "/p").err).toBe(Code.OK); // 3.8.0: exists checks nothing
  });
});
