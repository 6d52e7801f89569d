/**
 * The Java client's callback API (`org.apache.zookeeper.AsyncCallback`), as `zk.async`: every
 * op takes a callback and an opaque `ctx`, and the callback gets `(rc, path, ctx, …result)` —
 * rc 0 (OK) with the result, or the KeeperException code with null results (−1 for a count),
 * as Java's `ClientCnxn.EventThread.processEvent` hands them out.
 *
 * A thin adapter over the promise API: the same packets, history records and chroot handling.
 * Invariants:
 * - Callbacks run in the order their ops complete, which for ops answered by the server is the
 *   order they were issued (replies come back in order, and so do the CONNECTIONLOSS failures
 *   of the ops pending at a disconnect) — Java's single EventThread gives the same order.
 * - `path` is the client path the op was called with (null for multi, as in Java).
 * - exists on a missing node: rc NONODE and a null Stat. A failed multi: the first code that
 *   is not OK and every result; a multi that never got an answer: its code and null.
 * - A callback that throws is not swallowed: the error surfaces as an unhandled rejection.
 */
import { Code } from "../proto/error-code.js";
import type { ACL, Stat } from "../proto/records.js";
import { isKeeperException } from "./keeper-exception.js";
import type { Op, OpData, OpResult } from "./op.js";
import type { Watcher } from "./watch-manager.js";
import type { WatchArg, ZooKeeper } from "./zoo-keeper.js";

export type StatCallback = (rc: number, path: string, ctx: unknown, stat: Stat | null) => void;
export type DataCallback = (rc: number, path: string, ctx: unknown, data: Uint8Array | null, stat: Stat | null) => void;
export type ACLCallback = (rc: number, path: string, ctx: unknown, acl: ACL[] | null, stat: Stat | null) => void;
export type ChildrenCallback = (rc: number, path: string, ctx: unknown, children: string[] | null) => void;
export type Children2Callback = (rc: number, path: string, ctx: unknown, children: string[] | null, stat: Stat | null) => void;
export type StringCallback = (rc: number, path: string, ctx: unknown, name: string | null) => void;
export type Create2Callback = (rc: number, path: string, ctx: unknown, name: string | null, stat: Stat | null) => void;
export type VoidCallback = (rc: number, path: string, ctx: unknown) => void;
export type MultiCallback = (rc: number, path: null, ctx: unknown, opResults: OpResult[] | null) => void;
export type AllChildrenNumberCallback = (rc: number, path: string, ctx: unknown, number: number) => void;
export type EphemeralsCallback = (rc: number, ctx: unknown, paths: string[] | null) => void;

/** What a settled op hands its callback: the code, and the value (OK) or the exception's results. */
type Settled<T> = { rc: number; value: T | undefined; results: OpResult[] | undefined };

/** Runs `report` once `op` settles; anything but a KeeperException is a bug and is rethrown. */
function whenSettled<T>(op: Promise<T>, report: (s: Settled<T>) => void): void {
  op.then(
    (value) => report({ rc: Code.OK, value, results: undefined }),
    (err: unknown) => {
      if (!isKeeperException(err)) throw err;
      report({ rc: err.code, value: undefined, results: err.results });
    },
  );
}

export class AsyncZooKeeper {
  constructor(private readonly zk: ZooKeeper) {}

  create(path: string, data: OpData, acl: ACL[], mode: number, cb: StringCallback, ctx?: unknown, ttl?: number): void {
    whenSettled(this.zk.create(path, data, acl, mode, ttl), (s) => cb(s.rc, path, ctx, s.value ?? null));
  }

  create2(path: string, data: OpData, acl: ACL[], mode: number, cb: Create2Callback, ctx?: unknown, ttl?: number): void {
    whenSettled(this.zk.create2(path, data, acl, mode, ttl), (s) => cb(s.rc, path, ctx, s.value?.path ?? null, s.value?.stat ?? null));
  }

  delete(path: string, version: number, cb: VoidCallback, ctx?: unknown): void {
    whenSettled(this.zk.delete(path, version), (s) => cb(s.rc, path, ctx));
  }

  setData(path: string, data: OpData, version: number, cb: StatCallback, ctx?: unknown): void {
    whenSettled(this.zk.setData(path, data, version), (s) => cb(s.rc, path, ctx, s.value ?? null));
  }

  setACL(path: string, acl: ACL[], aversion: number, cb: StatCallback, ctx?: unknown): void {
    whenSettled(this.zk.setACL(path, acl, aversion), (s) => cb(s.rc, path, ctx, s.value ?? null));
  }

  /** A missing node is rc NONODE with a null Stat (the promise API resolves null instead). */
  exists(path: string, watch: WatchArg, cb: StatCallback, ctx?: unknown): void {
    whenSettled(this.zk.exists(path, watch), (s) => cb(s.rc === Code.OK && s.value === null ? Code.NONODE : s.rc, path, ctx, s.value ?? null));
  }

  getData(path: string, watch: WatchArg, cb: DataCallback, ctx?: unknown): void {
    whenSettled(this.zk.getData(path, watch), (s) => cb(s.rc, path, ctx, s.value?.data ?? null, s.value?.stat ?? null));
  }

  getChildren(path: string, watch: WatchArg, cb: ChildrenCallback, ctx?: unknown): void {
    whenSettled(this.zk.getChildren(path, watch), (s) => cb(s.rc, path, ctx, s.value ?? null));
  }

  getChildren2(path: string, watch: WatchArg, cb: Children2Callback, ctx?: unknown): void {
    whenSettled(this.zk.getChildren2(path, watch), (s) => cb(s.rc, path, ctx, s.value?.children ?? null, s.value?.stat ?? null));
  }

  getACL(path: string, cb: ACLCallback, ctx?: unknown): void {
    whenSettled(this.zk.getACL(path), (s) => cb(s.rc, path, ctx, s.value?.acl ?? null, s.value?.stat ?? null));
  }

  sync(path: string, cb: VoidCallback, ctx?: unknown): void {
    whenSettled(this.zk.sync(path), (s) => cb(s.rc, path, ctx));
  }

  /** A failed transaction reports its first code that is not OK, with every result. */
  multi(ops: readonly Op[], cb: MultiCallback, ctx?: unknown): void {
    whenSettled(this.zk.multi(ops), (s) => cb(s.rc, null, ctx, s.value ?? s.results ?? null));
  }

  getAllChildrenNumber(path: string, cb: AllChildrenNumberCallback, ctx?: unknown): void {
    whenSettled(this.zk.getAllChildrenNumber(path), (s) => cb(s.rc, path, ctx, s.value ?? -1));
  }

  getEphemerals(prefixPath: string, cb: EphemeralsCallback, ctx?: unknown): void {
    whenSettled(this.zk.getEphemerals(prefixPath), (s) => cb(s.rc, ctx, s.value ?? null));
  }

  addWatch(path: string, watcher: Watcher, mode: number, cb: VoidCallback, ctx?: unknown): void {
    whenSettled(this.zk.addWatch(path, watcher, mode), (s) => cb(s.rc, path, ctx));
  }

  removeWatches(path: string, watcher: Watcher, type: number, local: boolean, cb: VoidCallback, ctx?: unknown): void {
    whenSettled(this.zk.removeWatches(path, watcher, type, local), (s) => cb(s.rc, path, ctx));
  }

  removeAllWatches(path: string, type: number, local: boolean, cb: VoidCallback, ctx?: unknown): void {
    whenSettled(this.zk.removeAllWatches(path, type, local), (s) => cb(s.rc, path, ctx));
  }
}
