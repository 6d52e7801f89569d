/**
 * Which Jute record travels with which operation (docs/zookeeper.md §9.3, §4, §9.4): the data the
 * codec dispatches on, kept apart so it reads as the table in docs/zookeeper.md §9.3 does.
 *
 * - A request's record is chosen by `RequestHeader.type`; create, create2 and
 *   createContainer all carry a CreateRequest.
 * - A reply's record is chosen by the op type of the request it answers (the wire does not
 *   say), and only when `ReplyHeader.err == 0`. Notifications (xid −1) carry a WatcherEvent.
 * - A txn's body is chosen by `TxnHeader.type` (or the `type` of a MultiTxn element).
 * - `null` marks ops this model does not carry (server-internal ops such as createSession).
 */
import { OpCode } from "./op-code.js";
import type { RequestRecord, ResponseRecord } from "./packets.js";
import type { Txn } from "./txn.js";

export type RequestKind = RequestRecord["kind"];
export type ResponseKind = ResponseRecord["kind"];
export type TxnKind = Txn["kind"];

/** Request record carried by each client op (after the RequestHeader). */
export const REQUEST_KIND_BY_OP: ReadonlyMap<number, RequestKind> = new Map<number, RequestKind>([
  [OpCode.create, "CreateRequest"],
  [OpCode.create2, "CreateRequest"],
  [OpCode.createContainer, "CreateRequest"],
  [OpCode.createTTL, "CreateTTLRequest"],
  [OpCode.delete, "DeleteRequest"],
  [OpCode.exists, "ExistsRequest"],
  [OpCode.getData, "GetDataRequest"],
  [OpCode.setData, "SetDataRequest"],
  [OpCode.getACL, "GetACLRequest"],
  [OpCode.setACL, "SetACLRequest"],
  [OpCode.getChildren, "GetChildrenRequest"],
  [OpCode.sync, "SyncRequest"],
  [OpCode.ping, "Empty"],
  [OpCode.getChildren2, "GetChildren2Request"],
  [OpCode.check, "CheckVersionRequest"],
  [OpCode.multi, "MultiOperationRecord"],
  [OpCode.checkWatches, "CheckWatchesRequest"],
  [OpCode.removeWatches, "RemoveWatchesRequest"],
  [OpCode.deleteContainer, "DeleteContainerRequest"],
  [OpCode.multiRead, "MultiOperationRecord"],
  [OpCode.auth, "AuthPacket"],
  [OpCode.setWatches, "SetWatches"],
  [OpCode.getEphemerals, "GetEphemeralsRequest"],
  [OpCode.getAllChildrenNumber, "GetAllChildrenNumberRequest"],
  [OpCode.setWatches2, "SetWatches2"],
  [OpCode.addWatch, "AddWatchRequest"],
  [OpCode.whoAmI, "Empty"],
  [OpCode.closeSession, "Empty"],
  [OpCode.sasl, "GetSASLRequest"],
  [OpCode.reconfig, "ReconfigRequest"],
]);

/** Ops a client may send that this model does not carry (packets.ts has no record for them). */
export const UNSUPPORTED_REQUEST_OPS: ReadonlySet<number> = new Set<number>();

/** Response record of a successful reply, by the op type of the request. */
export const RESPONSE_KIND_BY_OP: ReadonlyMap<number, ResponseKind> = new Map<number, ResponseKind>([
  [OpCode.create, "CreateResponse"],
  [OpCode.create2, "Create2Response"],
  [OpCode.createContainer, "Create2Response"],
  [OpCode.createTTL, "Create2Response"],
  [OpCode.delete, "Empty"],
  [OpCode.exists, "ExistsResponse"],
  [OpCode.getData, "GetDataResponse"],
  [OpCode.setData, "SetDataResponse"],
  [OpCode.getACL, "GetACLResponse"],
  [OpCode.setACL, "SetACLResponse"],
  [OpCode.getChildren, "GetChildrenResponse"],
  [OpCode.sync, "SyncResponse"],
  [OpCode.ping, "Empty"],
  [OpCode.getChildren2, "GetChildren2Response"],
  [OpCode.check, "Empty"],
  [OpCode.multi, "MultiResponse"],
  [OpCode.reconfig, "GetDataResponse"],
  [OpCode.checkWatches, "Empty"],
  [OpCode.removeWatches, "Empty"],
  [OpCode.deleteContainer, "Empty"],
  [OpCode.multiRead, "MultiResponse"],
  [OpCode.auth, "Empty"],
  [OpCode.setWatches, "Empty"],
  [OpCode.getEphemerals, "GetEphemeralsResponse"],
  [OpCode.getAllChildrenNumber, "GetAllChildrenNumberResponse"],
  [OpCode.setWatches2, "Empty"],
  [OpCode.addWatch, "ErrorResponse"],
  [OpCode.whoAmI, "WhoAmIResponse"],
  [OpCode.closeSession, "Empty"],
  [OpCode.sasl, "SetSASLResponse"],
]);

