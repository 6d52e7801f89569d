/**
 * Property tests: every record kind survives encode → decode unchanged, the size helpers
 * equal the encoded length, and no prefix or random garbage makes a decoder throw anything
 * but a JuteError.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  clientFrameSize,
  decodeClientFrame,
  decodeConnectRequest,
  decodeConnectResponse,
  decodeReply,
  decodeServerFrame,
  encodeClientFrame,
  encodeServerFrame,
  serverFrameSize,
} from "../../../src/zk/proto/codec.js";
import { decodeTxn, decodeTxnEntry, encodeTxn, encodeTxnEntry, txnEntrySize, txnSize } from "../../../src/zk/proto/codec-txn.js";
import { JuteError } from "../../../src/zk/proto/jute.js";
import { RESPONSE_KIND_BY_OP } from "../../../src/zk/proto/registry-doc.js";
import {
  anyTxn,
  connectRequestFrame,
  connectResponseFrame,
  replyFrame,
  requestFrame,
  txnEntry,
} from "./arbitraries.js";

const RUNS = { numRuns: 300, seed: 0x2b5d };

function expectJuteErrorOrValue(decode: () => unknown): void {
  try {
    decode();
  } catch (err) {
    expect(err).toBeInstanceOf(JuteError);
  }
}

describe("proto: codec: round trip", () => {
  it("proto: codec: ConnectRequest round-trips with and without the readOnly field", () => {
    fc.assert(
      fc.property(connectRequestFrame, fc.boolean(), (frame, readOnlyField) => {
        const bytes = encodeClientFrame(frame, { readOnlyField });
        expect(clientFrameSize(frame, { readOnlyField })).toBe(bytes.length);
        const decoded = decodeConnectRequest(bytes);
        expect(decoded.readOnlyFieldPresent).toBe(readOnlyField);
        const req = frame.kind === "connect" ? frame.request : null;
        expect(decoded.request).toEqual({ ...req, readOnly: readOnlyField && req!.readOnly });
        if (readOnlyField) expect(decodeClientFrame(bytes, "connect")).toEqual(frame);
      }),
      RUNS,
    );
  });

  it("proto: codec: ConnectResponse round-trips with and without the readOnly field", () => {
    fc.assert(
      fc.property(connectResponseFrame, fc.boolean(), (frame, readOnlyField) => {
        const bytes = encodeServerFrame(frame, { readOnlyField });
        expect(serverFrameSize(frame, { readOnlyField })).toBe(bytes.length);
        const decoded = decodeConnectResponse(bytes);
        expect(decoded.readOnlyFieldPresent).toBe(readOnlyField);
        if (readOnlyField) expect(decodeServerFrame(bytes, "connect")).toEqual(frame);
      }),
      RUNS,
    );
  });

  it("proto: codec: every request op round-trips and sizes exactly", () => {
    fc.assert(
      fc.property(requestFrame, (frame) => {
        const bytes = encodeClientFrame(frame);
        expect(clientFrameSize(frame)).toBe(bytes.length);
        expect(decodeClientFrame(bytes, "request")).toEqual(frame);
      }),
      { ...RUNS, numRuns: 1000 },
    );
  });

  it("proto: codec: every reply shape round-trips given the request's op type", () => {
    fc.assert(
      fc.property(replyFrame, ({ opType, frame }) => {
        const bytes = encodeServerFrame(frame);
        expect(serverFrameSize(frame)).toBe(bytes.length);
        expect(decodeReply(bytes, opType)).toEqual(frame);
        expect(decodeServerFrame(bytes, (xid) => (xid === (frame.kind === "reply" ? frame.header.xid : 0) ? opType : undefined))).toEqual(frame);
      }),
      { ...RUNS, numRuns: 1000 },
    );
  });

  it("proto: codec: every txn body and TxnHeader entry round-trips and sizes exactly", () => {
    fc.assert(
      fc.property(anyTxn, txnEntry, (sub, entry) => {
        const body = encodeTxn(sub.txn);
        expect(txnSize(sub.txn)).toBe(body.length);
        expect(decodeTxn(sub.type, body)).toEqual(sub.txn);
        const bytes = encodeTxnEntry(entry);
        expect(txnEntrySize(entry)).toBe(bytes.length);
        expect(decodeTxnEntry(bytes)).toEqual(entry);
      }),
      RUNS,
    );
  });
});

describe("proto: codec: malformed input", () => {
  it("proto: codec: every strict prefix of a request or reply is a JuteError", () => {
    fc.assert(
      fc.property(requestFrame, replyFrame, fc.nat(), (req, reply, cut) => {
        const reqBytes = encodeClientFrame(req);
        const n = cut % reqBytes.length;
        expect(() => decodeClientFrame(reqBytes.subarray(0, n), "request")).toThrow(JuteError);
        const replyBytes = encodeServerFrame(reply.frame);
        const m = cut % replyBytes.length;
        expect(() => decodeReply(replyBytes.subarray(0, m), reply.opType)).toThrow(JuteError);
      }),
      RUNS,
    );
  });

  it("proto: codec: every strict prefix of a txn entry is a JuteError", () => {
    fc.assert(
      fc.property(txnEntry, fc.nat(), (entry, cut) => {
        const bytes = encodeTxnEntry(entry);
        expect(() => decodeTxnEntry(bytes.subarray(0, cut % bytes.length))).toThrow(JuteError);
      }),
      RUNS,
    );
  });

  it("proto: codec: a ConnectRequest prefix is an old client (no readOnly) or a JuteError", () => {
    fc.assert(
      fc.property(connectRequestFrame, fc.nat(), (frame, cut) => {
        const bytes = encodeClientFrame(frame);
        const n = cut % bytes.length;
        if (n === bytes.length - 1) expect(decodeConnectRequest(bytes.subarray(0, n)).readOnlyFieldPresent).toBe(false);
        else expect(() => decodeConnectRequest(bytes.subarray(0, n))).toThrow(JuteError);
      }),
      RUNS,
    );
  });

  it("proto: codec: random bytes never escape as anything but a JuteError", () => {
    const opTypes = [...RESPONSE_KIND_BY_OP.keys(), 0, 999, -10];
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.constantFrom(...opTypes), fc.integer({ min: -12, max: 120 }), (bytes, opType, txnType) => {
        expectJuteErrorOrValue(() => decodeClientFrame(bytes, "request"));
        expectJuteErrorOrValue(() => decodeClientFrame(bytes, "connect"));
        expectJuteErrorOrValue(() => decodeReply(bytes, opType));
        expectJuteErrorOrValue(() => decodeServerFrame(bytes, "connect"));
        expectJuteErrorOrValue(() => decodeTxnEntry(bytes));
        expectJuteErrorOrValue(() => decodeTxn(txnType, bytes));
      }),
      { ...RUNS, numRuns: 3000 },
    );
  });

  it("proto: codec: an unknown or unmodelled op is `unsupported`; encoding a record that does not fit its op is a bug", () => {
    const header = (type: number): Uint8Array => encodeClientFrame({ kind: "request", header: { xid: 1, type: 11 }, request: { kind: "Empty" } }).map((b, i) => (i === 7 ? type : b));
    for (const type of [99, 1000]) {
      try {
        decodeClientFrame(header(type), "request");
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(JuteError);
        expect((err as JuteError).reason).toBe("unsupported");
      }
    }
    // reconfig (16) is modelled: a ReconfigRequest (three nullable strings, curConfigId).
    const reconfig = Uint8Array.from([0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 1, 0x31, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255]);
    expect(decodeClientFrame(reconfig, "request")).toEqual({ kind: "request", header: { xid: 1, type: 16 }, request: { kind: "ReconfigRequest", joiningServers: "1", leavingServers: null, newMembers: null, curConfigId: -1n } });
    // sasl (102) is modelled: a GetSASLRequest with an empty token (how DIGEST-MD5 starts).
    const sasl = Uint8Array.from([0, 0, 0, 1, 0, 0, 0, 102, 0, 0, 0, 0]); // xid, type, token length
    expect(decodeClientFrame(sasl, "request")).toEqual({ kind: "request", header: { xid: 1, type: 102 }, request: { kind: "GetSASLRequest", token: new Uint8Array(0) } });
    expect(() =>
      encodeClientFrame({ kind: "request", header: { xid: 1, type: 1 }, request: { kind: "DeleteRequest", path: "/a", version: 0 } }),
    ).toThrow(/invariant/);
  });

  it("proto: codec: random mutations of valid requests never escape as anything but a JuteError", () => {
    fc.assert(
      fc.property(requestFrame, fc.nat(), fc.integer({ min: 0, max: 255 }), (frame, at, value) => {
        const bytes = encodeClientFrame(frame).slice();
        bytes[at % bytes.length] = value;
        expectJuteErrorOrValue(() => decodeClientFrame(bytes, "request"));
      }),
      { ...RUNS, numRuns: 2000 },
    );
  });
});
