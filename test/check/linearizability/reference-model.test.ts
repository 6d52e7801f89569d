import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkLinearizable, zkModel, type LinearizabilityResult } from "../../../src/check/linearizability/index.js";
import type { ServerFacts } from "../../../src/check/linearizability/zk-acl.js";
import { HistoryBuilder } from "./ops.js";

/**
 * The reference model beyond get/set/create/delete (zk-model.ts): ACL decisions and Java's error
 * precedence, every Stat field, node kinds and reaps, multi's per-op results, the reads of the
 * rest of the API. Each case pairs a history the model must accept with one it must refute.
 */

const digest = (userPassword: string) => `${userPassword.split(":")[0]}:${createHash("sha1").update(userPassword).digest("base64")}`;
const ALICE = digest("alice:secret");
const SUPER = digest("super:admin");
const FACTS: ServerFacts = { known: true, superDigest: SUPER, extendedTypes: true, addresses: new Map([["c1", "10.0.0.5"], ["c2", "10.0.0.6"]]) };
const model = zkModel({ facts: FACTS });
const alice = [{ scheme: "digest", auth: "alice:secret" }];

function ok(h: HistoryBuilder, m = model): void {
  const r = checkLinearizable(h.ops, m);
  expect(r.ok, r.ok ? "" : r.explanation).toBe(true);
}

function refuted(h: HistoryBuilder, why: RegExp, m = model): LinearizabilityResult {
  const r = checkLinearizable(h.ops, m);
  if (r.ok) throw new Error("expected a violation");
  expect(r.inconclusive).toBe(false);
  expect(r.explanation).toMatch(why);
  return r;
}

/** /p created by alice with `acl`, then `then` on it. */
function withNode(acl: string[], then: (h: HistoryBuilder) => void): HistoryBuilder {
  const h = new HistoryBuilder();
  h.op("c1", "create", "/p", [0, 10], { args: { data: "", mode: "PERSISTENT", acl }, credentials: alice, result: { path: "/p" }, zxid: 2n });
  then(h);
  return h;
}

