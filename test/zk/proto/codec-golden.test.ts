/**
 * Byte-exact encodings. The first group is derived by hand from docs/zookeeper.md §9/§4 and
 * annotated field by field; the second was produced by the real ZooKeeper 3.8.0 Jute classes
 * (`zookeeper-3.8.0.jar`: `ConnectRequest`, `MultiOperationRecord`, `MultiResponse`,
 * `TxnHeader`, … serialised through `BinaryOutputArchive` by a throwaway Java program) and
 * pins that our encoder produces, and our decoder accepts, exactly what Java does.
 */
import { describe, expect, it } from "vitest";
import { decodeClientFrame, decodeReply, encodeClientFrame, encodeServerFrame, notificationFrame } from "../../../src/zk/proto/codec.js";
import { decodeTxnEntry, encodeTxnEntry } from "../../../src/zk/proto/codec-txn.js";
import { frame } from "../../../src/zk/proto/codec-framing.js";
import { JuteWriter } from "../../../src/zk/proto/jute.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import type { ClientFrame, ServerFrame } from "../../../src/zk/proto/packets.js";
import { CreateMode, Ids, type Stat } from "../../../src/zk/proto/records.js";
import type { TxnEntry } from "../../../src/zk/proto/txn.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/[\s|]/g, ""), "hex"));
const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

/** world:anyone ALL: count 1, perms 31, "world", "anyone". */
const OPEN_ACL_HEX = "00000001 0000001f 00000005 776f726c64 00000006 616e796f6e65";

const STAT: Stat = {
  czxid: 0x100000002n,
  mzxid: 0x100000003n,
  ctime: 1700000000123,
  mtime: 1700000000456,
  version: 2,
  cversion: 3,
  aversion: 1,
  ephemeralOwner: 0x0100000ac3920000n,
  dataLength: 5,
  numChildren: 0,
  pzxid: 0x100000004n,
};
const STAT_HEX =
  "0000000100000002 0000000100000003 0000018bcfe5687b 0000018bcfe569c8 00000002 00000003 00000001 0100000ac3920000 00000005 00000000 0000000100000004";

describe("proto: codec: golden bytes derived by hand", () => {
  it("proto: codec: ConnectRequest for a new session", () => {
    const f: ClientFrame = {
      kind: "connect",
      request: {
        kind: "ConnectRequest",
        protocolVersion: 0,
        lastZxidSeen: 0n,
        timeOut: 30000,
        sessionId: 0n,
        passwd: new Uint8Array(16),
        readOnly: false,
      },
    };
    const expected =
      "00000000" + // protocolVersion 0
      "0000000000000000" + // lastZxidSeen 0
      "00007530" + // timeOut 30000
      "0000000000000000" + // sessionId 0 (new session)
      "00000010" + "00".repeat(16) + // passwd: 16 zero bytes
      "00"; // readOnly false
    expect(hex(encodeClientFrame(f))).toBe(expected);
    expect(hex(frame(encodeClientFrame(f)))).toBe("0000002d" + expected); // 45-byte payload
  });

  it("proto: codec: ping is a bare RequestHeader{xid=-2, type=11}", () => {
    const f: ClientFrame = { kind: "request", header: { xid: -2, type: OpCode.ping }, request: { kind: "Empty" } };
    expect(hex(encodeClientFrame(f))).toBe("fffffffe" + "0000000b");
    expect(hex(frame(encodeClientFrame(f)))).toBe("00000008fffffffe0000000b");
  });

  it("proto: codec: create request", () => {
    const f: ClientFrame = {
      kind: "request",
      header: { xid: 1, type: OpCode.create },
      request: { kind: "CreateRequest", path: "/a", data: ascii("hi"), acl: Ids.OPEN_ACL_UNSAFE, flags: CreateMode.PERSISTENT },
    };
    const expected = unhex(
      "00000001 00000001 | 00000002 2f61 | 00000002 6869 |" + OPEN_ACL_HEX + "| 00000000",
    );
    expect(hex(encodeClientFrame(f))).toBe(hex(expected));
    expect(decodeClientFrame(expected, "request")).toEqual(f);
  });

  it("proto: codec: multi with sub-op headers {type,false,-1} and the {-1,true,-1} terminator", () => {
    const f: ClientFrame = {
      kind: "request",
      header: { xid: 5, type: OpCode.multi },
      request: {
        kind: "MultiOperationRecord",
        ops: [
          { type: OpCode.delete, request: { kind: "DeleteRequest", path: "/x", version: -1 } },
          { type: OpCode.check, request: { kind: "CheckVersionRequest", path: "/z", version: 2 } },
        ],
      },
    };
    const expected = unhex(
      "00000005 0000000e |" + // RequestHeader{5, multi}
        "00000002 00 ffffffff | 00000002 2f78 ffffffff |" + // delete /x -1
        "0000000d 00 ffffffff | 00000002 2f7a 00000002 |" + // check /z 2
        "ffffffff 01 ffffffff", // terminator
    );
    expect(hex(encodeClientFrame(f))).toBe(hex(expected));
    expect(decodeClientFrame(expected, "request")).toEqual(f);
  });

  it("proto: codec: an error reply is the header alone, whatever record is attached", () => {
    const f: ServerFrame = {
      kind: "reply",
      header: { xid: 6, zxid: 0x100000007n, err: -101 },
      response: { kind: "ExistsResponse", stat: STAT },
    };
    expect(hex(encodeServerFrame(f))).toBe("00000006" + "0000000100000007" + "ffffff9b");
    expect(decodeReply(encodeServerFrame(f), OpCode.exists)).toEqual({ ...f, response: null });
  });
});

