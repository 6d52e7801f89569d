/**
 * Core ZooKeeper records and enumerations (`zookeeper.jute`, `ZooDefs`, `Watcher`,
 * `CreateMode`), shaped like the real protocol so a Jute codec can carry them as they are.
 *
 * Representation choices:
 * - zxids and session ids are 64-bit longs: `bigint`, never a lossy `number`.
 * - times (ctime, mtime, TxnHeader.time) are milliseconds on the leader's clock: `number`.
 * - ints (versions, counts, perms, flags) are `number` holding a signed 32-bit value.
 * - `buffer` fields are `Uint8Array`; `null` stands for Jute's length −1.
 */

export type Zxid = bigint;
export type SessionId = bigint;

/** A zxid is (epoch << 32) | counter. */
export function makeZxid(epoch: number, counter: number): Zxid {
  return (BigInt(epoch) << 32n) | BigInt(counter >>> 0);
}
export function zxidEpoch(zxid: Zxid): number {
  return Number(zxid >> 32n);
}
export function zxidCounter(zxid: Zxid): number {
  return Number(zxid & 0xffffffffn);
}
/** `0x100000003` style, as ZooKeeper logs and `srvr` print zxids. */
export function zxidHex(zxid: Zxid): string {
  // Memoised: one zxid is formatted many times (propose, log, ack, commit, deliver, apply on
  // every server, and in client Stats), and BigInt formatting is slow. The table is direct-mapped
  // on the value as a number: a Map keyed by bigint would hash the bigint in the runtime on
  // every lookup, which costs more than the formatting it saves.
  const n = Number(zxid);
  const abs = n < 0 ? -n : n;
  // abs mod HEX_SLOTS without the floating-point modulo (a C call): exact, HEX_SLOTS being a power of two.
  const slot = abs - Math.floor(abs / HEX_SLOTS) * HEX_SLOTS;
  if (hexKeys[slot] === zxid) return hexValues[slot]!;
  const hex = `0x${zxid.toString(16)}`;
  hexKeys[slot] = zxid;
  hexValues[slot] = hex;
  return hex;
}
const HEX_SLOTS = 4096;
const hexKeys: (bigint | undefined)[] = new Array<bigint | undefined>(HEX_SLOTS).fill(undefined);
const hexValues: string[] = new Array<string>(HEX_SLOTS).fill("");

/** Java int arithmetic: versions wrap from 2^31−1 to −2^31. */
export function int32(n: number): number {
  return n | 0;
}

/** `ZooDefs.Perms`. */
export const Perms = {
  READ: 1,
  WRITE: 2,
  CREATE: 4,
  DELETE: 8,
  ADMIN: 16,
  ALL: 31,
} as const;

export interface Id {
  scheme: string;
  id: string;
}

export interface ACL {
  perms: number;
  id: Id;
}

/**
 * An ACL as a request carries it: Jute reads a string of length −1 as null, and 3.8 takes it
 * (some clients send CREATOR_ALL_ACL's empty `auth` id that way); the server's fix-up decides
 * what a null means (acl.ts `fixupACL`). Stored ACLs never hold a null.
 */
export interface RequestACL {
  perms: number;
  id: { scheme: string | null; id: string | null };
}

/** `ZooDefs.Ids`. */
export const Ids = {
  ANYONE_ID_UNSAFE: { scheme: "world", id: "anyone" } as Id,
  AUTH_IDS: { scheme: "auth", id: "" } as Id,
  get OPEN_ACL_UNSAFE(): ACL[] {
    return [{ perms: Perms.ALL, id: { scheme: "world", id: "anyone" } }];
  },
  get CREATOR_ALL_ACL(): ACL[] {
    return [{ perms: Perms.ALL, id: { scheme: "auth", id: "" } }];
  },
  get READ_ACL_UNSAFE(): ACL[] {
    return [{ perms: Perms.READ, id: { scheme: "world", id: "anyone" } }];
  },
};

/** The client-visible Stat, in wire order (docs/zookeeper.md §1.6). */
export interface Stat {
  czxid: Zxid;
  mzxid: Zxid;
  ctime: number;
  mtime: number;
  version: number;
  cversion: number;
  aversion: number;
  ephemeralOwner: SessionId;
  dataLength: number;
  numChildren: number;
  pzxid: Zxid;
}

