/**
 * Exclusive lock without herd effect (ZooKeeper recipes, "Locks"; "Building applications on
 * ZooKeeper", lock service):
 *
 *   1. create `<dir>/<sessionIdHex>-lock-` EPHEMERAL_SEQUENTIAL;
 *   2. getChildren(dir) without a watch;
 *   3. lowest sequence number → we hold the lock;
 *   4. otherwise exists(predecessor, watch) on the next-lower node only, and go to 2 when it
 *      fires (or at once if it is already gone).
 *
 * Release deletes our node. The fencing token handed to the holder is the node's sequence
 * number: sequence numbers under one parent only grow, so a later holder always has a larger
 * token, and a protected resource can refuse a smaller one (see fenced-resource.ts).
 *
 * Connection loss during the sequential create is the "unknown" case: the create may have
 * succeeded and left an ephemeral node we do not know about. Because our session id is in the
 * name, we look for a child carrying it instead of creating again. Session expiry is
 * unrecoverable: the lock is gone (our ephemeral node goes with the session); `acquire` throws
 * `SessionLostError` and a holder is told through `lost`/`isHeld()`.
 *
 * Two deliberately broken variants show what the careful version avoids:
 * - `herd`: every waiter watches the children of the lock directory, so each change wakes
 *   them all (the herd effect), though only one can proceed;
 * - `blind-retry`: after CONNECTIONLOSS the sequential create is simply sent again; if the
 *   first one had succeeded, its orphan node (alive as long as our session) sits ahead of us
 *   and nobody will ever delete it: the lock is stuck.
 * And one canary, `trusts-expired`: a holder that ignores its session's events (Disconnected,
 * Expired) and goes on believing it holds the lock after its session is gone.
 *
 * Trace: `recipe.lock {lock, client, session, event, token?}` with event one of
 * `waiting` (an attempt starts), `acquired`, `released` (emitted *before* the delete: the
 * holder stops acting first), `lost` (the holder learns its session or node is gone),
 * `abandoned` (an attempt gave up without the lock).
 */
import type { ZooKeeper, WatchedEvent } from "../zk/client/index.js";
import { EventType, KeeperState } from "../zk/proto/records.js";
import {
  SessionLostError,
  bySequence,
  childrenWithoutOrphans,
  createOwnSequential,
  deleteOwnNode,
  ensurePath,
  isExpiredEvent,
  retrying,
  sequenceOf,
  watchOnce,
  type RecipeHost,
} from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

export type LockVariant = "herd-free" | "herd" | "blind-retry" | "trusts-expired";

export interface LockOptions {
  variant?: LockVariant;
}

export interface LockGrant {
  /** Our lock node's full path. */
  path: string;
  /** The fencing token: the node's sequence number (strictly increasing per lock). */
  token: number;
}

export class DistributedLock {
  private readonly variant: LockVariant;
  private node: string | undefined;
  private grant: LockGrant | undefined;
  private held = false;
  private suspended = false;
  private releasing = false;
  private dirReady = false;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly dir: string,
    options: LockOptions = {},
  ) {
    this.variant = options.variant ?? "herd-free";
  }

  /** True while we hold the lock and the connection is up (a disconnected holder cannot know). */
  isHeld(): boolean {
    return this.held && !this.suspended;
  }

  /** `held`; `suspended` (held, but disconnected: do not act until reconnected); `free` (not held, or lost). */
  get holdState(): "held" | "suspended" | "free" {
    return !this.held ? "free" : this.suspended ? "suspended" : "held";
  }

  get token(): number | undefined {
    return this.grant?.token;
  }

  /** Waits until we hold the lock. Throws SessionLostError if the session dies meanwhile. */
  async acquire(): Promise<LockGrant> {
    if (this.grant !== undefined) throw new Error(`lock ${this.dir}: already acquired`);
    if (!this.dirReady) await ensurePath(this.zk, this.host, "lock", this.dir);
    this.dirReady = true;
    this.emit("waiting");
    try {
      // Step 1; the blind-retry variant skips the connection-loss look-up (the flaw).
      const node = await createOwnSequential(this.host, "lock", this.zk, this.dir, this.prefix, this.variant === "blind-retry");
      this.node = node;
      await this.waitUntilLowest(node);
    } catch (err) {
      this.emit("abandoned", { reason: err instanceof SessionLostError ? err.code : String(err) });
      throw err;
    }
    const token = sequenceOf(this.node);
    this.grant = { path: this.node, token };
    this.held = true;
    this.emit("acquired", { token });
    await this.watchOwnNode(this.node);
    return this.grant;
  }

  /** Gives the lock up: stop acting, then delete our node (gone already is fine). */
  async release(): Promise<void> {
    const node = this.node;
    if (node === undefined) return;
    this.releasing = true;
    if (this.held) this.emit("released", { token: this.grant?.token });
    this.held = false;
    // If the session is gone, our ephemeral node went with it: nothing left to release.
    await deleteOwnNode(this.host, "lock", this.zk, node, true);
    this.node = undefined;
    this.grant = undefined;
    this.releasing = false;
  }

  private get prefix(): string {
    return `${this.zk.getSessionIdHex()}-lock-`;
  }

  /** Steps 2–5. */
  private async waitUntilLowest(node: string): Promise<void> {
    const name = node.slice(this.dir.length + 1);
    for (;;) {
      const w = watchOnce(this.host);
      const herd = this.variant === "herd";
      const watcher = herd ? w.watcher : undefined;
      // The blind-retry variant does not look for orphans of its own session either (its flaw).
      const children =
        this.variant === "blind-retry"
          ? bySequence(await retrying(this.host, "lock", () => this.zk.getChildren(this.dir, watcher)))
          : await childrenWithoutOrphans(this.host, "lock", this.zk, this.dir, name, watcher !== undefined ? { watcher } : {});
      const i = children.indexOf(name);
      if (i < 0) throw new SessionLostError("lock", "our lock node vanished");
      if (i === 0) return;
      if (!herd) {
        const stat = await retrying(this.host, "lock", () => this.zk.exists(`${this.dir}/${children[i - 1]}`, w.watcher));
        if (stat === null) continue;
      }
      const e = await w.fired;
      if (isExpiredEvent(e)) throw new SessionLostError("lock", "Expired");
    }
  }

  /** While held: our node's deletion or the session's fate is news the holder must act on. */
  private async watchOwnNode(node: string): Promise<void> {
    const watcher = (e: WatchedEvent): void => this.onOwnNodeEvent(e);
    try {
      const stat = await retrying(this.host, "lock", () => this.zk.exists(node, watcher));
      if (stat === null) this.markLost("our lock node is gone");
    } catch (err) {
      if (!(err instanceof SessionLostError)) throw err;
      this.markLost(err.code);
    }
  }

  private onOwnNodeEvent(e: WatchedEvent): void {
    if (e.type === EventType.None) {
      // The canary's flaw: the holder does not listen to its session.
      if (this.variant === "trusts-expired") return;
      if (e.state === KeeperState.Disconnected) this.suspended = true;
      else if (e.state === KeeperState.SyncConnected) this.suspended = false;
      else if (isExpiredEvent(e)) this.markLost("session expired");
      return;
    }
    if (e.type === EventType.NodeDeleted && !this.releasing) this.markLost("our lock node was deleted");
  }

  private markLost(reason: string): void {
    if (!this.held) return;
    this.held = false;
    this.emit("lost", { token: this.grant?.token, reason });
  }

  private emit(event: string, extra: Pick<TraceAnnotations["recipe.lock"], "token" | "reason"> = {}): void {
    this.host.annotate("recipe.lock", { lock: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), event, ...extra });
  }
}
