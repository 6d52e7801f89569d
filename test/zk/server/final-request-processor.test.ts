import { describe, expect, it } from "vitest";
import { Code } from "../../../src/zk/proto/error-code.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import type { RequestRecord } from "../../../src/zk/proto/packets.js";
import { CreateMode, Ids, Perms, type ACL, type Id } from "../../../src/zk/proto/records.js";
import { generateDigest } from "../../../src/zk/server/acl.js";
import { processRead } from "../../../src/zk/server/final-request-processor.js";
import { Harness, IP, RecordingWatcher, S1, S2, dec, enc } from "./harness.js";

const ALICE: Id = { scheme: "digest", id: generateDigest("alice:secret") };
const createReq = (path: string, flags = 0, acl: ACL[] = Ids.OPEN_ACL_UNSAFE): RequestRecord => ({
  kind: "CreateRequest",
  path,
  data: enc("d"),
  acl,
  flags,
});

describe("zk: final: replies for applied txns", () => {
  it("create → CreateResponse; create2/createContainer/createTTL → Create2Response with stat", () => {
    const h = new Harness({ extendedTypesEnabled: true });
    expect(h.write(OpCode.create, createReq("/a")).reply).toEqual({ err: 0, response: { kind: "CreateResponse", path: "/a" }, disposition: "reply" });
    const c2 = h.write(OpCode.create2, createReq("/b")).reply;
    expect(c2?.response).toEqual({ kind: "Create2Response", path: "/b", stat: h.stat("/b") });
    const cc = h.write(OpCode.createContainer, createReq("/c", CreateMode.CONTAINER)).reply;
    expect(cc?.response?.kind).toBe("Create2Response");
    const ct = h.write(OpCode.createTTL, { kind: "CreateTTLRequest", path: "/t", data: null, acl: Ids.OPEN_ACL_UNSAFE, flags: CreateMode.PERSISTENT_WITH_TTL, ttl: 10 }).reply;
    expect(ct?.response?.kind === "Create2Response" && ct.response.stat.ephemeralOwner).toBe(0n);
  });
  it("setData → SetDataResponse, setACL → SetACLResponse, delete → Empty, error → no body", () => {
    const h = new Harness();
    h.create("/a");
    expect(h.setData("/a", "x").response?.kind).toBe("SetDataResponse");
    expect(h.setACL("/a", Ids.OPEN_ACL_UNSAFE).response).toEqual({ kind: "SetACLResponse", stat: h.stat("/a") });
    expect(h.delete("/a")).toEqual({ err: 0, response: { kind: "Empty" }, disposition: "reply" });
    expect(h.delete("/a")).toEqual({ err: Code.NONODE, response: null, disposition: "reply" });
  });
  it("SESSIONMOVED closes the connection without a reply", () => {
    const h = new Harness();
    h.sessions.owners.set(S2, "elsewhere");
    expect(h.create("/x", "", 0, Ids.OPEN_ACL_UNSAFE, S2)).toEqual({ err: Code.SESSIONMOVED, response: null, disposition: "closeWithoutReply" });
  });
});

