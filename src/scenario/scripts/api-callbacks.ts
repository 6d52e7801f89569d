/**
 * The calls of the whole-API actor spelled through the client's callback API (`zk.async`, Java's
 * `AsyncCallback`), so the swarms exercise that adapter as they do the promise API: the actor
 * draws, per call, which spelling it uses (api-actor.ts), and a call settles here exactly as the
 * promise API's would — the value on rc OK, a KeeperException of the callback's code otherwise
 * (a failed multi with its results), null for exists on a missing node (the callback's NONODE
 * with a null Stat).
 *
 * The callback's documented contract (async-callback.ts) is checked as it arrives: the path is
 * the one the op was called with (null for multi) and an OK carries its result. A breach rejects
 * with an Error, not a KeeperException, so the actor does not swallow it and the run fails on it. An op whose callback never comes leaves the actor waiting: the script does
 * not finish, which the run reports.
 */
import { Code } from "../../zk/proto/error-code.js";
import type { ACL, Stat } from "../../zk/proto/records.js";
import { KeeperException, type Op, type OpData, type OpResult, type Watcher, type WatchArg, type ZooKeeper } from "../../zk/client/index.js";
import type { ScriptContext } from "./script.js";

/** The promise calls the actor makes; `ZooKeeper` itself is one, `CallbackCalls` the other. */
export type ActorCalls = Pick<
  ZooKeeper,
  "create" | "create2" | "delete" | "setData" | "setACL" | "exists" | "getData" | "getChildren" | "getChildren2" | "getACL" | "sync" | "multi" | "getEphemerals" | "getAllChildrenNumber" | "addWatch" | "removeWatches" | "removeAllWatches"
>;

export class CallbackCalls implements ActorCalls {
  constructor(
    private readonly s: ScriptContext,
    private readonly zk: ZooKeeper,
  ) {}

  /**
   * A promise settled by the one callback `call` hands out: `value` makes the result of an OK
   * (undefined there breaks the contract), anything else rejects with the code's KeeperException.
   */
  private settle<T>(op: string, path: string | null, call: (done: (rc: number, cbPath: string | null, value: () => T | undefined, results?: OpResult[] | null) => void) => void): Promise<T> {
    const d = this.s.sim.deferred<T>();
    call((rc, cbPath, value, results) => {
      if (cbPath !== path) return d.reject(new Error(`callback API: ${op}(${path}) called back with path ${cbPath}`));
      if (rc !== Code.OK) return d.reject(new KeeperException(rc, path ?? undefined, results ?? undefined));
      const v = value();
      if (v === undefined) return d.reject(new Error(`callback API: ${op}(${path}) called back OK without its result`));
      d.resolve(v);
    });
    return d.promise;
  }

  create(path: string, data: OpData, acl: ACL[], mode: number, ttl?: number): Promise<string> {
    return this.settle("create", path, (done) => this.zk.async.create(path, data, acl, mode, (rc, p, _ctx, name) => done(rc, p, () => name ?? undefined), undefined, ttl));
  }

  create2(path: string, data: OpData, acl: ACL[], mode: number, ttl?: number): Promise<{ path: string; stat: Stat }> {
    return this.settle("create2", path, (done) =>
      this.zk.async.create2(path, data, acl, mode, (rc, p, _ctx, name, stat) => done(rc, p, () => (name === null || stat === null ? undefined : { path: name, stat })), undefined, ttl),
    );
  }

  delete(path: string, version: number): Promise<void> {
    return this.settle<true>("delete", path, (done) => this.zk.async.delete(path, version, (rc, p) => done(rc, p, () => true))).then(() => undefined);
  }

  setData(path: string, data: OpData, version: number): Promise<Stat> {
    return this.settle("setData", path, (done) => this.zk.async.setData(path, data, version, (rc, p, _ctx, stat) => done(rc, p, () => stat ?? undefined)));
  }

