/**
 * Shared (read/write) lock without herd effect (ZooKeeper recipes, "Shared Locks"):
 * - read: create `<dir>/<sessionIdHex>-read-` EPHEMERAL_SEQUENTIAL; we hold it when no
 *   `write-` node has a lower sequence number; otherwise watch the next-lower `write-` node;
 * - write: create `<dir>/<sessionIdHex>-write-`; we hold it when ours is the lowest node;
 *   otherwise watch the next-lower node of any kind.
 * When a write node goes, all the readers behind it wake at once: that is not a herd, they
 * all get the lock. CONNECTIONLOSS on the create is resolved by our session id, as in lock.ts.
 *
 * Two hooks let a variant of the protocol ride on it without copying it (revocable-lock.ts):
 * `onCreated` runs as soon as our node exists, `onBlocked` each time we find nodes ahead of us,
 * before we watch the next-lower one.
 *
 * Trace: `recipe.rwlock {lock, client, session, mode, event, node?}` with event `waiting`,
 * `acquired` (with our node's path), `released` (before the delete), `abandoned`.
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { SessionLostError, childrenWithoutOrphans, createOwnSequential, deleteOwnNode, ensurePath, isExpiredEvent, retrying, watchOnce, type RecipeHost } from "./recipe-support.js";

export type LockMode = "read" | "write";

export interface ReadWriteLockHooks {
  /** Our lock node was just created (its full path). */
  onCreated?(node: string, mode: LockMode): void;
  /** We wait behind `ahead` (child names, in sequence order; the last one is watched). */
  onBlocked?(ahead: readonly string[], mode: LockMode): Promise<void>;
}

export class ReadWriteLock {
  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly dir: string,
    private readonly hooks: ReadWriteLockHooks = {},
  ) {}

  /** Acquires in `mode`; resolves with a release function. */
  async acquire(mode: LockMode): Promise<() => Promise<void>> {
    await ensurePath(this.zk, this.host, "rwlock", this.dir);
    this.emit(mode, "waiting");
    let node: string;
    try {
      node = await createOwnSequential(this.host, "rwlock", this.zk, this.dir, `${this.zk.getSessionIdHex()}-${mode}-`);
      this.hooks.onCreated?.(node, mode);
      await this.waitForTurn(node, mode);
    } catch (err) {
      this.emit(mode, "abandoned");
      throw err;
    }
    this.emit(mode, "acquired", node);
    return () => this.release(node, mode);
  }

  private async release(node: string, mode: LockMode): Promise<void> {
    this.emit(mode, "released");
    await deleteOwnNode(this.host, "rwlock", this.zk, node, true);
  }

  private async waitForTurn(node: string, mode: LockMode): Promise<void> {
    const name = node.slice(this.dir.length + 1);
    for (;;) {
      const children = await childrenWithoutOrphans(this.host, "rwlock", this.zk, this.dir, name);
      const i = children.indexOf(name);
      if (i < 0) throw new SessionLostError("rwlock", "our lock node vanished");
      const ahead = children.slice(0, i).filter((c) => mode === "write" || c.includes("-write-"));
      if (ahead.length === 0) return;
      await this.hooks.onBlocked?.(ahead, mode);
      const w = watchOnce(this.host);
      const stat = await retrying(this.host, "rwlock", () => this.zk.exists(`${this.dir}/${ahead[ahead.length - 1]}`, w.watcher));
      if (stat === null) continue;
      if (isExpiredEvent(await w.fired)) throw new SessionLostError("rwlock", "Expired");
    }
  }

  private emit(mode: LockMode, event: string, node?: string): void {
    this.host.annotate("recipe.rwlock", { lock: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), mode, event, ...(node !== undefined ? { node } : {}) });
  }
}
