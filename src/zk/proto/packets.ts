/**
 * Client protocol packets (docs/zookeeper.md §9.2–9.3): ConnectRequest/Response, RequestHeader +
 * request record, ReplyHeader + response record. Records are discriminated on `kind`
 * named after the Jute record; the operation itself is `RequestHeader.type` (an OpCode),
 * exactly as on the wire — create, create2 and createContainer all carry a CreateRequest.
 */
import type { ACL, ClientInfo, RequestACL, SessionId, Stat, WatcherEvent, Zxid } from "./records.js";

export interface ConnectRequest {
  kind: "ConnectRequest";
  protocolVersion: number;
  lastZxidSeen: Zxid;
  timeOut: number;
  sessionId: SessionId;
  passwd: Uint8Array;
  readOnly: boolean;
}

export interface ConnectResponse {
  kind: "ConnectResponse";
  protocolVersion: number;
  timeOut: number;
  sessionId: SessionId;
  passwd: Uint8Array;
  readOnly: boolean;
}

export interface RequestHeader {
  xid: number;
  type: number;
}

export interface ReplyHeader {
  xid: number;
  zxid: Zxid;
  err: number;
}

// ---- request records -------------------------------------------------------------------

export interface CreateRequest {
  kind: "CreateRequest";
  path: string;
  data: Uint8Array | null;
  acl: RequestACL[];
  flags: number;
}
export interface CreateTTLRequest {
  kind: "CreateTTLRequest";
  path: string;
  data: Uint8Array | null;
  acl: RequestACL[];
  flags: number;
  ttl: number;
}
export interface DeleteRequest {
  kind: "DeleteRequest";
  path: string;
  version: number;
}
/** exists, getData, getChildren, getChildren2 share this shape (`{path, watch}`). */
export interface PathWatchRequest {
  kind: "ExistsRequest" | "GetDataRequest" | "GetChildrenRequest" | "GetChildren2Request";
  path: string;
  watch: boolean;
}
export interface SetDataRequest {
  kind: "SetDataRequest";
  path: string;
  data: Uint8Array | null;
  version: number;
}
/** getACL, sync, getAllChildrenNumber, deleteContainer (`{path}`). */
export interface PathRequest {
  kind: "GetACLRequest" | "SyncRequest" | "GetAllChildrenNumberRequest" | "DeleteContainerRequest";
  path: string;
}
export interface SetACLRequest {
  kind: "SetACLRequest";
  path: string;
  acl: RequestACL[];
  version: number;
}
export interface CheckVersionRequest {
  kind: "CheckVersionRequest";
  path: string;
  version: number;
}
/** One sub-operation of multi / multiRead: its OpCode and request record. */
export interface MultiOp {
  type: number;
  request: CreateRequest | CreateTTLRequest | DeleteRequest | SetDataRequest | CheckVersionRequest | PathWatchRequest;
}
export interface MultiOperationRecord {
  kind: "MultiOperationRecord";
  ops: MultiOp[];
}
export interface WatchesRequest {
  kind: "CheckWatchesRequest" | "RemoveWatchesRequest";
  path: string;
  type: number;
}
export interface AuthPacket {
  kind: "AuthPacket";
  type: number;
  scheme: string;
  auth: Uint8Array;
}
export interface SetWatches {
  kind: "SetWatches";
  relativeZxid: Zxid;
  dataWatches: string[];
  existWatches: string[];
  childWatches: string[];
}
export interface SetWatches2 {
  kind: "SetWatches2";
  relativeZxid: Zxid;
  dataWatches: string[];
  existWatches: string[];
  childWatches: string[];
  persistentWatches: string[];
  persistentRecursiveWatches: string[];
}
export interface GetEphemeralsRequest {
  kind: "GetEphemeralsRequest";
  prefixPath: string;
}
export interface AddWatchRequest {
  kind: "AddWatchRequest";
  path: string;
  mode: number;
}
/** `GetSASLRequest` (op sasl): one SASL token from the client (empty to start DIGEST-MD5). */
export interface GetSASLRequest {
  kind: "GetSASLRequest";
  token: Uint8Array;
}
/** Requests with no body: ping, closeSession, whoAmI. */
export interface EmptyRequest {
  kind: "Empty";
}
/**
 * `ReconfigRequest` (3.5+): incremental (joining / leaving, comma-separated server specs and
 * sids) or non-incremental (`newMembers`, the whole new config); `curConfigId` is the version the
 * change applies to, −1 for any.
 */