describe("check: reference model: ACLs", () => {
  it("a digest ACL lets its user write and refuses others NOAUTH (WRITE on the node)", () => {
    ok(withNode([`digest:${ALICE}:31`], (h) => h.op("c1", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, credentials: alice, zxid: 3n })));
    ok(withNode([`digest:${ALICE}:31`], (h) => h.op("c2", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, err: "NOAUTH" })));
    refuted(withNode([`digest:${ALICE}:31`], (h) => h.op("c2", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, zxid: 3n })), /NOAUTH/);
  });

  it("create checks CREATE on the parent, delete DELETE on the parent, not the node", () => {
    ok(withNode([`world:anyone:1`], (h) => h.op("c2", "create", "/p/c", [20, 30], { args: { data: "", mode: "PERSISTENT" }, err: "NOAUTH" })));
    refuted(withNode([`world:anyone:1`], (h) => h.op("c2", "create", "/p/c", [20, 30], { args: { data: "", mode: "PERSISTENT" }, result: { path: "/p/c" }, zxid: 3n })), /NOAUTH/);
    // /p's own ACL forbids everything to c2, yet c2 deletes it: the root's ACL decides.
    ok(withNode([`digest:${ALICE}:31`], (h) => h.op("c2", "delete", "/p", [20, 30], { args: { version: -1 }, zxid: 3n })));
    // A missing child under a parent that forbids DELETE: NOAUTH comes before NONODE.
    ok(withNode([`world:anyone:1`], (h) => h.op("c2", "delete", "/p/missing", [20, 30], { args: { version: -1 }, err: "NOAUTH" })));
    refuted(withNode([`world:anyone:1`], (h) => h.op("c2", "delete", "/p/missing", [20, 30], { args: { version: -1 }, err: "NONODE" })), /would fail with NOAUTH/);
  });

  it("ip ids match the connection's address by prefix; super bypasses every check", () => {
    ok(withNode(["ip:10.0.0.0/24:31"], (h) => h.op("c2", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, zxid: 3n })));
    ok(withNode(["ip:10.0.0.5:31"], (h) => h.op("c2", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, err: "NOAUTH" })));
    ok(withNode(["ip:10.0.0.5:31"], (h) => h.op("c2", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, credentials: [{ scheme: "digest", auth: "super:admin" }], zxid: 3n })));
    refuted(withNode(["ip:10.0.0.5:31"], (h) => h.op("c2", "setData", "/p", [20, 30], { args: { data: "x", version: -1 }, credentials: [{ scheme: "digest", auth: "super:wrong" }], zxid: 3n })), /NOAUTH/);
  });

  it("the auth scheme expands to the caller's digests (INVALIDACL without one); fix-up refuses bad ids", () => {
    const h = new HistoryBuilder();
    h.op("c2", "create", "/q", [0, 10], { args: { data: "", mode: "PERSISTENT", acl: ["auth::31"] }, err: "INVALIDACL" });
    h.op("c1", "create", "/p", [20, 30], { args: { data: "", mode: "PERSISTENT", acl: ["auth::31", `digest:${ALICE}:31`] }, credentials: alice, result: { path: "/p" }, zxid: 2n });
    // The expansion repeats the explicit entry: Java keeps both.
    h.op("c1", "getACL", "/p", [40, 50], { credentials: alice, result: { acl: [`digest:${ALICE}:31`, `digest:${ALICE}:31`] } });
    ok(h);
    const bad = new HistoryBuilder();
    bad.op("c1", "create", "/p", [0, 10], { args: { data: "", mode: "PERSISTENT", acl: ["world:someone:31"] }, result: { path: "/p" }, zxid: 2n });
    refuted(bad, /INVALIDACL/);
  });

  it("getACL needs READ or ADMIN, and without ADMIN shows digests as user:x", () => {
    ok(withNode([`digest:${ALICE}:31`, "world:anyone:1"], (h) => h.op("c2", "getACL", "/p", [20, 30], { result: { acl: ["digest:alice:x:31", "world:anyone:1"] } })));
    refuted(withNode([`digest:${ALICE}:31`, "world:anyone:1"], (h) => h.op("c2", "getACL", "/p", [20, 30], { result: { acl: [`digest:${ALICE}:31`, "world:anyone:1"] } })), /digests masked/);
  });

  it("an op the leader prepared while a setACL was in flight may be judged by the ACL it replaced", () => {
    // Java's pending change record of a setACL keeps the old ACL: a create pipelined behind it passes.
    const pending = withNode(["world:anyone:31"], (h) => {
      h.op("c1", "setACL", "/p", [20, 40], { args: { acl: [`digest:${ALICE}:31`], version: -1 }, credentials: alice, zxid: 3n });
      h.op("c2", "create", "/p/c", [25, 45], { args: { data: "", mode: "PERSISTENT" }, result: { path: "/p/c" }, zxid: 4n });
    });
    ok(pending);
    const after = withNode(["world:anyone:31"], (h) => {
      h.op("c1", "setACL", "/p", [20, 30], { args: { acl: [`digest:${ALICE}:31`], version: -1 }, credentials: alice, zxid: 3n });
      h.op("c2", "create", "/p/c", [40, 50], { args: { data: "", mode: "PERSISTENT" }, result: { path: "/p/c" }, zxid: 4n });
    });
    refuted(after, /NOAUTH/);
  });

  it("whoAmI: the address, the digest users, super", () => {
    const h = new HistoryBuilder();
    h.op("c1", "whoAmI", "", [0, 10], { credentials: [{ scheme: "digest", auth: "super:admin" }], result: { ids: ["ip:10.0.0.5", "digest:super", "super:"] } });
    ok(h);
    const wrong = new HistoryBuilder();
    wrong.op("c1", "whoAmI", "", [0, 10], { credentials: alice, result: { ids: ["ip:10.0.0.5"] } });
    refuted(wrong, /whoAmI returned/);
  });
});

