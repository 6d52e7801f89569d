/**
 * fast-check arbitraries for every Jute record the codec carries, generated per op type so
 * that a frame's record always fits its header (as the encoder demands). Strings stay in the
 * BMP without surrogates: those are the strings Java's Jute round-trips unchanged (see
 * jute.ts for what happens to the others).
 */
import fc from "fast-check";
import type { ClientFrame, MultiOp, MultiResult, RequestRecord, ResponseRecord, ServerFrame } from "../../../src/zk/proto/packets.js";
import type { ACL, Stat } from "../../../src/zk/proto/records.js";
import type { RequestKind, ResponseKind } from "../../../src/zk/proto/registry-doc.js";
import {
  MULTI_OP_KIND_BY_TYPE,
  REQUEST_KIND_BY_OP,
  RESPONSE_KIND_BY_OP,
} from "../../../src/zk/proto/registry-doc.js";
import { OpCode } from "../../../src/zk/proto/op-code.js";
import type { MultiSubTxn, Txn, TxnEntry } from "../../../src/zk/proto/txn.js";

const bmpChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0, max: 0xd7ff }),
  fc.integer({ min: 0xe000, max: 0xffff }),
).map((c) => String.fromCharCode(c));

export const str = fc.string({ unit: bmpChar, maxLength: 12 });
export const path = fc.array(fc.string({ unit: bmpChar, minLength: 1, maxLength: 6 }), { maxLength: 3 }).map(
  (parts) => "/" + parts.join("/"),
);
export const int32 = fc.integer();
export const long = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
export const longNumber = fc.maxSafeInteger();
export const bytes = fc.uint8Array({ maxLength: 24 });
export const maybeBytes = fc.option(bytes, { nil: null });
export const strings = fc.array(path, { maxLength: 4 });

export const stat: fc.Arbitrary<Stat> = fc.record({
  czxid: long,
  mzxid: long,
  ctime: longNumber,
  mtime: longNumber,
  version: int32,
  cversion: int32,
  aversion: int32,
  ephemeralOwner: long,
  dataLength: int32,
  numChildren: int32,
  pzxid: long,
});

export const acl: fc.Arbitrary<ACL> = fc.record({
  perms: int32,
  id: fc.record({ scheme: str, id: str }),
});
export const acls = fc.array(acl, { maxLength: 3 });

function multiOps(types: readonly number[]): fc.Arbitrary<MultiOp[]> {
  const op = fc.constantFrom(...types).chain((type) =>
    requestRecord(MULTI_OP_KIND_BY_TYPE.get(type)!).map((request) => ({ type, request }) as MultiOp),
  );
  return fc.array(op, { maxLength: 4 });
}

export function requestRecord(kind: RequestKind): fc.Arbitrary<RequestRecord> {
  switch (kind) {
    case "CreateRequest":
      return fc.record({ kind: fc.constant(kind), path, data: maybeBytes, acl: acls, flags: int32 });
    case "CreateTTLRequest":
      return fc.record({ kind: fc.constant(kind), path, data: maybeBytes, acl: acls, flags: int32, ttl: longNumber });
    case "DeleteRequest":
    case "CheckVersionRequest":
      return fc.record({ kind: fc.constant(kind), path, version: int32 });
    case "ExistsRequest":
    case "GetDataRequest":
    case "GetChildrenRequest":
    case "GetChildren2Request":
      return fc.record({ kind: fc.constant(kind), path, watch: fc.boolean() });
    case "SetDataRequest":
      return fc.record({ kind: fc.constant(kind), path, data: maybeBytes, version: int32 });
    case "GetACLRequest":
    case "SyncRequest":
    case "GetAllChildrenNumberRequest":
    case "DeleteContainerRequest":
      return fc.record({ kind: fc.constant(kind), path });
    case "SetACLRequest":
      return fc.record({ kind: fc.constant(kind), path, acl: acls, version: int32 });
    case "MultiOperationRecord":
      return fc.record({ kind: fc.constant(kind), ops: multiOps([...MULTI_OP_KIND_BY_TYPE.keys()]) });
    case "CheckWatchesRequest":
    case "RemoveWatchesRequest":
      return fc.record({ kind: fc.constant(kind), path, type: int32 });
    case "AuthPacket":
      return fc.record({ kind: fc.constant(kind), type: int32, scheme: str, auth: bytes });
    case "SetWatches":
      return fc.record({
        kind: fc.constant(kind),
        relativeZxid: long,
        dataWatches: strings,
        existWatches: strings,
        childWatches: strings,
      });
    case "SetWatches2":
      return fc.record({
        kind: fc.constant(kind),
        relativeZxid: long,
        dataWatches: strings,
        existWatches: strings,
        childWatches: strings,
        persistentWatches: strings,
        persistentRecursiveWatches: strings,
      });
    case "GetEphemeralsRequest":
      return fc.record({ kind: fc.constant(kind), prefixPath: path });
    case "AddWatchRequest":
      return fc.record({ kind: fc.constant(kind), path, mode: int32 });
    case "GetSASLRequest":
      return fc.record({ kind: fc.constant(kind), token: bytes });
    case "ReconfigRequest":
      return fc.record({ kind: fc.constant(kind), joiningServers: fc.option(str, { nil: null }), leavingServers: fc.option(str, { nil: null }), newMembers: fc.option(str, { nil: null }), curConfigId: long });
    case "Empty":
      return fc.constant({ kind });
  }
}