  setACL(path: string, acl: ACL[], aversion: number): Promise<Stat> {
    return this.settle("setACL", path, (done) => this.zk.async.setACL(path, acl, aversion, (rc, p, _ctx, stat) => done(rc, p, () => stat ?? undefined)));
  }

  /** NONODE with a null Stat is the promise API's null; NONODE with a Stat breaks the contract. */
  exists(path: string, watch?: WatchArg): Promise<Stat | null> {
    return this.settle<{ stat: Stat | null }>("exists", path, (done) =>
      this.zk.async.exists(path, watch ?? false, (rc, p, _ctx, stat) => (rc === Code.NONODE && stat === null ? done(Code.OK, p, () => ({ stat: null })) : done(rc, p, () => (stat === null ? undefined : { stat })))),
    ).then((r) => r.stat);
  }

  getData(path: string, watch?: WatchArg): Promise<{ data: Uint8Array | null; stat: Stat }> {
    return this.settle("getData", path, (done) => this.zk.async.getData(path, watch ?? false, (rc, p, _ctx, data, stat) => done(rc, p, () => (stat === null ? undefined : { data, stat }))));
  }

  getChildren(path: string, watch?: WatchArg): Promise<string[]> {
    return this.settle("getChildren", path, (done) => this.zk.async.getChildren(path, watch ?? false, (rc, p, _ctx, children) => done(rc, p, () => children ?? undefined)));
  }

  getChildren2(path: string, watch?: WatchArg): Promise<{ children: string[]; stat: Stat }> {
    return this.settle("getChildren2", path, (done) =>
      this.zk.async.getChildren2(path, watch ?? false, (rc, p, _ctx, children, stat) => done(rc, p, () => (children === null || stat === null ? undefined : { children, stat }))),
    );
  }

  getACL(path: string): Promise<{ acl: ACL[]; stat: Stat }> {
    return this.settle("getACL", path, (done) => this.zk.async.getACL(path, (rc, p, _ctx, acl, stat) => done(rc, p, () => (acl === null || stat === null ? undefined : { acl, stat }))));
  }

  sync(path: string): Promise<void> {
    return this.settle<true>("sync", path, (done) => this.zk.async.sync(path, (rc, p) => done(rc, p, () => true))).then(() => undefined);
  }

  /** A failed multi: its first code that is not OK, with every result (as the promise API's exception). */
  multi(ops: readonly Op[]): Promise<OpResult[]> {
    return this.settle("multi", null, (done) => this.zk.async.multi(ops, (rc, p, _ctx, results) => done(rc, p, () => results ?? undefined, results)));
  }

  getEphemerals(prefixPath = "/"): Promise<string[]> {
    // Java's EphemeralsCallback carries no path: the contract's path test does not apply.
    return this.settle("getEphemerals", prefixPath, (done) => this.zk.async.getEphemerals(prefixPath, (rc, _ctx, paths) => done(rc, prefixPath, () => paths ?? undefined)));
  }

  getAllChildrenNumber(path: string): Promise<number> {
    return this.settle("getAllChildrenNumber", path, (done) => this.zk.async.getAllChildrenNumber(path, (rc, p, _ctx, n) => done(rc, p, () => (n < 0 ? undefined : n))));
  }

  addWatch(path: string, watcher: Watcher, mode: number): Promise<void> {
    return this.settle<true>("addWatch", path, (done) => this.zk.async.addWatch(path, watcher, mode, (rc, p) => done(rc, p, () => true))).then(() => undefined);
  }

  removeWatches(path: string, watcher: Watcher, type: number, local: boolean): Promise<void> {
    return this.settle<true>("removeWatches", path, (done) => this.zk.async.removeWatches(path, watcher, type, local, (rc, p) => done(rc, p, () => true))).then(() => undefined);
  }

  removeAllWatches(path: string, type: number, local: boolean): Promise<void> {
    return this.settle<true>("removeAllWatches", path, (done) => this.zk.async.removeAllWatches(path, type, local, (rc, p) => done(rc, p, () => true))).then(() => undefined);
  }
}
