/**
 * Revocable shared lock (ZooKeeper recipes, "Revocable Shared Locks"), on top of the shared
 * lock of rw-lock.ts:
 *
 * - right after creating its lock node (read or write), a client calls getData on it with a
 *   watch; each time the watch fires it reads the node again (and re-arms the watch), looking
 *   for the string "unlock": that is a request to give the lock up;
 * - anyone may ask a holder to give up by calling setData(lockNode, "unlock"); here the writer
 *   does it: when a writer finds read nodes ahead of it, it asks each of them (once per
 *   attempt) before watching the next-lower node.
 *
 * The holder must agree to release (the recipe insists: it may have work to finish first), so
 * the recipe does not delete anything itself: the application learns of the request through
 * `hold.revoked` and calls `hold.release()`. A request that arrives while the reader still
 * waits stands: `revoked` is already settled when the lock is granted.
 *
 * Failures: the setData of a revoker is idempotent ("unlock", any version), so it is retried
 * blindly through CONNECTIONLOSS, and NONODE means the reader has gone already. The holder's
 * own getData is a read (retried); NONODE means our node is gone (released, or our session with
 * it), and so is the watch loop. A lost session ends the loop; `acquire` then throws
 * `SessionLostError` as the shared lock does.
 *
 * The `ignore-revocation` variant is the canary: its holder sees the request and does not tell
 * the application, so it keeps the lock until it is done with it.
 *
 * Trace: the shared lock's `recipe.rwlock` events, plus `recipe.revoke {lock, client, session,
 * event, node}` with event `requested` (a writer's setData on `node` succeeded) and `seen`
 * (the owner of `node` read "unlock" from it).
 */
import type { Deferred } from "../base/deferred.js";
import type { ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { EventType } from "../zk/proto/records.js";
import { ReadWriteLock, type LockMode } from "./rw-lock.js";
import { SessionLostError, decodeText, hasCode, isExpiredEvent, retrying, watchOnce, type RecipeHost } from "./recipe-support.js";

export type RevocableLockVariant = "honour" | "ignore-revocation";

/** The data a revoker writes on a lock node. */
export const UNLOCK = "unlock";

const RECIPE = "revocable-lock";

export interface RevocableHold {
  /** Our lock node's full path. */
  node: string;
  /** Settles when someone asked us to give the lock up (never, if nobody does). */
  revoked: Promise<void>;
  isRevoked(): boolean;
  /** Gives the lock up: stop acting, then delete our node (gone already is fine). */
  release(): Promise<void>;
}

interface Attempt {
  node: string | undefined;
  revoked: Deferred<void>;
  isRevoked: boolean;
  /** Read nodes this attempt has already asked to give up. */
  asked: Set<string>;
}

export class RevocableReadWriteLock {
  private readonly lock: ReadWriteLock;
  private attempt: Attempt | undefined;
  /** An impossible error in a background watch loop, rethrown to the application. */
  private failure: unknown;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly dir: string,
    private readonly variant: RevocableLockVariant = "honour",
  ) {
    this.lock = new ReadWriteLock(zk, host, dir, {
      onCreated: (node) => this.onCreated(node),
      onBlocked: (ahead, mode) => this.requestRevocation(ahead, mode),
    });
  }

  /** Acquires in `mode` (one attempt at a time per object). */
  async acquire(mode: LockMode): Promise<RevocableHold> {
    if (this.attempt !== undefined) throw new Error(`${RECIPE} ${this.dir}: one attempt at a time`);
    const attempt: Attempt = { node: undefined, revoked: this.host.deferred<void>(), isRevoked: false, asked: new Set() };
    this.attempt = attempt;
    let release: () => Promise<void>;
    try {
      release = await this.lock.acquire(mode);
    } finally {
      this.attempt = undefined;
    }
    this.throwFailure();
    return {
      node: attempt.node!,
      revoked: attempt.revoked.promise,
      isRevoked: () => attempt.isRevoked,
      release: async () => {
        await release();
        this.throwFailure();
      },
    };
  }

  private onCreated(node: string): void {
    const attempt = this.attempt!;
    attempt.node = node;
    this.watchForRevocation(node, attempt).catch((err: unknown) => (this.failure ??= err));
  }

  /** getData(node, watch) until our node says "unlock", goes away, or the session does. */
  private async watchForRevocation(node: string, attempt: Attempt): Promise<void> {
    try {
      for (;;) {
        const w = watchOnce(this.host);
        const data = await retrying(this.host, RECIPE, async () => {
          try {
            return decodeText((await this.zk.getData(node, w.watcher)).data);
          } catch (err) {
            if (hasCode(err, Code.NONODE)) return undefined;
            throw err;
          }
        });
        if (data === undefined) return;
        if (data === UNLOCK) return this.onRevocationSeen(node, attempt);
        const e = await w.fired;
        if (isExpiredEvent(e) || e.type === EventType.NodeDeleted) return;
      }
    } catch (err) {
      // The session is gone, and our ephemeral node with it: there is nothing left to give up.
      if (!(err instanceof SessionLostError)) throw err;
    }
  }

  private onRevocationSeen(node: string, attempt: Attempt): void {
    this.emit("seen", node);
    if (this.variant === "ignore-revocation") return;
    attempt.isRevoked = true;
    attempt.revoked.resolve();
  }

  /** A writer asks each reader ahead of it to give the lock up. */
  private async requestRevocation(ahead: readonly string[], mode: LockMode): Promise<void> {
    if (mode !== "write") return;
    const attempt = this.attempt!;
    for (const name of ahead) {
      if (!name.includes("-read-") || attempt.asked.has(name)) continue;
      attempt.asked.add(name);
      const node = `${this.dir}/${name}`;
      const asked = await retrying(this.host, RECIPE, async () => {
        try {
          await this.zk.setData(node, UNLOCK, -1);
          return true;
        } catch (err) {
          if (hasCode(err, Code.NONODE)) return false;
          throw err;
        }
      });
      if (asked) this.emit("requested", node);
    }
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private emit(event: string, node: string): void {
    this.host.annotate("recipe.revoke", { lock: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), event, node });
  }
}