const errorCode = fc.integer({ min: -130, max: -1 });

const multiResult: fc.Arbitrary<MultiResult> = fc.oneof(
  path.map((p): MultiResult => ({ type: OpCode.create, err: 0, response: { kind: "CreateResponse", path: p } })),
  fc.tuple(path, stat).map(([p, s]): MultiResult => ({
    type: OpCode.create2,
    err: 0,
    response: { kind: "Create2Response", path: p, stat: s },
  })),
  fc.constantFrom(OpCode.delete, OpCode.check).map((type): MultiResult => ({ type, err: 0, response: null })),
  stat.map((s): MultiResult => ({ type: OpCode.setData, err: 0, response: { kind: "SetDataResponse", stat: s } })),
  strings.map((c): MultiResult => ({
    type: OpCode.getChildren,
    err: 0,
    response: { kind: "GetChildrenResponse", children: c },
  })),
  fc.tuple(maybeBytes, stat).map(([d, s]): MultiResult => ({
    type: OpCode.getData,
    err: 0,
    response: { kind: "GetDataResponse", data: d, stat: s },
  })),
  fc.oneof(errorCode, fc.constant(0)).map((err): MultiResult => ({
    type: OpCode.error,
    err,
    response: { kind: "ErrorResponse", err },
  })),
);

export function responseRecord(kind: ResponseKind): fc.Arbitrary<ResponseRecord> {
  switch (kind) {
    case "CreateResponse":
    case "SyncResponse":
      return fc.record({ kind: fc.constant(kind), path });
    case "Create2Response":
      return fc.record({ kind: fc.constant(kind), path, stat });
    case "ExistsResponse":
    case "SetDataResponse":
    case "SetACLResponse":
      return fc.record({ kind: fc.constant(kind), stat });
    case "GetDataResponse":
      return fc.record({ kind: fc.constant(kind), data: maybeBytes, stat });
    case "GetACLResponse":
      return fc.record({ kind: fc.constant(kind), acl: acls, stat });
    case "GetChildrenResponse":
      return fc.record({ kind: fc.constant(kind), children: strings });
    case "GetChildren2Response":
      return fc.record({ kind: fc.constant(kind), children: strings, stat });
    case "GetEphemeralsResponse":
      return fc.record({ kind: fc.constant(kind), ephemerals: strings });
    case "GetAllChildrenNumberResponse":
      return fc.record({ kind: fc.constant(kind), totalNumber: int32 });
    case "ErrorResponse":
      return fc.record({ kind: fc.constant(kind), err: int32 });
    case "WhoAmIResponse":
      return fc.record({
        kind: fc.constant(kind),
        clientInfo: fc.array(fc.record({ authScheme: str, user: str }), { maxLength: 3 }),
      });
    case "SetSASLResponse":
      return fc.record({ kind: fc.constant(kind), token: maybeBytes });
    case "MultiResponse":
      return fc.record({ kind: fc.constant(kind), results: fc.array(multiResult, { maxLength: 4 }) });
    case "WatcherEvent":
      return fc.record({
        kind: fc.constant(kind),
        event: fc.record({ type: int32, state: int32, path }),
      });
    case "Empty":
      return fc.constant({ kind });
  }
}

export const connectRequestFrame: fc.Arbitrary<ClientFrame> = fc.record({
  kind: fc.constant("connect" as const),
  request: fc.record({
    kind: fc.constant("ConnectRequest" as const),
    protocolVersion: int32,
    lastZxidSeen: long,
    timeOut: int32,
    sessionId: long,
    passwd: bytes,
    readOnly: fc.boolean(),
  }),
});