/** Hex produced by the 3.8.0 Java classes (see the header). */
const JAVA = {
  connectResponse: "00000000000075300100000ac3920000000000100102030405060708090a0b0c0d0e0f1000",
  createTTLRequest:
    "0000000700000015000000022f74ffffffff000000010000001f00000005776f726c6400000006616e796f6e6500000005000000000000ea60",
  multi:
    "000000030000000e0000000100ffffffff000000022f6d0000000107000000010000001f00000005776f726c6400000006616e796f6e65000000030000000200ffffffff000000022f78ffffffff0000000500ffffffff000000022f7900000000000000040000000d00ffffffff000000022f7a00000002ffffffff01ffffffff",
  multiRead: "00000004000000160000000800ffffffff000000022f63000000000400ffffffff000000022f6400ffffffff01ffffffff",
  multiResponse:
    "000000030000000100000005000000000000000100000000000000000c2f6d303030303030303030310000000f0000000000000000022f6e000000010000000200000001000000030000018bcfe5687b0000018bcfe569c80000000200000003000000010100000ac392000000000005000000000000000100000004000000020000000000000000050000000000000000010000000200000001000000030000018bcfe5687b0000018bcfe569c80000000200000003000000010100000ac3920000000000050000000000000001000000040000000d0000000000ffffffff01ffffffff",
  multiResponseError:
    "00000003000000010000000600000000ffffffff000000000000000000ffffffff00ffffff9bffffff9bffffffff00fffffffefffffffeffffffff01ffffffff",
  multiReadResponse:
    "000000040000000100000006000000000000000800000000000000000200000001610000000162000000040000000000000000020102000000010000000200000001000000030000018bcfe5687b0000018bcfe569c80000000200000003000000010100000ac392000000000005000000000000000100000004ffffffff01ffffffff",
  getDataResponse:
    "000000050000000100000007000000000000000176000000010000000200000001000000030000018bcfe5687b0000018bcfe569c80000000200000003000000010100000ac392000000000005000000000000000100000004",
  notification: "ffffffffffffffffffffffff000000000000000300000003000000022f77",
  setWatches2:
    "fffffff800000069000000010000000700000001000000022f640000000000000002000000032f6331000000032f633200000001000000022f7000000000",
  auth: "fffffffc00000064000000000000000664696765737400000003753a70",
  addWatch: "000000090000006a000000032f617700000001",
  whoAmIResponse:
    "0000000a00000001000000070000000000000002000000026970000000093132372e302e302e31000000066469676573740000000175",
  getACLResponse:
    "0000000b000000010000000700000000000000010000001f00000005776f726c6400000006616e796f6e65000000010000000200000001000000030000018bcfe5687b0000018bcfe569c80000000200000003000000010100000ac392000000000005000000000000000100000004",
  createTxn:
    "0100000ac39200000000000100000001000000020000018bcfe5687b00000001000000022f61000000026869000000010000001f00000005776f726c6400000006616e796f6e650100000001",
  multiTxn:
    "0100000ac39200000000000300000001000000050000018bcfe56be70000000e00000003000000010000002b000000022f6d0000000107000000010000001f00000005776f726c6400000006616e796f6e6500000000000000000200000006000000022f78ffffffff00000004ffffff9b",
  closeSessionTxn:
    "0100000ac39200000000000000000001000000080000018bcfe56be8fffffff500000002000000032f6531000000032f6532",
  createTTLTxn:
    "0000000000000001000000020000000000000003000000000000000400000015000000022f7400000000000000010000001f00000005776f726c6400000006616e796f6e6500000007000000ffffffffff",
  emojiString: "0000000c61c3a9e282aceda0bdedb880",
};

