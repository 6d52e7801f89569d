import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import type { MultiOp, MultiResponse } from "../../../src/zk/proto/packets.js";
import { CreateMode, Ids, Perms, type ACL, type Id } from "../../../src/zk/proto/records.js";
import { generateDigest } from "../../../src/zk/server/acl.js";
import { Harness, IP, S1, S2, enc } from "./harness.js";

const ALICE: Id = { scheme: "digest", id: generateDigest("alice:secret") };
const aliceOnly = (perms = Perms.ALL): ACL[] => [{ perms, id: ALICE }];
const createReq = (path: string, flags = 0, acl: ACL[] = Ids.OPEN_ACL_UNSAFE, data = "") => ({
  kind: "CreateRequest" as const,
  path,
  data: enc(data),
  acl,
  flags,
});
const ttlReq = (path: string, flags: number, ttl: number) => ({
  kind: "CreateTTLRequest" as const,
  path,
  data: enc(""),
  acl: Ids.OPEN_ACL_UNSAFE,
  flags,
  ttl,
});

describe("zk: prep: §1.3 sequence suffix", () => {
  it("probed example: s-0, x, s-2, /p/3, delete x, s-4 (never reused)", () => {
    const h = new Harness();
    h.createdPath("/p");
    expect(h.createdPath("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL)).toBe("/p/s-0000000000");
    expect(h.createdPath("/p/x")).toBe("/p/x");
    expect(h.createdPath("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL)).toBe("/p/s-0000000002");
    expect(h.createdPath("/p/", CreateMode.PERSISTENT_SEQUENTIAL)).toBe("/p/0000000003");
    expect(h.delete("/p/x").err).toBe(Code.OK);
    expect(h.createdPath("/p/s-", CreateMode.EPHEMERAL_SEQUENTIAL)).toBe("/p/s-0000000004");
  });
  it("pipelined creates (not yet applied) get distinct numbers from the pending parent record", () => {
    const h = new Harness();
    h.createdPath("/q");
    const a = h.prepare(OpCode.create, createReq("/q/n-", CreateMode.PERSISTENT_SEQUENTIAL));
    const b = h.prepare(OpCode.create, createReq("/q/n-", CreateMode.PERSISTENT_SEQUENTIAL));
    expect(a.kind === "txn" && a.entry.txn.kind === "CreateTxn" && a.entry.txn.path).toBe("/q/n-0000000000");
    expect(b.kind === "txn" && b.entry.txn.kind === "CreateTxn" && b.entry.txn.path).toBe("/q/n-0000000001");
    expect(h.prep.outstandingChanges.length).toBe(4);
    if (a.kind === "txn") h.apply(a.entry, OpCode.create);
    if (b.kind === "txn") h.apply(b.entry, OpCode.create);
    expect(h.prep.outstandingChanges.length).toBe(0);
    expect(h.children("/q")!.sort()).toEqual(["n-0000000000", "n-0000000001"]);
  });
  it("sequential under the root uses the root's stored cversion", () => {
    const h = new Harness();
    // The root already has one child creation? No: /zookeeper is built in, stored cversion 0.
    expect(h.createdPath("/r-", CreateMode.PERSISTENT_SEQUENTIAL)).toBe("/r-0000000000");
    expect(h.createdPath("/r-", CreateMode.PERSISTENT_SEQUENTIAL)).toBe("/r-0000000001");
  });
});

describe("zk: prep: §1.4 create error precedence", () => {
  it("create /a//b → NONODE (parent lookup before full validation) [probed]", () => {
    expect(new Harness().create("/a//b").err).toBe(Code.NONODE);
  });
  it("create with no '/' or a NUL → BADARGUMENTS", () => {
    const h = new Harness();
    expect(h.create("abc").err).toBe(Code.BADARGUMENTS);
    expect(h.create("/a\u0000").err).toBe(Code.BADARGUMENTS);
  });
  it("create /a/ (non-sequential) → BADARGUMENTS after the parent checks; /a/. too", () => {
    const h = new Harness();
    h.createdPath("/a");
    expect(h.create("/a/").err).toBe(Code.BADARGUMENTS);
    expect(h.create("/a/.").err).toBe(Code.BADARGUMENTS);
    expect(h.create("/missing/").err).toBe(Code.NONODE);
  });
  it("INVALIDACL before NONODE", () => {
    expect(new Harness().create("/missing/x", "", 0, []).err).toBe(Code.INVALIDACL);
  });
  it("NONODE before NOAUTH; NOAUTH (CREATE on parent) before NODEEXISTS", () => {
    const h = new Harness();
    h.create("/locked", "", 0, aliceOnly(Perms.ALL), S1, [IP, ALICE]);
    h.create("/locked/child", "", 0, Ids.OPEN_ACL_UNSAFE, S1, [IP, ALICE]);
    expect(h.create("/locked/nope/x").err).toBe(Code.NONODE);
    expect(h.create("/locked/child").err).toBe(Code.NOAUTH);
    expect(h.create("/locked/child", "", 0, Ids.OPEN_ACL_UNSAFE, S1, [IP, ALICE]).err).toBe(Code.NODEEXISTS);
  });
  it("BADARGUMENTS (invalid full path) before NODEEXISTS", () => {
    const h = new Harness();
    expect(h.create("/zookeeper/\u0001").err).toBe(Code.BADARGUMENTS);
  });
  it("NODEEXISTS before NOCHILDRENFOREPHEMERALS", () => {
    const h = new Harness();
    h.createdPath("/e", CreateMode.EPHEMERAL);
    expect(h.create("/e").err).toBe(Code.NODEEXISTS);
    expect(h.create("/e/c").err).toBe(Code.NOCHILDRENFOREPHEMERALS);
  });
  it("children of containers and TTL nodes are allowed", () => {
    const h = new Harness({ extendedTypesEnabled: true });
    expect(h.write(OpCode.createContainer, createReq("/c", CreateMode.CONTAINER)).reply?.err).toBe(Code.OK);
    expect(h.create("/c/x").err).toBe(Code.OK);
    expect(h.write(OpCode.createTTL, ttlReq("/t", CreateMode.PERSISTENT_WITH_TTL, 1000)).reply?.err).toBe(Code.OK);
    expect(h.create("/t/x").err).toBe(Code.OK);
  });
  it("session: ephemeral uses the global check; others UNKNOWNSESSION (standalone) / SESSIONEXPIRED (leader)", () => {
    const h = new Harness();
    const ghost = 0x77n;
    expect(h.create("/x", "", 0, Ids.OPEN_ACL_UNSAFE, ghost).err).toBe(Code.UNKNOWNSESSION);
    expect(h.create("/x", "", CreateMode.EPHEMERAL, Ids.OPEN_ACL_UNSAFE, ghost).err).toBe(Code.SESSIONEXPIRED);
    h.sessions.unknownCode = Code.SESSIONEXPIRED;
    expect(h.create("/x", "", 0, Ids.OPEN_ACL_UNSAFE, ghost).err).toBe(Code.SESSIONEXPIRED);
  });
  it("session check comes before path checks; SESSIONMOVED for a different owner", () => {
    const h = new Harness();
    h.sessions.owners.set(S2, { other: true });
    expect(h.create("bad", "", 0, Ids.OPEN_ACL_UNSAFE, S2).err).toBe(Code.SESSIONMOVED);
  });
  it("invalid flags → BADARGUMENTS", () => {
    expect(new Harness().create("/x", "", 9).err).toBe(Code.BADARGUMENTS);
  });
  it("every failed write consumes a zxid as an error txn [probed]", () => {
    const h = new Harness();
    const before = h.lastZxid;
    const r = h.write(OpCode.create, createReq("/a//b"));
    expect(r.prep.kind).toBe("txn");
    if (r.prep.kind === "txn") {
      expect(r.prep.entry.header.type).toBe(OpCode.error);
      expect(r.prep.entry.txn).toEqual({ kind: "ErrorTxn", err: Code.NONODE });
    }
    expect(h.lastZxid).toBe(before + 1n);
    expect(h.tree.lastProcessedZxid).toBe(h.lastZxid);
  });
});

describe("zk: prep: §1.2 TTL and container rules", () => {
  it("createTTL with extended types disabled → UNIMPLEMENTED", () => {
    const h = new Harness();
    expect(h.write(OpCode.createTTL, ttlReq("/t", CreateMode.PERSISTENT_WITH_TTL, 100)).reply?.err).toBe(Code.UNIMPLEMENTED);
  });
  it("TTL out of (0, 2^40-1] → BADARGUMENTS; opcode 21 with flags 0 and ttl ≥ 0 → BADARGUMENTS [probed]", () => {
    const h = new Harness({ extendedTypesEnabled: true });
    expect(h.write(OpCode.createTTL, ttlReq("/t", CreateMode.PERSISTENT_WITH_TTL, 0)).reply?.err).toBe(Code.BADARGUMENTS);
    expect(h.write(OpCode.createTTL, ttlReq("/t", CreateMode.PERSISTENT_WITH_TTL, 2 ** 40)).reply?.err).toBe(Code.BADARGUMENTS);
    expect(h.write(OpCode.createTTL, ttlReq("/t", 0, 100)).reply?.err).toBe(Code.BADARGUMENTS);
    expect(h.write(OpCode.createTTL, ttlReq("/t", CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, 2 ** 40 - 1)).reply?.err).toBe(Code.OK);
    // Java would accept ttl −1 here and then fail applying it; we refuse it at prep.
    expect(h.write(OpCode.createTTL, ttlReq("/t", 0, -1)).reply?.err).toBe(Code.BADARGUMENTS);
    // opcode create with TTL flags: no ttl (−1) → BADARGUMENTS.
    expect(h.write(OpCode.create, createReq("/t2", CreateMode.PERSISTENT_WITH_TTL)).reply?.err).toBe(Code.BADARGUMENTS);
  });
  it("TTL nodes and containers are tracked, and report ephemeralOwner 0 [probed]", () => {
    const h = new Harness({ extendedTypesEnabled: true });
    h.write(OpCode.createTTL, ttlReq("/t", CreateMode.PERSISTENT_WITH_TTL, 5000));
    h.write(OpCode.createContainer, createReq("/c", CreateMode.CONTAINER));
    expect(h.tree.getTtls()).toEqual(["/t"]);
    expect(h.tree.getContainers()).toEqual(["/c"]);
    expect(h.stat("/t").ephemeralOwner).toBe(0n);
    expect(h.stat("/c").ephemeralOwner).toBe(0n);
    expect(h.tree.getNode("/c")?.stat.ephemeralOwner).toBe(-(1n << 63n));
    h.createdPath("/e", CreateMode.EPHEMERAL);
    expect(h.stat("/e").ephemeralOwner).toBe(S1);
  });
  it("deleteContainer: NOTEMPTY with children, BADVERSION for a NORMAL ephemeral, no ACL check", () => {
    const h = new Harness();
    h.create("/locked", "", 0, [{ perms: Perms.ALL & ~Perms.DELETE, id: Ids.ANYONE_ID_UNSAFE }]);
    h.write(OpCode.createContainer, createReq("/locked/c", CreateMode.CONTAINER));
    h.create("/locked/c/x");
    const del = (path: string) => h.write(OpCode.deleteContainer, { kind: "DeleteContainerRequest", path }, 0n).reply?.err;
    expect(del("/locked/c")).toBe(Code.NOTEMPTY);
    h.delete("/locked/c/x");
    h.createdPath("/e", CreateMode.EPHEMERAL);
    expect(del("/e")).toBe(Code.BADVERSION);
    expect(del("/zookeeper")).toBe(Code.BADARGUMENTS);
    expect(del("/nope")).toBe(Code.NONODE);
    expect(h.delete("/locked/c").err).toBe(Code.NOAUTH);
    expect(del("/locked/c")).toBe(Code.OK);
    expect(h.tree.getContainers()).toEqual([]);
  });
});

describe("zk: prep: §1.4 delete error precedence", () => {
  it("special paths → BADARGUMENTS [probed]", () => {
    const h = new Harness();
    for (const p of ["/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"]) expect(h.delete(p).err).toBe(Code.BADARGUMENTS);
    expect(h.delete("nope").err).toBe(Code.BADARGUMENTS);
  });
  it("missing parent → NONODE", () => {
    expect(new Harness().delete("/a/b").err).toBe(Code.NONODE);
  });
  it("missing node under a parent you cannot delete from → NOAUTH, not NONODE", () => {
    const h = new Harness();
    h.create("/p", "", 0, [{ perms: Perms.ALL & ~Perms.DELETE, id: Ids.ANYONE_ID_UNSAFE }]);
    expect(h.delete("/p/missing").err).toBe(Code.NOAUTH);
  });
  it("node missing → NONODE; version → BADVERSION; before NOTEMPTY", () => {
    const h = new Harness();
    h.createdPath("/a");
    h.createdPath("/a/b");
    expect(h.delete("/a/zz").err).toBe(Code.NONODE);
    expect(h.delete("/a", 5).err).toBe(Code.BADVERSION);
    expect(h.delete("/a", 0).err).toBe(Code.NOTEMPTY);
    expect(h.delete("/a/b", 0).err).toBe(Code.OK);
    expect(h.delete("/a", -1).err).toBe(Code.OK);
  });
  it("a pending delete makes the node missing for later requests", () => {
    const h = new Harness();
    h.createdPath("/a");
    const p = h.prepare(OpCode.delete, { kind: "DeleteRequest", path: "/a", version: -1 });
    expect(p.kind === "txn" && p.err).toBe(Code.OK);
    const q = h.prepare(OpCode.setData, { kind: "SetDataRequest", path: "/a", data: enc("x"), version: -1 });
    expect(q.kind === "txn" && q.err).toBe(Code.NONODE);
  });
});

describe("zk: prep: §1.4 setData / setACL / check", () => {
  it("setData: BADARGUMENTS, NONODE, NOAUTH, BADVERSION in that order", () => {
    const h = new Harness();
    h.create("/w", "", 0, [{ perms: Perms.READ, id: Ids.ANYONE_ID_UNSAFE }]);
    expect(h.setData("bad/", "x", 7).err).toBe(Code.BADARGUMENTS);
    expect(h.setData("/nope", "x", 7).err).toBe(Code.NONODE);
    expect(h.setData("/w", "x", 7).err).toBe(Code.NOAUTH);
    h.createdPath("/v");
    expect(h.setData("/v", "x", 7).err).toBe(Code.BADVERSION);
    expect(h.setData("/v", "x", 0).err).toBe(Code.OK);
  });
  it("setACL: INVALIDACL before NONODE; NOAUTH (ADMIN); BADVERSION on aversion", () => {
    const h = new Harness();
    expect(h.setACL("/nope", []).err).toBe(Code.INVALIDACL);
    expect(h.setACL("/nope", Ids.OPEN_ACL_UNSAFE).err).toBe(Code.NONODE);
    h.create("/n", "", 0, [{ perms: Perms.ALL & ~Perms.ADMIN, id: Ids.ANYONE_ID_UNSAFE }]);
    expect(h.setACL("/n", Ids.OPEN_ACL_UNSAFE).err).toBe(Code.NOAUTH);
    h.createdPath("/m");
    expect(h.setACL("/m", Ids.READ_ACL_UNSAFE, 3).err).toBe(Code.BADVERSION);
    expect(h.setACL("/m", Ids.READ_ACL_UNSAFE, 0).err).toBe(Code.OK);
    expect(h.stat("/m").aversion).toBe(1);
  });
  it("setACL auth:'' expands to the caller's digest id", () => {
    const h = new Harness();
    h.createdPath("/m");
    expect(h.setACL("/m", Ids.CREATOR_ALL_ACL, -1, [IP, ALICE]).err).toBe(Code.OK);
    expect(h.tree.getACL("/m")?.acl).toEqual([{ perms: Perms.ALL, id: ALICE }]);
    expect(h.setACL("/m", Ids.CREATOR_ALL_ACL, -1, [IP, ALICE]).err).toBe(Code.OK);
    expect(h.setACL("/m", Ids.CREATOR_ALL_ACL, -1, [IP]).err).toBe(Code.INVALIDACL);
  });
  it("standalone check: failure is an error reply; success drops the connection (3.8) [probed]", () => {
    const h = new Harness();
    h.createdPath("/c");
    const bad = h.write(OpCode.check, { kind: "CheckVersionRequest", path: "/c", version: 4 });
    expect(bad.reply).toEqual({ err: Code.BADVERSION, response: null, disposition: "reply" });
    const good = h.write(OpCode.check, { kind: "CheckVersionRequest", path: "/c", version: 0 });
    expect(good.reply?.disposition).toBe("closeWithoutReply");
  });
  it("version wraps like a Java int", () => {
    const h = new Harness();
    h.createdPath("/v");
    const node = h.tree.getNode("/v");
    if (node === undefined) throw new Error("no /v");
    node.stat.version = 2147483647;
    expect(h.setData("/v", "x", 2147483647).err).toBe(Code.OK);
    expect(h.stat("/v").version).toBe(-2147483648);
  });
});

describe("zk: prep: §1.7 quotas", () => {
  const quota = (h: Harness, path: string, limits: string) => {
    h.createdPath(`/zookeeper/quota${path}`);
    h.create(`/zookeeper/quota${path}/zookeeper_limits`, limits);
  };
  it("hard count/bytes limits fail with QUOTAEXCEEDED only when enforceQuota is set", () => {
    const h = new Harness({ enforceQuota: true });
    h.createdPath("/q");
    quota(h, "/q", "count=-1,bytes=-1,countHardLimit=2,byteHardLimit=5");
    expect(h.create("/q/a").err).toBe(Code.OK); // count 2 (itself + a)
    expect(h.create("/q/b").err).toBe(Code.QUOTAEXCEEDED);
    expect(h.setData("/q/a", "123456").err).toBe(Code.QUOTAEXCEEDED);
    expect(h.setData("/q/a", "12345").err).toBe(Code.OK);
    const off = new Harness();
    off.createdPath("/q");
    quota(off, "/q", "countHardLimit=1");
    expect(off.create("/q/a").err).toBe(Code.OK);
  });
  it("soft limits (count=N,bytes=M) only warn, as in 3.8", () => {
    const h = new Harness({ enforceQuota: true });
    h.createdPath("/s");
    quota(h, "/s", "count=1,bytes=1");
    expect(h.create("/s/a", "abc").err).toBe(Code.OK);
  });
});

describe("zk: prep: §4 multi", () => {
  const multi = (h: Harness, ops: MultiOp[]) => h.write(OpCode.multi, { kind: "MultiOperationRecord", ops });
  const c = (path: string, flags = 0): MultiOp => ({ type: OpCode.create, request: createReq(path, flags) });
  const d = (path: string, version = -1): MultiOp => ({ type: OpCode.delete, request: { kind: "DeleteRequest", path, version } });
  const chk = (path: string, version: number): MultiOp => ({ type: OpCode.check, request: { kind: "CheckVersionRequest", path, version } });
  const results = (r: { reply: { response: unknown } | null }) => (r.reply?.response as MultiResponse).results;

  it("failure: results (0, −101, −2), header err 0, nothing applied, zxid consumed [probed]", () => {
    const h = new Harness();
    const before = h.lastZxid;
    const r = multi(h, [c("/a"), c("/missing/b"), c("/c")]);
    expect(r.reply?.err).toBe(Code.OK);
    expect(results(r).map((x) => x.err)).toEqual([0, -101, -2]);
    expect(results(r).map((x) => x.type)).toEqual([-1, -1, -1]);
    expect(h.tree.getNode("/a")).toBeUndefined();
    expect(h.lastZxid).toBe(before + 1n);
    expect(h.prep.outstandingChanges).toEqual([]);
  });
  it("composition: create /a then /a/b; delete then recreate; sequential numbering", () => {
    const h = new Harness();
    const r = multi(h, [c("/a"), c("/a/b"), d("/a/b"), c("/a/b"), c("/a/s-", CreateMode.PERSISTENT_SEQUENTIAL), chk("/a", 0)]);
    expect(results(r).map((x) => x.err)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(results(r).map((x) => x.type)).toEqual([OpCode.create, OpCode.create, OpCode.delete, OpCode.create, OpCode.create, OpCode.check]);
    expect(results(r)[4]?.response).toEqual({ kind: "CreateResponse", path: "/a/s-0000000002" });
    expect(h.children("/a")).toEqual(["b", "s-0000000002"]);
    const st = h.stat("/a/b");
    expect(st.czxid).toBe(h.lastZxid);
    expect(h.tree.getNode("/a")?.stat.cversion).toBe(3);
    expect(h.stat("/a").cversion).toBe(2 * 3 - 2);
  });
  it("all sub-ops share one zxid and one time", () => {
    const h = new Harness();
    h.timeMs = 4242;
    multi(h, [c("/x"), c("/y")]);
    expect(h.stat("/x").czxid).toBe(h.stat("/y").czxid);
    expect(h.stat("/x").ctime).toBe(4242);
  });
  it("failure rolls back its change records, so a following create sees the old state", () => {
    const h = new Harness();
    h.createdPath("/p");
    const m = h.prepare(OpCode.multi, {
      kind: "MultiOperationRecord",
      ops: [c("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL), c("/nope/x")],
    });
    expect(m.kind === "txn" && m.err).toBe(Code.NONODE);
    expect(h.prep.outstandingChanges).toEqual([]);
    const next = h.prepare(OpCode.create, createReq("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL));
    expect(next.kind === "txn" && next.entry.txn.kind === "CreateTxn" && next.entry.txn.path).toBe("/p/s-0000000000");
  });
  it("rollback restores an earlier pending record of another request", () => {
    const h = new Harness();
    h.createdPath("/p");
    const first = h.prepare(OpCode.create, createReq("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL));
    expect(first.kind === "txn" && first.err).toBe(0);
    h.prepare(OpCode.multi, { kind: "MultiOperationRecord", ops: [c("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL), chk("/p", 99)] });
    const next = h.prepare(OpCode.create, createReq("/p/s-", CreateMode.PERSISTENT_SEQUENTIAL));
    expect(next.kind === "txn" && next.entry.txn.kind === "CreateTxn" && next.entry.txn.path).toBe("/p/s-0000000001");
  });
  it("create2 in a multi is re-typed to create (no stat); container flags → createContainer with stat", () => {
    const h = new Harness();
    const r = multi(h, [
      { type: OpCode.create2, request: createReq("/a") },
      { type: OpCode.create, request: createReq("/k", CreateMode.CONTAINER) },
    ]);
    expect(results(r)[0]).toEqual({ type: OpCode.create, err: 0, response: { kind: "CreateResponse", path: "/a" } });
    expect(results(r)[1]?.type).toBe(OpCode.create2);
    expect(h.tree.getContainers()).toEqual(["/k"]);
  });
  it("a read op inside a write multi → MARSHALLINGERROR error txn", () => {
    const h = new Harness();
    const r = multi(h, [c("/a"), { type: OpCode.getData, request: { kind: "GetDataRequest", path: "/", watch: false } }]);
    expect(r.reply).toEqual({ err: Code.MARSHALLINGERROR, response: null, disposition: "reply" });
  });
  it("setData result carries the stat; check failure gives BADVERSION in results", () => {
    const h = new Harness();
    h.createdPath("/s");
    const ok = multi(h, [{ type: OpCode.setData, request: { kind: "SetDataRequest", path: "/s", data: enc("v"), version: 0 } }]);
    const res = results(ok)[0];
    expect(res?.type).toBe(OpCode.setData);
    expect(res?.response?.kind === "SetDataResponse" && res.response.stat.version).toBe(1);
    const bad = multi(h, [chk("/s", 0), d("/s")]);
    expect(results(bad).map((x) => x.err)).toEqual([Code.BADVERSION, Code.RUNTIMEINCONSISTENCY]);
  });
  it("check precedence inside multi: NONODE, NOAUTH (READ), BADVERSION", () => {
    const h = new Harness();
    h.create("/w", "", 0, [{ perms: Perms.WRITE, id: Ids.ANYONE_ID_UNSAFE }]);
    h.createdPath("/r");
    expect(results(multi(h, [chk("/nope", 0)]))[0]?.err).toBe(Code.NONODE);
    expect(results(multi(h, [chk("/w", 5)]))[0]?.err).toBe(Code.NOAUTH);
    expect(results(multi(h, [chk("/r", 5)]))[0]?.err).toBe(Code.BADVERSION);
    expect(results(multi(h, [chk("/r/", 0)]))[0]?.err).toBe(Code.BADARGUMENTS);
  });
  it("SESSIONMOVED in a multi closes the connection without a reply", () => {
    const h = new Harness();
    h.sessions.owners.set(S1, { elsewhere: true });
    const r = multi(h, [c("/a")]);
    expect(r.reply?.disposition).toBe("closeWithoutReply");
  });
});

describe("zk: prep: §3.4 sessions", () => {
  it("createSession records the timeout in the replicated session table", () => {
    const h = new Harness();
    const id = 0x0100000ac3920005n;
    const r = h.prep.prep({ sessionId: id, cxid: 0, type: OpCode.createSession, request: { kind: "Empty" }, authInfo: [], owner: h.owner, sessionTimeoutMs: 4000 }, 1n, 0);
    expect(r.kind === "txn" && r.entry.txn).toEqual({ kind: "CreateSessionTxn", timeOut: 4000 });
    if (r.kind === "txn") h.apply(r.entry, OpCode.createSession);
    expect(h.tree.sessionsWithTimeouts.get(id)).toBe(4000);
    expect(h.sessions.known.has(id)).toBe(true);
  });
  it("closeSession lists the session's ephemerals incl. pending creates/deletes, sorted; marks closing", () => {
    const h = new Harness();
    h.createdPath("/e2", CreateMode.EPHEMERAL);
    h.createdPath("/e1", CreateMode.EPHEMERAL);
    h.createdPath("/gone", CreateMode.EPHEMERAL);
    h.createdPath("/other", CreateMode.EPHEMERAL, S2);
    h.prepare(OpCode.create, createReq("/e0", CreateMode.EPHEMERAL));
    h.prepare(OpCode.delete, { kind: "DeleteRequest", path: "/gone", version: -1 });
    const r = h.prepare(OpCode.closeSession, { kind: "Empty" });
    expect(r.kind === "txn" && r.entry.txn).toEqual({ kind: "CloseSessionTxn", paths2Delete: ["/e0", "/e1", "/e2"] });
    expect(h.sessions.closing.has(S1)).toBe(true);
    // ZOOKEEPER-1208: a later ephemeral create of the closing session fails.
    const late = h.prepare(OpCode.create, createReq("/late", CreateMode.EPHEMERAL));
    expect(late.kind === "txn" && late.err).toBe(Code.SESSIONEXPIRED);
  });
  it("reads only check the session and consume no zxid", () => {
    const h = new Harness();
    const before = h.lastZxid;
    expect(h.prepare(OpCode.getData, { kind: "GetDataRequest", path: "/", watch: false })).toEqual({ kind: "noTxn", err: 0 });
    expect(h.prepare(OpCode.exists, { kind: "ExistsRequest", path: "/", watch: false }, 0x99n)).toEqual({ kind: "noTxn", err: Code.UNKNOWNSESSION });
    expect(h.prepare(999, { kind: "Empty" })).toEqual({ kind: "noTxn", err: Code.UNIMPLEMENTED });
    expect(h.lastZxid).toBe(before);
  });
});