/** `CreateMode` with its wire flag values (docs/zookeeper.md §1.2). */
export const CreateMode = {
  PERSISTENT: 0,
  EPHEMERAL: 1,
  PERSISTENT_SEQUENTIAL: 2,
  EPHEMERAL_SEQUENTIAL: 3,
  CONTAINER: 4,
  PERSISTENT_WITH_TTL: 5,
  PERSISTENT_SEQUENTIAL_WITH_TTL: 6,
} as const;
export type CreateModeName = keyof typeof CreateMode;
export type CreateModeFlag = (typeof CreateMode)[CreateModeName];

export function isEphemeralMode(flag: number): boolean {
  return flag === CreateMode.EPHEMERAL || flag === CreateMode.EPHEMERAL_SEQUENTIAL;
}
export function isSequentialMode(flag: number): boolean {
  return (
    flag === CreateMode.PERSISTENT_SEQUENTIAL ||
    flag === CreateMode.EPHEMERAL_SEQUENTIAL ||
    flag === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL
  );
}
export function isTTLMode(flag: number): boolean {
  return flag === CreateMode.PERSISTENT_WITH_TTL || flag === CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
}
export function isContainerMode(flag: number): boolean {
  return flag === CreateMode.CONTAINER;
}
export function isKnownCreateMode(flag: number): flag is CreateModeFlag {
  return Number.isInteger(flag) && flag >= 0 && flag <= 6;
}

/** `Watcher.Event.EventType`. */
export const EventType = {
  None: -1,
  NodeCreated: 1,
  NodeDeleted: 2,
  NodeDataChanged: 3,
  NodeChildrenChanged: 4,
  DataWatchRemoved: 5,
  ChildWatchRemoved: 6,
  PersistentWatchRemoved: 7,
} as const;
export type EventTypeName = keyof typeof EventType;
export type EventTypeNumber = (typeof EventType)[EventTypeName];

/** `Watcher.Event.KeeperState`. */
export const KeeperState = {
  Unknown: -1,
  Disconnected: 0,
  NoSyncConnected: 1,
  SyncConnected: 3,
  AuthFailed: 4,
  ConnectedReadOnly: 5,
  SaslAuthenticated: 6,
  Expired: -112,
  Closed: 7,
} as const;
export type KeeperStateName = keyof typeof KeeperState;
export type KeeperStateNumber = (typeof KeeperState)[KeeperStateName];

/** `Watcher.WatcherType` for removeWatches/checkWatches (3.8: Children, Data, Any). */
export const WatcherType = {
  Children: 1,
  Data: 2,
  Any: 3,
} as const;
export type WatcherTypeNumber = (typeof WatcherType)[keyof typeof WatcherType];

/** `AddWatchMode`. */
export const AddWatchMode = {
  PERSISTENT: 0,
  PERSISTENT_RECURSIVE: 1,
} as const;
export type AddWatchModeNumber = (typeof AddWatchMode)[keyof typeof AddWatchMode];

/** `WatcherEvent{type, state, path}`: the body of a notification (xid −1). */
export interface WatcherEvent {
  type: number;
  state: number;
  path: string;
}

/** `ClientInfo{authScheme, user}` returned by whoAmI. */
export interface ClientInfo {
  authScheme: string;
  user: string;
}

const NAME_OF_EVENT = new Map<number, string>(Object.entries(EventType).map(([k, v]) => [v, k]));
const NAME_OF_STATE = new Map<number, string>(Object.entries(KeeperState).map(([k, v]) => [v, k]));
export function eventTypeName(type: number): string {
  return NAME_OF_EVENT.get(type) ?? `EventType(${type})`;
}
export function keeperStateName(state: number): string {
  return NAME_OF_STATE.get(state) ?? `KeeperState(${state})`;
}

/** `jute.maxbuffer` default: the largest packet either side accepts (docs/zookeeper.md §1.7). */
export const JUTE_MAX_BUFFER_BYTES = 0xfffff;

/** The largest TTL a TTL node may carry (2^40 − 1 ms). */
export const MAX_TTL_MS = 2 ** 40 - 1;

export function emptyStat(): Stat {
  return {
    czxid: 0n,
    mzxid: 0n,
    ctime: 0,
    mtime: 0,
    version: 0,
    cversion: 0,
    aversion: 0,
    ephemeralOwner: 0n,
    dataLength: 0,
    numChildren: 0,
    pzxid: 0n,
  };
}
