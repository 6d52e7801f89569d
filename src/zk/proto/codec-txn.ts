/**
 * Jute txn records (docs/zookeeper.md §9.3): TxnHeader and every txn body, as the txn log, snapshots
 * and quorum PROPOSALs carry them, with their encoded sizes.
 */
import { invariant, unreachable } from "../../base/errors.js";
import { JuteReader, JuteSizer, type JuteSink } from "./jute.js";
import { opName } from "./op-code.js";
import { TXN_KIND_BY_TYPE, type TxnKind } from "./registry-doc.js";
import type { MultiSubTxn, Txn, TxnEntry, TxnHeader } from "./txn.js";
import { readAclVector, scratchWriter, writeAclVector } from "./codec-records.js";

// ---- txns ---------------------------------------------------------------------------------

export function writeTxnHeader(s: JuteSink, h: TxnHeader): void {
  s.writeLong(h.clientId);
  s.writeInt(h.cxid);
  s.writeLong(h.zxid);
  s.writeLongNumber(h.time);
  s.writeInt(h.type);
}

export function readTxnHeader(r: JuteReader): TxnHeader {
  return {
    clientId: r.readLong("TxnHeader.clientId"),
    cxid: r.readInt("TxnHeader.cxid"),
    zxid: r.readLong("TxnHeader.zxid"),
    time: r.readLongNumber("TxnHeader.time"),
    type: r.readInt("TxnHeader.type"),
  };
}

export function writeTxn(s: JuteSink, txn: Txn): void {
  switch (txn.kind) {
    case "CreateTxn":
    case "CreateContainerTxn":
    case "CreateTTLTxn":
      s.writeUString(txn.path);
      s.writeBuffer(txn.data);
      writeAclVector(s, txn.acl);
      if (txn.kind === "CreateTxn") s.writeBool(txn.ephemeral);
      s.writeInt(txn.parentCVersion);
      if (txn.kind === "CreateTTLTxn") s.writeLongNumber(txn.ttl);
      return;
    case "DeleteTxn":
      s.writeUString(txn.path);
      return;
    case "SetDataTxn":
      s.writeUString(txn.path);
      s.writeBuffer(txn.data);
      s.writeInt(txn.version);
      return;
    case "SetACLTxn":
      s.writeUString(txn.path);
      writeAclVector(s, txn.acl);
      s.writeInt(txn.version);
      return;
    case "CheckVersionTxn":
      s.writeUString(txn.path);
      s.writeInt(txn.version);
      return;
    case "CreateSessionTxn":
      s.writeInt(txn.timeOut);
      return;
    case "CloseSessionTxn":
      s.writeStringVector(txn.paths2Delete);
      return;
    case "ErrorTxn":
      s.writeInt(txn.err);
      return;
    case "MultiTxn":
      s.writeVector(txn.txns, writeMultiSubTxn);
      return;
    default:
      unreachable(txn);
  }
}

/** `Txn{type, data:buffer}`: the sub-txn body serialised into a length-prefixed buffer. */
function writeMultiSubTxn(s: JuteSink, sub: MultiSubTxn): void {
  assertTxnFitsType(sub.type, sub.txn.kind);
  s.writeInt(sub.type);
  s.writeInt(txnSize(sub.txn));
  writeTxn(s, sub.txn);
}

function assertTxnFitsType(type: number, kind: TxnKind): void {
  if (TXN_KIND_BY_TYPE.get(type) !== kind) invariant(false, `txn type ${opName(type)} cannot carry ${kind}`);
}

export function readTxn(r: JuteReader, type: number): Txn {
  const kind = TXN_KIND_BY_TYPE.get(type);
  if (kind === undefined) r.fail("TxnHeader.type", `no txn body for type ${type}`, "unsupported");
  switch (kind) {
    case "CreateTxn":
    case "CreateContainerTxn":
    case "CreateTTLTxn": {
      const path = r.readString(kind, "path");
      const data = r.readBuffer(kind, "data");
      const acl = readAclVector(r, kind, "acl");
      if (kind === "CreateTxn") {
        const ephemeral = r.readBool(kind, "ephemeral");
        return { kind, path, data, acl, ephemeral, parentCVersion: r.readInt(kind, "parentCVersion") };
      }
      const parentCVersion = r.readInt(kind, "parentCVersion");
      if (kind === "CreateContainerTxn") return { kind, path, data, acl, parentCVersion };
      return { kind, path, data, acl, parentCVersion, ttl: r.readLongNumber(kind, "ttl") };
    }
    case "DeleteTxn":
      return { kind, path: r.readString(kind, "path") };
    case "SetDataTxn":
      return {
        kind,
        path: r.readString(kind, "path"),
        data: r.readBuffer(kind, "data"),
        version: r.readInt(kind, "version"),
      };
    case "SetACLTxn":
      return { kind, path: r.readString(kind, "path"), acl: readAclVector(r, kind, "acl"), version: r.readInt(kind, "version") };
    case "CheckVersionTxn":
      return { kind, path: r.readString(kind, "path"), version: r.readInt(kind, "version") };
    case "CreateSessionTxn":
      return { kind, timeOut: r.readInt(kind, "timeOut") };
    case "CloseSessionTxn":
      return { kind, paths2Delete: r.readStringVector(kind, "paths2Delete") };
    case "ErrorTxn":
      return { kind, err: r.readInt(kind, "err") };
    case "MultiTxn":
      return { kind, txns: r.readVector(`${kind}.txns`, (rr, i) => readMultiSubTxn(rr, `${kind}.txns[${i}]`)) };
    default:
      return unreachable(kind);
  }
}

function readMultiSubTxn(r: JuteReader, field: string): MultiSubTxn {
  const type = r.readInt(`${field}.type`);
  const data = r.readBufferNonNull(`${field}.data`);
  return { type, txn: readTxn(new JuteReader(data), type) };
}

/** Bytes of a txn body alone. */
export function txnSize(txn: Txn): number {
  const sizer = new JuteSizer();
  writeTxn(sizer, txn);
  return sizer.size;
}

/** Bytes of a TxnHeader + body, as logged and proposed. */
export function txnEntrySize(entry: TxnEntry): number {
  const sizer = new JuteSizer();
  writeTxnEntry(sizer, entry);
  return sizer.size;
}

export function writeTxnEntry(s: JuteSink, entry: TxnEntry): void {
  assertTxnFitsType(entry.header.type, entry.txn.kind);
  writeTxnHeader(s, entry.header);
  writeTxn(s, entry.txn);
}

export function encodeTxn(txn: Txn): Uint8Array {
  const w = scratchWriter();
  writeTxn(w, txn);
  return w.toBytes();
}

export function decodeTxn(type: number, bytes: Uint8Array): Txn {
  return readTxn(new JuteReader(bytes), type);
}

export function encodeTxnEntry(entry: TxnEntry): Uint8Array {
  const w = scratchWriter();
  writeTxnEntry(w, entry);
  return w.toBytes();
}

export function decodeTxnEntry(bytes: Uint8Array): TxnEntry {
  const r = new JuteReader(bytes);
  const header = readTxnHeader(r);
  return { header, txn: readTxn(r, header.type) };
}
