/** The ZooKeeper client library: the handle, its connection state machine and watch book. */
export { createClient, ZooKeeper, type ClientOptions, type WatchArg } from "./zoo-keeper.js";
export {
  ClientCnxn,
  States,
  isAlive,
  isConnected,
  sessionIdHex,
  MAX_SEND_PING_INTERVAL_MS,
  RECONNECT_JITTER_MS,
  SET_WATCHES_MAX_LENGTH,
  type ZooKeeperState,
  type ClientCanary,
  type Packet,
  type PacketReply,
} from "./client-cnxn.js";
export { KeeperException, isKeeperException } from "./keeper-exception.js";
export {
  AsyncZooKeeper,
  type ACLCallback,
  type AllChildrenNumberCallback,
  type Children2Callback,
  type ChildrenCallback,
  type Create2Callback,
  type DataCallback,
  type EphemeralsCallback,
  type MultiCallback,
  type StatCallback,
  type StringCallback,
  type VoidCallback,
} from "./async-callback.js";
export { Op, isReadOp, toBytes, type OpResult, type OpData } from "./op.js";
export { ZKWatchManager, type Watcher, type WatchedEvent, type WatchLists } from "./watch-manager.js";
export { StaticHostProvider, parseConnectString, SPIN_DELAY_MS, type HostAddress, type ConnectString } from "./host-provider.js";
export { Chroot } from "./chroot.js";
export type { Outcome } from "./history.js";