/** A request frame for some client op, with the op type. */
export const requestFrame: fc.Arbitrary<ClientFrame & { kind: "request" }> = fc
  .constantFrom(...REQUEST_KIND_BY_OP.entries())
  .chain(([type, kind]) =>
    fc.record({
      kind: fc.constant("request" as const),
      header: fc.record({ xid: int32, type: fc.constant(type) }),
      request: requestRecord(kind),
    }),
  );

export const connectResponseFrame: fc.Arbitrary<ServerFrame> = fc.record({
  kind: fc.constant("connect" as const),
  response: fc.record({
    kind: fc.constant("ConnectResponse" as const),
    protocolVersion: int32,
    timeOut: int32,
    sessionId: long,
    passwd: bytes,
    readOnly: fc.boolean(),
  }),
});

/** A reply with the op type it answers: success with a body, an error, or a notification. */
export const replyFrame: fc.Arbitrary<{ opType: number; frame: ServerFrame }> = fc.oneof(
  fc.constantFrom(...RESPONSE_KIND_BY_OP.entries()).chain(([opType, kind]) =>
    fc.record({
      opType: fc.constant(opType),
      frame: fc.record({
        kind: fc.constant("reply" as const),
        header: fc.record({ xid: fc.integer({ min: 1, max: 0x7fffffff }), zxid: long, err: fc.constant(0) }),
        response: responseRecord(kind),
      }),
    }),
  ),
  fc.record({
    opType: fc.constantFrom(...RESPONSE_KIND_BY_OP.keys()),
    frame: fc.record({
      kind: fc.constant("reply" as const),
      header: fc.record({ xid: fc.integer({ min: 1, max: 0x7fffffff }), zxid: long, err: errorCode }),
      response: fc.constant(null),
    }),
  }),
  fc.record({
    opType: fc.constant(OpCode.notification),
    frame: fc.record({
      kind: fc.constant("reply" as const),
      header: fc.record({ xid: fc.constant(-1), zxid: long, err: fc.constant(0) }),
      response: responseRecord("WatcherEvent"),
    }),
  }),
);

const simpleTxn: fc.Arbitrary<MultiSubTxn> = fc.oneof(
  fc
    .record({ path, data: maybeBytes, acl: acls, ephemeral: fc.boolean(), parentCVersion: int32 })
    .chain((t) => fc.constantFrom(OpCode.create, OpCode.create2).map((type) => ({ type, txn: { kind: "CreateTxn", ...t } as Txn }))),
  fc.record({ path, data: maybeBytes, acl: acls, parentCVersion: int32 }).map((t) => ({
    type: OpCode.createContainer,
    txn: { kind: "CreateContainerTxn", ...t } as Txn,
  })),
  fc.record({ path, data: maybeBytes, acl: acls, parentCVersion: int32, ttl: longNumber }).map((t) => ({
    type: OpCode.createTTL,
    txn: { kind: "CreateTTLTxn", ...t } as Txn,
  })),
  path.chain((p) =>
    fc.constantFrom(OpCode.delete, OpCode.deleteContainer).map((type) => ({ type, txn: { kind: "DeleteTxn", path: p } as Txn })),
  ),
  fc.record({ path, data: maybeBytes, version: int32 }).map((t) => ({ type: OpCode.setData, txn: { kind: "SetDataTxn", ...t } as Txn })),
  fc.record({ path, acl: acls, version: int32 }).map((t) => ({ type: OpCode.setACL, txn: { kind: "SetACLTxn", ...t } as Txn })),
  fc.record({ path, version: int32 }).map((t) => ({ type: OpCode.check, txn: { kind: "CheckVersionTxn", ...t } as Txn })),
  int32.map((timeOut) => ({ type: OpCode.createSession, txn: { kind: "CreateSessionTxn", timeOut } as Txn })),
  strings.map((p) => ({ type: OpCode.closeSession, txn: { kind: "CloseSessionTxn", paths2Delete: p } as Txn })),
  errorCode.map((err) => ({ type: OpCode.error, txn: { kind: "ErrorTxn", err } as Txn })),
);

export const anyTxn: fc.Arbitrary<MultiSubTxn> = fc.oneof(
  simpleTxn,
  fc.array(simpleTxn, { maxLength: 4 }).map((txns) => ({ type: OpCode.multi, txn: { kind: "MultiTxn", txns } as Txn })),
);

export const txnEntry: fc.Arbitrary<TxnEntry> = fc
  .tuple(anyTxn, fc.record({ clientId: long, cxid: int32, zxid: long, time: longNumber }))
  .map(([sub, h]) => ({ header: { ...h, type: sub.type }, txn: sub.txn }));