function expectClient(f: ClientFrame, javaHex: string): void {
  expect(hex(encodeClientFrame(f))).toBe(javaHex);
  expect(decodeClientFrame(unhex(javaHex), f.kind === "connect" ? "connect" : "request")).toEqual(f);
}
function expectReply(f: ServerFrame, opType: number, javaHex: string): void {
  expect(hex(encodeServerFrame(f))).toBe(javaHex);
  expect(decodeReply(unhex(javaHex), opType)).toEqual(f);
}
function expectTxn(e: TxnEntry, javaHex: string): void {
  expect(hex(encodeTxnEntry(e))).toBe(javaHex);
  expect(decodeTxnEntry(unhex(javaHex))).toEqual(e);
}

describe("proto: codec: golden bytes from the ZooKeeper 3.8.0 Java classes", () => {
  it("proto: codec: ConnectResponse with the trailing readOnly", () => {
    const f: ServerFrame = {
      kind: "connect",
      response: {
        kind: "ConnectResponse",
        protocolVersion: 0,
        timeOut: 30000,
        sessionId: 0x0100000ac3920000n,
        passwd: Uint8Array.from({ length: 16 }, (_, i) => i + 1),
        readOnly: false,
      },
    };
    expect(hex(encodeServerFrame(f))).toBe(JAVA.connectResponse);
  });

  it("proto: codec: createTTL request with null data", () => {
    expectClient(
      {
        kind: "request",
        header: { xid: 7, type: OpCode.createTTL },
        request: { kind: "CreateTTLRequest", path: "/t", data: null, acl: Ids.OPEN_ACL_UNSAFE, flags: 5, ttl: 60000 },
      },
      JAVA.createTTLRequest,
    );
  });

  it("proto: codec: multi request (create, delete, setData, check)", () => {
    expectClient(
      {
        kind: "request",
        header: { xid: 3, type: OpCode.multi },
        request: {
          kind: "MultiOperationRecord",
          ops: [
            {
              type: OpCode.create,
              request: { kind: "CreateRequest", path: "/m", data: Uint8Array.of(7), acl: Ids.OPEN_ACL_UNSAFE, flags: 3 },
            },
            { type: OpCode.delete, request: { kind: "DeleteRequest", path: "/x", version: -1 } },
            { type: OpCode.setData, request: { kind: "SetDataRequest", path: "/y", data: new Uint8Array(0), version: 4 } },
            { type: OpCode.check, request: { kind: "CheckVersionRequest", path: "/z", version: 2 } },
          ],
        },
      },
      JAVA.multi,
    );
  });

  it("proto: codec: multiRead request", () => {
    expectClient(
      {
        kind: "request",
        header: { xid: 4, type: OpCode.multiRead },
        request: {
          kind: "MultiOperationRecord",
          ops: [
            { type: OpCode.getChildren, request: { kind: "GetChildrenRequest", path: "/c", watch: false } },
            { type: OpCode.getData, request: { kind: "GetDataRequest", path: "/d", watch: false } },
          ],
        },
      },
      JAVA.multiRead,
    );
  });

  it("proto: codec: multi responses: success, failure (0, -101, -2) and multiRead", () => {
    expectReply(
      {
        kind: "reply",
        header: { xid: 3, zxid: 0x100000005n, err: 0 },
        response: {
          kind: "MultiResponse",
          results: [
            { type: OpCode.create, err: 0, response: { kind: "CreateResponse", path: "/m0000000001" } },
            { type: OpCode.create2, err: 0, response: { kind: "Create2Response", path: "/n", stat: STAT } },
            { type: OpCode.delete, err: 0, response: null },
            { type: OpCode.setData, err: 0, response: { kind: "SetDataResponse", stat: STAT } },
            { type: OpCode.check, err: 0, response: null },
          ],
        },
      },
      OpCode.multi,
      JAVA.multiResponse,
    );
    expectReply(
      {
        kind: "reply",
        header: { xid: 3, zxid: 0x100000006n, err: 0 },
        response: {
          kind: "MultiResponse",
          results: [0, -101, -2].map((err) => ({ type: OpCode.error, err, response: { kind: "ErrorResponse", err } })),
        },
      },
      OpCode.multi,
      JAVA.multiResponseError,
    );
    expectReply(
      {
        kind: "reply",
        header: { xid: 4, zxid: 0x100000006n, err: 0 },
        response: {
          kind: "MultiResponse",
          results: [
            { type: OpCode.getChildren, err: 0, response: { kind: "GetChildrenResponse", children: ["a", "b"] } },
            { type: OpCode.getData, err: 0, response: { kind: "GetDataResponse", data: Uint8Array.of(1, 2), stat: STAT } },
          ],
        },
      },
      OpCode.multiRead,
      JAVA.multiReadResponse,
    );
  });

  it("proto: codec: getData, getACL and whoAmI responses; Stat is 68 bytes in wire order", () => {
    expect(unhex(STAT_HEX).length).toBe(68);
    expect(JAVA.getDataResponse.endsWith(STAT_HEX.replace(/ /g, ""))).toBe(true);
    expectReply(
      {
        kind: "reply",
        header: { xid: 5, zxid: 0x100000007n, err: 0 },
        response: { kind: "GetDataResponse", data: ascii("v"), stat: STAT },
      },
      OpCode.getData,
      JAVA.getDataResponse,
    );
    expectReply(
      {
        kind: "reply",
        header: { xid: 11, zxid: 0x100000007n, err: 0 },
        response: { kind: "GetACLResponse", acl: Ids.OPEN_ACL_UNSAFE, stat: STAT },
      },
      OpCode.getACL,
      JAVA.getACLResponse,
    );
    expectReply(
      {
        kind: "reply",
        header: { xid: 10, zxid: 0x100000007n, err: 0 },
        response: {
          kind: "WhoAmIResponse",
          clientInfo: [
            { authScheme: "ip", user: "127.0.0.1" },
            { authScheme: "digest", user: "u" },
          ],
        },
      },
      OpCode.whoAmI,
      JAVA.whoAmIResponse,
    );
  });

  it("proto: codec: notification (xid -1, zxid -1) needs no op type", () => {
    const f = notificationFrame({ type: 3, state: 3, path: "/w" });
    expect(hex(encodeServerFrame(f))).toBe(JAVA.notification);
    expect(decodeReply(unhex(JAVA.notification), () => undefined)).toEqual(f);
  });

  it("proto: codec: setWatches2, auth and addWatch requests", () => {
    expectClient(
      {
        kind: "request",
        header: { xid: -8, type: OpCode.setWatches2 },
        request: {
          kind: "SetWatches2",
          relativeZxid: 0x100000007n,
          dataWatches: ["/d"],
          existWatches: [],
          childWatches: ["/c1", "/c2"],
          persistentWatches: ["/p"],
          persistentRecursiveWatches: [],
        },
      },
      JAVA.setWatches2,
    );
    expectClient(
      {
        kind: "request",
        header: { xid: -4, type: OpCode.auth },
        request: { kind: "AuthPacket", type: 0, scheme: "digest", auth: ascii("u:p") },
      },
      JAVA.auth,
    );
    expectClient(
      { kind: "request", header: { xid: 9, type: OpCode.addWatch }, request: { kind: "AddWatchRequest", path: "/aw", mode: 1 } },
      JAVA.addWatch,
    );
  });

  it("proto: codec: txns: CreateTxn, MultiTxn of {type, data}, CloseSessionTxn, CreateTTLTxn", () => {
    expectTxn(
      {
        header: { clientId: 0x0100000ac3920000n, cxid: 1, zxid: 0x100000002n, time: 1700000000123, type: OpCode.create },
        txn: { kind: "CreateTxn", path: "/a", data: ascii("hi"), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: true, parentCVersion: 1 },
      },
      JAVA.createTxn,
    );
    expectTxn(
      {
        header: { clientId: 0x0100000ac3920000n, cxid: 3, zxid: 0x100000005n, time: 1700000000999, type: OpCode.multi },
        txn: {
          kind: "MultiTxn",
          txns: [
            {
              type: OpCode.create,
              txn: { kind: "CreateTxn", path: "/m", data: Uint8Array.of(7), acl: Ids.OPEN_ACL_UNSAFE, ephemeral: false, parentCVersion: 0 },
            },
            { type: OpCode.delete, txn: { kind: "DeleteTxn", path: "/x" } },
            { type: OpCode.error, txn: { kind: "ErrorTxn", err: -101 } },
          ],
        },
      },
      JAVA.multiTxn,
    );
    expectTxn(
      {
        header: { clientId: 0x0100000ac3920000n, cxid: 0, zxid: 0x100000008n, time: 1700000001000, type: OpCode.closeSession },
        txn: { kind: "CloseSessionTxn", paths2Delete: ["/e1", "/e2"] },
      },
      JAVA.closeSessionTxn,
    );
    expectTxn(
      {
        header: { clientId: 1n, cxid: 2, zxid: 3n, time: 4, type: OpCode.createTTL },
        txn: { kind: "CreateTTLTxn", path: "/t", data: new Uint8Array(0), acl: Ids.OPEN_ACL_UNSAFE, parentCVersion: 7, ttl: 2 ** 40 - 1 },
      },
      JAVA.createTTLTxn,
    );
  });

  it("proto: codec: strings are written per UTF-16 unit, like BinaryOutputArchive", () => {
    const w = new JuteWriter();
    w.writeUString("a\u00e9\u20ac\u{1F600}");
    expect(hex(w.toBytes())).toBe(JAVA.emojiString);
  });
});