/** Sub-op types `MultiOperationRecord.deserialize` accepts, with their request record. */
export const MULTI_OP_KIND_BY_TYPE: ReadonlyMap<number, RequestKind> = new Map<number, RequestKind>([
  [OpCode.create, "CreateRequest"],
  [OpCode.create2, "CreateRequest"],
  [OpCode.createContainer, "CreateRequest"],
  [OpCode.createTTL, "CreateTTLRequest"],
  [OpCode.delete, "DeleteRequest"],
  [OpCode.setData, "SetDataRequest"],
  [OpCode.check, "CheckVersionRequest"],
  [OpCode.getChildren, "GetChildrenRequest"],
  [OpCode.getData, "GetDataRequest"],
]);

/**
 * Result types `MultiResponse` carries, with their record (`null` = no body). The server
 * reports createTTL/createContainer results as create2 (`OpResult.CreateResult(path, stat)`).
 */
export const MULTI_RESULT_KIND_BY_TYPE: ReadonlyMap<number, ResponseKind | null> = new Map<
  number,
  ResponseKind | null
>([
  [OpCode.create, "CreateResponse"],
  [OpCode.create2, "Create2Response"],
  [OpCode.delete, null],
  [OpCode.check, null],
  [OpCode.setData, "SetDataResponse"],
  [OpCode.getChildren, "GetChildrenResponse"],
  [OpCode.getData, "GetDataResponse"],
  [OpCode.error, "ErrorResponse"],
]);

/** Txn body by TxnHeader.type (`SerializeUtils.deserializeTxn`). */
export const TXN_KIND_BY_TYPE: ReadonlyMap<number, TxnKind> = new Map<number, TxnKind>([
  [OpCode.create, "CreateTxn"],
  [OpCode.create2, "CreateTxn"],
  [OpCode.createContainer, "CreateContainerTxn"],
  [OpCode.createTTL, "CreateTTLTxn"],
  [OpCode.delete, "DeleteTxn"],
  [OpCode.deleteContainer, "DeleteTxn"],
  [OpCode.setData, "SetDataTxn"],
  [OpCode.reconfig, "SetDataTxn"],
  [OpCode.setACL, "SetACLTxn"],
  [OpCode.check, "CheckVersionTxn"],
  [OpCode.createSession, "CreateSessionTxn"],
  [OpCode.closeSession, "CloseSessionTxn"],
  [OpCode.error, "ErrorTxn"],
  [OpCode.multi, "MultiTxn"],
]);

/**
 * Four-letter words a 3.8.0 server recognises in the first 4 bytes of a connection
 * (`FourLetterCommands.isKnown`, checked against the 3.8.0 jar; `icfg`/`sysp` came later).
 */
export const FOUR_LETTER_WORDS = [
  "conf",
  "cons",
  "crst",
  "dirs",
  "dump",
  "envi",
  "gtmk",
  "ruok",
  "stmk",
  "srst",
  "srvr",
  "stat",
  "wchc",
  "wchp",
  "wchs",
  "mntr",
  "isro",
  "hash",
] as const;
export type FourLetterWord = (typeof FOUR_LETTER_WORDS)[number];

/** The telnet close sequence (0xfff4fffd): a known command that just closes the connection. */
export const TELNET_CLOSE_WORD = 0xfff4fffd | 0;