describe("check: reference model: Stat, kinds, special paths", () => {
  it("learns an unknown zxid from the first Stat, then holds later ones to it", () => {
    const h = new HistoryBuilder();
    h.op("c1", "create", "/a", [0], { args: { data: "", mode: "PERSISTENT" } });
    h.op("c2", "exists", "/a", [20, 30], { result: { stat: { czxid: "0x7", mzxid: "0x7", ctime: 5, mtime: 5 } } });
    h.op("c2", "exists", "/a", [40, 50], { result: { stat: { czxid: "0x7", mzxid: "0x7", ctime: 5, mtime: 5 } } });
    ok(h);
    const moved = new HistoryBuilder();
    moved.op("c1", "create", "/a", [0], { args: { data: "", mode: "PERSISTENT" } });
    moved.op("c2", "exists", "/a", [20, 30], { result: { stat: { czxid: "0x7", ctime: 5 } } });
    moved.op("c2", "exists", "/a", [40, 50], { result: { stat: { czxid: "0x8", ctime: 5 } } });
    refuted(moved, /Stat.czxid was 0x8/);
    const fresh = new HistoryBuilder();
    fresh.op("c1", "create", "/a", [0, 10], { args: { data: "", mode: "PERSISTENT" }, result: { path: "/a" }, zxid: 2n });
    fresh.op("c2", "exists", "/a", [20, 30], { result: { stat: { czxid: "0x2", mzxid: "0x2", ctime: 5, mtime: 6 } } });
    refuted(fresh, /mtime 6 differs from ctime 5/);
  });

  it("setACL moves only aversion; the parent's cversion counts deletes too; ephemeralOwner is 0 for containers", () => {
    const h = new HistoryBuilder();
    h.op("c1", "create", "/c", [0, 10], { args: { data: "", mode: "CONTAINER" }, result: { path: "/c" }, zxid: 2n });
    h.op("c1", "create", "/c/x", [20, 30], { args: { data: "", mode: "EPHEMERAL" }, result: { path: "/c/x" }, zxid: 3n, session: "0x10" });
    h.op("c1", "delete", "/c/x", [40, 50], { args: { version: -1 }, zxid: 4n, session: "0x10" });
    h.op("c1", "setACL", "/c", [60, 70], { args: { version: 0 }, zxid: 5n, session: "0x10", result: { stat: { version: 0, aversion: 1, cversion: 2, mzxid: "0x2", pzxid: "0x4", ephemeralOwner: "0x0" } } });
    ok(h);
  });

  it("delete of a special path is BADARGUMENTS; a TTL create on a server without extended types UNIMPLEMENTED", () => {
    const h = new HistoryBuilder();
    h.op("c1", "delete", "/zookeeper", [0, 10], { args: { version: -1 }, err: "BADARGUMENTS" });
    ok(h);
    const ttl = new HistoryBuilder();
    ttl.op("c1", "create", "/t", [0, 10], { args: { data: "", mode: "PERSISTENT_WITH_TTL", ttl: 100 }, err: "UNIMPLEMENTED" });
    ok(ttl, zkModel({ facts: { ...FACTS, extendedTypes: false } }));
    refuted(ttl, /would succeed/);
  });

  it("a reap deletes a container that has had a child; one that never had, it may not", () => {
    const h = new HistoryBuilder();
    h.op("c1", "create", "/c", [0, 10], { args: { data: "", mode: "CONTAINER" }, result: { path: "/c" }, zxid: 2n });
    h.op("c1", "create", "/c/x", [20, 30], { args: { data: "", mode: "PERSISTENT" }, result: { path: "/c/x" }, zxid: 3n });
    h.op("c1", "delete", "/c/x", [40, 50], { args: { version: -1 }, zxid: 4n });
    h.op("reap@s1", "reap", "/c", [60], { args: { czxid: 2n, nowMs: 0 }, session: "0x0" });
    h.op("c2", "exists", "/c", [80, 90], { result: { stat: null } });
    ok(h);
    const early = new HistoryBuilder();
    early.op("c1", "create", "/c", [0, 10], { args: { data: "", mode: "CONTAINER" }, result: { path: "/c" }, zxid: 2n });
    early.op("reap@s1", "reap", "/c", [20], { args: { czxid: 2n, nowMs: 0 }, session: "0x0" });
    early.op("c2", "exists", "/c", [40, 50], { result: { stat: null } });
    refuted(early, /exists \/c/);
  });

  // api-swarm-standalone seed 11488: the ContainerManager chose a TTL node from the tree its server
  // had applied; a setData applied after the choice, before the deleteContainer, did not save it
  // (PrepRequestProcessor's deleteContainer checks children and type only).
  it("a reap of a TTL node judges the mtime its server had applied when it chose", () => {
    const history = (seenZxid: bigint | undefined) => {
      const h = new HistoryBuilder();
      h.op("c1", "create", "/t", [0, 10], { args: { data: "", mode: "PERSISTENT_WITH_TTL", ttl: 1000 }, result: { path: "/t" }, zxid: 2n });
      h.op("c1", "setData", "/t", [100, 200], { args: { data: "x", version: -1 }, zxid: 5n, result: { stat: { version: 1, mzxid: "0x5", mtime: 5000, ephemeralOwner: "0x0" } } });
      h.op("reap@s1", "reap", "/t", [150, 300], { args: { czxid: 2n, nowMs: 5100, ...(seenZxid === undefined ? {} : { seenZxid }) }, session: "0x0", zxid: 6n });
      return h;
    };
    ok(history(4n));
    refuted(history(5n), /SYSTEMERROR/);
  });
});

