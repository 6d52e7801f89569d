/**
 * Transaction records (`org.apache.zookeeper.txn` in `zookeeper.jute`): what the leader's
 * PrepRequestProcessor produces, what is proposed, logged, committed and applied by every
 * replica's DataTree. The `type` of a TxnHeader is an OpCode number; the body is a
 * discriminated union on `kind` named after the Jute record. A `data` of `null` is Jute's
 * buffer length −1 (what the Java client's `create(path, null, …)` / `setData(path, null, …)`
 * send); the tree stores it as null, as Java's DataTree does.
 */
import type { ACL, SessionId, Zxid } from "./records.js";

export interface TxnHeader {
  clientId: SessionId;
  cxid: number;
  zxid: Zxid;
  /** Leader wall clock (ms) when the request was prepared; every replica uses it. */
  time: number;
  /** OpCode number of the txn (create 1, delete 2, setData 5, multi 14, error −1, …). */
  type: number;
}

export interface CreateTxn {
  kind: "CreateTxn";
  path: string;
  data: Uint8Array | null;
  acl: ACL[];
  ephemeral: boolean;
  parentCVersion: number;
}
export interface CreateContainerTxn {
  kind: "CreateContainerTxn";
  path: string;
  data: Uint8Array | null;
  acl: ACL[];
  parentCVersion: number;
}
export interface CreateTTLTxn {
  kind: "CreateTTLTxn";
  path: string;
  data: Uint8Array | null;
  acl: ACL[];
  parentCVersion: number;
  ttl: number;
}
export interface DeleteTxn {
  kind: "DeleteTxn";
  path: string;
}
export interface SetDataTxn {
  kind: "SetDataTxn";
  path: string;
  data: Uint8Array | null;
  /** The new version. */
  version: number;
}
export interface SetACLTxn {
  kind: "SetACLTxn";
  path: string;
  acl: ACL[];
  /** The new aversion. */
  version: number;
}
export interface CheckVersionTxn {
  kind: "CheckVersionTxn";
  path: string;
  version: number;
}
export interface CreateSessionTxn {
  kind: "CreateSessionTxn";
  timeOut: number;
}
export interface CloseSessionTxn {
  kind: "CloseSessionTxn";
  paths2Delete: string[];
}
export interface ErrorTxn {
  kind: "ErrorTxn";
  err: number;
}
/** One element of a MultiTxn: the sub-txn's OpCode type and its body. */
export interface MultiSubTxn {
  type: number;
  txn: Txn;
}
export interface MultiTxn {
  kind: "MultiTxn";
  txns: MultiSubTxn[];
}

export type Txn =
  | CreateTxn
  | CreateContainerTxn
  | CreateTTLTxn
  | DeleteTxn
  | SetDataTxn
  | SetACLTxn
  | CheckVersionTxn
  | CreateSessionTxn
  | CloseSessionTxn
  | ErrorTxn
  | MultiTxn;

/** A logged / proposed transaction: header plus body. */
export interface TxnEntry {
  header: TxnHeader;
  txn: Txn;
}