export interface ReconfigRequest {
  kind: "ReconfigRequest";
  joiningServers: string | null;
  leavingServers: string | null;
  newMembers: string | null;
  curConfigId: bigint;
}

export type RequestRecord =
  | CreateRequest
  | CreateTTLRequest
  | DeleteRequest
  | PathWatchRequest
  | SetDataRequest
  | PathRequest
  | SetACLRequest
  | CheckVersionRequest
  | MultiOperationRecord
  | WatchesRequest
  | AuthPacket
  | SetWatches
  | SetWatches2
  | GetEphemeralsRequest
  | AddWatchRequest
  | GetSASLRequest
  | ReconfigRequest
  | EmptyRequest;

// ---- response records ------------------------------------------------------------------

export interface CreateResponse {
  kind: "CreateResponse";
  path: string;
}
export interface Create2Response {
  kind: "Create2Response";
  path: string;
  stat: Stat;
}
/** exists, setData, setACL answer a bare Stat. */
export interface StatResponse {
  kind: "ExistsResponse" | "SetDataResponse" | "SetACLResponse";
  stat: Stat;
}
export interface GetDataResponse {
  kind: "GetDataResponse";
  data: Uint8Array | null;
  stat: Stat;
}
export interface GetACLResponse {
  kind: "GetACLResponse";
  acl: ACL[];
  stat: Stat;
}
export interface GetChildrenResponse {
  kind: "GetChildrenResponse";
  children: string[];
}
export interface GetChildren2Response {
  kind: "GetChildren2Response";
  children: string[];
  stat: Stat;
}
export interface SyncResponse {
  kind: "SyncResponse";
  path: string;
}
export interface GetEphemeralsResponse {
  kind: "GetEphemeralsResponse";
  ephemerals: string[];
}
export interface GetAllChildrenNumberResponse {
  kind: "GetAllChildrenNumberResponse";
  totalNumber: number;
}
export interface ErrorResponse {
  kind: "ErrorResponse";
  err: number;
}
export interface WhoAmIResponse {
  kind: "WhoAmIResponse";
  clientInfo: ClientInfo[];
}
/** `SetSASLResponse` (op sasl): the server's next SASL token; null once DIGEST-MD5 needs none. */
export interface SetSASLResponse {
  kind: "SetSASLResponse";
  token: Uint8Array | null;
}
/** One result of multi/multiRead: the OpCode of the result (−1 for errors), its code and record. */
export interface MultiResult {
  type: number;
  err: number;
  response: CreateResponse | Create2Response | StatResponse | GetDataResponse | GetChildrenResponse | ErrorResponse | null;
}
export interface MultiResponse {
  kind: "MultiResponse";
  results: MultiResult[];
}
export interface NotificationResponse {
  kind: "WatcherEvent";
  event: WatcherEvent;
}
/** Replies with no body: delete, ping, auth, setWatches, closeSession, check/removeWatches. */
export interface EmptyResponse {
  kind: "Empty";
}

export type ResponseRecord =
  | CreateResponse
  | Create2Response
  | StatResponse
  | GetDataResponse
  | GetACLResponse
  | GetChildrenResponse
  | GetChildren2Response
  | SyncResponse
  | GetEphemeralsResponse
  | GetAllChildrenNumberResponse
  | ErrorResponse
  | WhoAmIResponse
  | SetSASLResponse
  | MultiResponse
  | NotificationResponse
  | EmptyResponse;

/** Client → server frames on a client connection. */
export type ClientFrame =
  | { kind: "connect"; request: ConnectRequest }
  | { kind: "request"; header: RequestHeader; request: RequestRecord };

/** Server → client frames on a client connection. */
export type ServerFrame =
  | { kind: "connect"; response: ConnectResponse }
  | { kind: "reply"; header: ReplyHeader; response: ResponseRecord | null };