describe("check: reference model: multi and the other reads", () => {
  it("a failed multi answers OK before the failure, its code at it, RUNTIMEINCONSISTENCY after", () => {
    const ops = [
      { op: "create" as const, path: "/a", args: { data: "", mode: "PERSISTENT" as const } },
      { op: "setData" as const, path: "/b", args: { data: "", version: -1 } },
      { op: "create" as const, path: "/c", args: { data: "", mode: "PERSISTENT" as const } },
    ];
    const good = new HistoryBuilder();
    good.op("c1", "multi", "/a", [0, 10], { args: { ops }, err: "NONODE", result: { results: [{ err: "OK" }, { err: "NONODE" }, { err: "RUNTIMEINCONSISTENCY" }] } });
    ok(good);
    const bad = new HistoryBuilder();
    bad.op("c1", "multi", "/a", [0, 10], { args: { ops }, err: "NONODE", result: { results: [{ err: "OK" }, { err: "NONODE" }, { err: "OK" }] } });
    refuted(bad, /sub-op 2 reported OK, expected RUNTIMEINCONSISTENCY/);
  });

  it("each part's Stat is the node as that part left it", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/a", "", [0, 10], { result: { path: "/a" }, zxid: 2n });
    const twice = [
      { op: "setData" as const, path: "/a", args: { data: "x", version: -1 } },
      { op: "setData" as const, path: "/a", args: { data: "y", version: -1 } },
    ];
    h.op("c1", "multi", "/a", [20, 30], { args: { ops: twice }, zxid: 3n, result: { results: [{ err: "OK", stat: { version: 1 } }, { err: "OK", stat: { version: 2 } }] } });
    ok(h);
  });

  it("getEphemerals lists the session's own, by raw prefix; getAllChildrenNumber counts every descendant", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/a", "", [0, 10], { result: { path: "/a" }, zxid: 2n });
    h.op("c1", "create", "/a/e", [20, 30], { args: { data: "", mode: "EPHEMERAL" }, result: { path: "/a/e" }, zxid: 3n, session: "0x1" });
    h.op("c2", "create", "/a/f", [20, 30], { args: { data: "", mode: "EPHEMERAL" }, result: { path: "/a/f" }, zxid: 4n, session: "0x2" });
    h.op("c1", "getEphemerals", "/a", [40, 50], { session: "0x1", result: { children: ["/a/e"] } });
    h.op("c1", "getAllChildrenNumber", "/a", [40, 50], { result: { total: 2 } });
    h.op("c1", "getAllChildrenNumber", "/", [40, 50], { result: { total: 6 } });
    ok(h);
    const other = new HistoryBuilder();
    other.op("c1", "create", "/e", [0, 10], { args: { data: "", mode: "EPHEMERAL" }, result: { path: "/e" }, zxid: 2n, session: "0x1" });
    other.op("c2", "getEphemerals", "/", [20, 30], { session: "0x2", result: { children: ["/e"] } });
    refuted(other, /getEphemerals/);
  });

  it("multiRead answers each read on its own", () => {
    const h = new HistoryBuilder();
    h.create("c1", "/a", "v", [0, 10], { result: { path: "/a" }, zxid: 2n });
    const reads = [
      { op: "getData" as const, path: "/a", args: {} },
      { op: "getChildren" as const, path: "/missing", args: {} },
    ];
    h.op("c2", "multiRead", "", [20, 30], { args: { ops: reads }, result: { results: [{ err: "OK", data: "v" }, { err: "NONODE" }] } });
    ok(h);
    const stale = new HistoryBuilder();
    stale.create("c1", "/a", "v", [0, 10], { result: { path: "/a" }, zxid: 2n });
    stale.op("c2", "multiRead", "", [20, 30], { args: { ops: reads }, result: { results: [{ err: "OK", data: "w" }, { err: "NONODE" }] } });
    refuted(stale, /multiRead read 0/);
  });
});
