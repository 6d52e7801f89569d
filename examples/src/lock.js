// @ts-check
/**
 * A user's exclusive lock on ZooKeeper, the way a service might write it by hand: whoever
 * created the ephemeral node /lock holds the lock; the others watch it and try again when it
 * goes. Releasing is closing the session, which deletes the node with it — so a release can
 * never delete somebody else's lock node.
 *
 * CONNECTIONLOSS on the create is the subtle part: the request may or may not have reached the
 * leader, so the lock looks (after a sync, so a lagging server cannot hide the create) whether
 * /lock is ours before it tries again.
 *
 * Holding the lock is the other half, and the caller's: the lock is only as good as the session
 * behind it (see `holdWhileConnected` in scripts.js).
 */
import { Code, CreateMode, Ids } from "zksim";
import { hasCode, retrying } from "./zk-errors.js";

export const LOCK_PATH = "/lock";

export class SimpleLock {
  /**
   * @param {import("zksim").ZooKeeper} zk the session the lock lives in
   * @param {import("zksim").ClientNode} node the node the code runs on (retries sleep on its clock)
   */
  constructor(zk, node) {
    this.zk = zk;
    this.node = node;
  }

  /** Resolves once this session holds the lock; throws SESSIONEXPIRED if the session dies. */
  async acquire() {
    for (;;) {
      try {
        await this.zk.create(LOCK_PATH, this.node.id, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        return;
      } catch (err) {
        if (hasCode(err, Code.CONNECTIONLOSS)) {
          if (await this.ownsLock()) return;
          continue;
        }
        if (!hasCode(err, Code.NODEEXISTS)) throw err;
      }
      await this.released();
    }
  }

  /** Whether /lock exists and belongs to this session. */
  async ownsLock() {
    await retrying(this.node, () => this.zk.sync(LOCK_PATH));
    const stat = await retrying(this.node, () => this.zk.exists(LOCK_PATH));
    return stat !== null && stat.ephemeralOwner === this.zk.getSessionId();
  }

  /** Resolves when /lock is gone, or on any session event (the caller then looks again). */
  async released() {
    /** @type {(value?: unknown) => void} */
    let wake = () => {};
    const woken = new Promise((resolve) => (wake = resolve));
    const stat = await retrying(this.node, () => this.zk.exists(LOCK_PATH, () => wake()));
    if (stat !== null) await woken;
  }
}
