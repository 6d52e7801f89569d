/**
 * `Op` and `OpResult` (Java `org.apache.zookeeper.Op` / `OpResult`): the sub-operations of
 * `multi` (create, delete, setData, check) and `multiRead` (getData, getChildren), and what
 * each one yields (docs/zookeeper.md §4).
 *
 * Invariants:
 * - An `Op` carries the *client* path; the handle prefixes the chroot when it builds the
 *   wire record, and strips it from create results.
 * - Sub-op opcodes are chosen as the Java `Op` classes choose them: create → create (1),
 *   or createContainer (19) for CONTAINER, or createTTL (21) for TTL modes.
 */
import { OpCode } from "../proto/op-code.js";
import type { MultiOp, MultiResult } from "../proto/packets.js";
import { isContainerMode, isTTLMode, type ACL, type Stat } from "../proto/records.js";

export type OpData = Uint8Array | string | null;

export type Op =
  | { kind: "create"; path: string; data: OpData; acl: ACL[]; mode: number; ttl?: number }
  | { kind: "delete"; path: string; version: number }
  | { kind: "setData"; path: string; data: OpData; version: number }
  | { kind: "check"; path: string; version: number }
  | { kind: "getData"; path: string }
  | { kind: "getChildren"; path: string };

/** Builders named like the Java static factories (`Op.create(...)`, `Op.check(...)`). */
export const Op = {
  create(path: string, data: OpData, acl: ACL[], mode: number, ttl?: number): Op {
    return ttl === undefined ? { kind: "create", path, data, acl, mode } : { kind: "create", path, data, acl, mode, ttl };
  },
  delete(path: string, version: number): Op {
    return { kind: "delete", path, version };
  },
  setData(path: string, data: OpData, version: number): Op {
    return { kind: "setData", path, data, version };
  },
  check(path: string, version: number): Op {
    return { kind: "check", path, version };
  },
  getData(path: string): Op {
    return { kind: "getData", path };
  },
  getChildren(path: string): Op {
    return { kind: "getChildren", path };
  },
};

/** Whether an op belongs to `multi` (a transaction) or `multiRead` (Java `Op.OpKind`). */
export function isReadOp(op: Op): boolean {
  return op.kind === "getData" || op.kind === "getChildren";
}

export type OpResult =
  | { kind: "create"; path: string; stat?: Stat }
  | { kind: "delete" }
  | { kind: "setData"; stat: Stat }
  | { kind: "check" }
  | { kind: "getData"; data: Uint8Array | null; stat: Stat }
  | { kind: "getChildren"; children: string[] }
  | { kind: "error"; err: number };

const encoder = new TextEncoder();

/** String data as UTF-8, as the Java client's `String.getBytes()` would send it. */
export function toBytes(data: OpData): Uint8Array | null {
  if (typeof data !== "string") return data;
  // Short ASCII strings (the common case) by hand: TextEncoder's call overhead dominates them.
  const n = data.length;
  if (n <= 64) {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const c = data.charCodeAt(i);
      if (c > 0x7f) return encoder.encode(data);
      out[i] = c;
    }
    return out;
  }
  return encoder.encode(data);
}

/** The wire sub-op for `op`, whose path is already the server path. */
export function toMultiOp(op: Op, serverPath: string): MultiOp {
  switch (op.kind) {
    case "create": {
      if (isTTLMode(op.mode)) {
        return {
          type: OpCode.createTTL,
          request: { kind: "CreateTTLRequest", path: serverPath, data: toBytes(op.data), acl: op.acl, flags: op.mode, ttl: op.ttl ?? -1 },
        };
      }
      const type = isContainerMode(op.mode) ? OpCode.createContainer : OpCode.create;
      return { type, request: { kind: "CreateRequest", path: serverPath, data: toBytes(op.data), acl: op.acl, flags: op.mode } };
    }
    case "delete":
      return { type: OpCode.delete, request: { kind: "DeleteRequest", path: serverPath, version: op.version } };
    case "setData":
      return { type: OpCode.setData, request: { kind: "SetDataRequest", path: serverPath, data: toBytes(op.data), version: op.version } };
    case "check":
      return { type: OpCode.check, request: { kind: "CheckVersionRequest", path: serverPath, version: op.version } };
    case "getData":
      return { type: OpCode.getData, request: { kind: "GetDataRequest", path: serverPath, watch: false } };
    case "getChildren":
      return { type: OpCode.getChildren, request: { kind: "GetChildrenRequest", path: serverPath, watch: false } };
  }
}

/** A wire multi result as the user sees it; `stripPath` turns a server path into a client path. */
export function toOpResult(r: MultiResult, stripPath: (p: string) => string): OpResult {
  const rsp = r.response;
  if (r.type === OpCode.error || rsp?.kind === "ErrorResponse") return { kind: "error", err: rsp?.kind === "ErrorResponse" ? rsp.err : r.err };
  if (r.type === OpCode.delete) return { kind: "delete" };
  if (r.type === OpCode.check) return { kind: "check" };
  switch (rsp?.kind) {
    case "CreateResponse":
      return { kind: "create", path: stripPath(rsp.path) };
    case "Create2Response":
      return { kind: "create", path: stripPath(rsp.path), stat: rsp.stat };
    case "SetDataResponse":
      return { kind: "setData", stat: rsp.stat };
    case "GetDataResponse":
      return { kind: "getData", data: rsp.data, stat: rsp.stat };
    case "GetChildrenResponse":
      return { kind: "getChildren", children: rsp.children };
    default:
      return { kind: "error", err: r.err };
  }
}
