/**
 * The ZooKeeper handle as the public API shows it: the client's operations and session
 * accessors (the promise API of src/zk/client/zoo-keeper.ts) and nothing of its machinery — no
 * connection object, watch book or constructor. A structural type, so a handle from one copy of
 * the package (the CLI's) fits code typed against another (a user's node_modules), and `create`
 * takes a `CreateMode` value, not any number. Types only.
 */
import type { ZooKeeper as ZooKeeperClient } from "../zk/client/index.js";
import type { OpData } from "../zk/client/op.js";
import type { ACL, CreateModeFlag, Stat } from "../zk/proto/records.js";

/** The operations and accessors a user's code calls. */
type ClientApi =
  | "getSessionId"
  | "getSessionIdHex"
  | "getSessionPasswd"
  | "getSessionTimeout"
  | "getState"
  | "getLastZxid"
  | "register"
  | "delete"
  | "setData"
  | "setACL"
  | "exists"
  | "getData"
  | "getChildren"
  | "getChildren2"
  | "getACL"
  | "sync"
  | "getEphemerals"
  | "getAllChildrenNumber"
  | "whoAmI"
  | "multi"
  | "multiRead"
  | "addWatch"
  | "removeWatches"
  | "removeAllWatches"
  | "addAuthInfo"
  | "close";

/** A ZooKeeper handle (docs/api.md, "The ZooKeeper client"). */
export interface ZooKeeper extends Pick<ZooKeeperClient, ClientApi> {
  /** Creates `path`; `mode` is a `CreateMode` (`CreateMode.EPHEMERAL_SEQUENTIAL`); `ttl` for the TTL modes. Resolves to the path created. */
  create(path: string, data: OpData, acl: ACL[], mode: CreateModeFlag, ttl?: number): Promise<string>;
  /** `create`, resolving to the path created and its Stat. */
  create2(path: string, data: OpData, acl: ACL[], mode: CreateModeFlag, ttl?: number): Promise<{ path: string; stat: Stat }>;
}