describe("zk: final: §1.4 reads (NONODE before NOAUTH)", () => {
  const h = new Harness();
  h.create("/open", "v");
  h.create("/open/c");
  h.create("/closed", "secret", 0, [{ perms: Perms.ALL, id: ALICE }], S1, [IP, ALICE]);
  const read = (type: number, request: RequestRecord, auth: Id[] = [IP]) => h.read(type, request, new RecordingWatcher(1), auth);

  it("getData", () => {
    expect(read(OpCode.getData, { kind: "GetDataRequest", path: "/nope", watch: false }).err).toBe(Code.NONODE);
    expect(read(OpCode.getData, { kind: "GetDataRequest", path: "/closed", watch: false }).err).toBe(Code.NOAUTH);
    const ok = read(OpCode.getData, { kind: "GetDataRequest", path: "/closed", watch: false }, [IP, ALICE]);
    expect(ok.response?.kind === "GetDataResponse" && dec(ok.response.data)).toBe("secret");
  });
  it("getChildren / getChildren2 (children in Java's HashSet order, not sorted; stat)", () => {
    expect(read(OpCode.getChildren, { kind: "GetChildrenRequest", path: "/nope", watch: false }).err).toBe(Code.NONODE);
    expect(read(OpCode.getChildren2, { kind: "GetChildren2Request", path: "/closed", watch: false }).err).toBe(Code.NOAUTH);
    expect(read(OpCode.getChildren, { kind: "GetChildrenRequest", path: "/", watch: false }).response).toEqual({
      kind: "GetChildrenResponse",
      children: ["closed", "zookeeper", "open"],
    });
    const c2 = read(OpCode.getChildren2, { kind: "GetChildren2Request", path: "/open", watch: false });
    expect(c2.response).toEqual({ kind: "GetChildren2Response", children: ["c"], stat: h.stat("/open") });
  });
  it("getAllChildrenNumber", () => {
    expect(read(OpCode.getAllChildrenNumber, { kind: "GetAllChildrenNumberRequest", path: "/nope" }).err).toBe(Code.NONODE);
    expect(read(OpCode.getAllChildrenNumber, { kind: "GetAllChildrenNumberRequest", path: "/closed" }).err).toBe(Code.NOAUTH);
    expect(read(OpCode.getAllChildrenNumber, { kind: "GetAllChildrenNumberRequest", path: "/" }).response).toEqual({
      kind: "GetAllChildrenNumberResponse",
      totalNumber: 6,
    });
  });
  it("exists: no ACL check in 3.8.0; NUL → BADARGUMENTS", () => {
    expect(read(OpCode.exists, { kind: "ExistsRequest", path: "/closed", watch: false }).response?.kind).toBe("ExistsResponse");
    expect(read(OpCode.exists, { kind: "ExistsRequest", path: "/a\u0000", watch: true }).err).toBe(Code.BADARGUMENTS);
    expect(read(OpCode.exists, { kind: "ExistsRequest", path: "a//b", watch: false }).err).toBe(Code.NONODE);
  });
  it("getACL: READ or ADMIN; without ADMIN digest ids are masked to user:x [probed]", () => {
    const g = new Harness();
    const acl: ACL[] = [
      { perms: Perms.READ, id: Ids.ANYONE_ID_UNSAFE },
      { perms: Perms.ALL, id: ALICE },
    ];
    g.create("/n", "", 0, acl, S1, [IP, ALICE]);
    g.create("/none", "", 0, [{ perms: Perms.WRITE, id: Ids.ANYONE_ID_UNSAFE }]);
    const get = (path: string, auth: Id[]) => g.read(OpCode.getACL, { kind: "GetACLRequest", path }, new RecordingWatcher(1), auth);
    expect(get("/missing", [IP]).err).toBe(Code.NONODE);
    expect(get("/none", [IP]).err).toBe(Code.NOAUTH);
    expect(get("/n", [IP]).response).toEqual({
      kind: "GetACLResponse",
      acl: [acl[0], { perms: Perms.ALL, id: { scheme: "digest", id: "alice:x" } }],
      stat: g.stat("/n"),
    });
    expect(get("/n", [IP, ALICE]).response).toEqual({ kind: "GetACLResponse", acl, stat: g.stat("/n") });
    expect(get("/n", [IP, { scheme: "super", id: "" }]).response).toEqual({ kind: "GetACLResponse", acl, stat: g.stat("/n") });
  });
  it("skipACL lets reads through", () => {
    const req: RequestRecord = { kind: "GetDataRequest", path: "/closed", watch: false };
    expect(processRead(h.tree, OpCode.getData, req, new RecordingWatcher(1), [IP], S1).err).toBe(Code.NOAUTH);
    expect(processRead(h.tree, OpCode.getData, req, new RecordingWatcher(1), [IP], S1, { skipACL: true }).err).toBe(Code.OK);
  });
});

describe("zk: final: other reads", () => {
  it("whoAmI returns the caller's ids [probed]", () => {
    const h = new Harness();
    expect(h.read(OpCode.whoAmI, { kind: "Empty" }, new RecordingWatcher(1), [ALICE, IP]).response).toEqual({
      kind: "WhoAmIResponse",
      clientInfo: [
        { authScheme: "digest", user: "alice" },
        { authScheme: "ip", user: "127.0.0.1" },
      ],
    });
  });
  it("getEphemerals lists the caller's session only", () => {
    const h = new Harness();
    h.create("/e1", "", CreateMode.EPHEMERAL);
    h.create("/e2", "", CreateMode.EPHEMERAL, Ids.OPEN_ACL_UNSAFE, S2);
    const r = h.read(OpCode.getEphemerals, { kind: "GetEphemeralsRequest", prefixPath: "/" }, new RecordingWatcher(1), [IP], S1);
    expect(r.response).toEqual({ kind: "GetEphemeralsResponse", ephemerals: ["/e1"] });
  });
  it("multiRead: independent sub-results, errors as ErrorResults, watches honoured", () => {
    const h = new Harness();
    h.create("/a", "A");
    h.create("/s", "", 0, [{ perms: Perms.WRITE, id: Ids.ANYONE_ID_UNSAFE }]);
    const w = new RecordingWatcher(1);
    const r = h.read(
      OpCode.multiRead,
      {
        kind: "MultiOperationRecord",
        ops: [
          { type: OpCode.getData, request: { kind: "GetDataRequest", path: "/a", watch: true } },
          { type: OpCode.getChildren, request: { kind: "GetChildrenRequest", path: "/missing", watch: false } },
          { type: OpCode.getData, request: { kind: "GetDataRequest", path: "/s", watch: false } },
          { type: OpCode.getChildren, request: { kind: "GetChildrenRequest", path: "/", watch: false } },
        ],
      },
      w,
    );
    expect(r.err).toBe(0);
    const results = r.response?.kind === "MultiResponse" ? r.response.results : [];
    expect(results.map((x) => [x.type, x.err])).toEqual([
      [OpCode.getData, 0],
      [-1, Code.NONODE],
      [-1, Code.NOAUTH],
      [OpCode.getChildren, 0],
    ]);
    h.setData("/a", "B");
    expect(w.take()).toEqual(["DataChanged:/a"]);
  });
  it("sync echoes the path; ping has no body; unknown op → UNIMPLEMENTED then close", () => {
    const h = new Harness();
    expect(h.read(OpCode.sync, { kind: "SyncRequest", path: "/x" }).response).toEqual({ kind: "SyncResponse", path: "/x" });
    expect(h.read(OpCode.ping, { kind: "Empty" }).err).toBe(0);
    expect(h.read(4242, { kind: "Empty" })).toEqual({ err: Code.UNIMPLEMENTED, response: null, disposition: "replyThenClose" });
  });
});
