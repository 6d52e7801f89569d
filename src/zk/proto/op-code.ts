/**
 * ZooKeeper operation codes (`ZooDefs.OpCode`) with their wire numbers (docs/zookeeper.md §9.3),
 * and the special xids of the client protocol.
 */
export const OpCode = {
  notification: 0,
  create: 1,
  delete: 2,
  exists: 3,
  getData: 4,
  setData: 5,
  getACL: 6,
  setACL: 7,
  getChildren: 8,
  sync: 9,
  ping: 11,
  getChildren2: 12,
  check: 13,
  multi: 14,
  create2: 15,
  reconfig: 16,
  checkWatches: 17,
  removeWatches: 18,
  createContainer: 19,
  deleteContainer: 20,
  createTTL: 21,
  multiRead: 22,
  auth: 100,
  setWatches: 101,
  sasl: 102,
  getEphemerals: 103,
  getAllChildrenNumber: 104,
  setWatches2: 105,
  addWatch: 106,
  whoAmI: 107,
  createSession: -10,
  closeSession: -11,
  error: -1,
} as const;

export type OpName = keyof typeof OpCode;
export type OpCodeNumber = (typeof OpCode)[OpName];

const OP_NAMES = new Map<number, OpName>(
  (Object.keys(OpCode) as OpName[]).map((name) => [OpCode[name], name]),
);

export function opName(code: number): string {
  return OP_NAMES.get(code) ?? `OP(${code})`;
}

export function isKnownOpCode(code: number): code is OpCodeNumber {
  return OP_NAMES.has(code);
}

/** Special xids (`ClientCnxn`): notifications, pings, auth and setWatches use fixed negative xids. */
export const Xid = {
  notification: -1,
  ping: -2,
  auth: -4,
  setWatches: -8,
} as const;
