/**
 * Barrier (ZooKeeper recipes, "Barriers"): the barrier is up while its node exists.
 * `waitUntilDown` calls exists(b, watch) and waits for the watch until exists says no node. A
 * controller `raise`s and `lower`s it. (The double barrier is in double-barrier.ts.)
 *
 * The naive variant `poll` checks with a plain exists every `pollMs` instead of waiting for a
 * watch: just as correct, but every waiter loads the servers while the barrier is up
 * (`recipe.barrier-polling` exposes it).
 *
 * Trace: `recipe.barrier {barrier, client, session, event, size?}`, shared with the double
 * barrier (`annotateBarrier`): `raised`, `lowered` (the controller is about to delete the node),
 * `down` (its delete returned: the node is gone), `wait` (a waiter starts), `passed` (it saw the
 * barrier down).
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { SessionLostError, ensurePath, hasCode, isExpiredEvent, retrying, watchOnce, type RecipeHost } from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

/** How a waiter learns the barrier is down: a watch (the recipe), or polling (naive). */
export type BarrierVariant = { kind: "watch" } | { kind: "poll"; pollMs: number };

export class Barrier {
  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly path: string,
    private readonly variant: BarrierVariant = { kind: "watch" },
  ) {}

  async raise(): Promise<void> {
    await ensurePath(this.zk, this.host, "barrier", this.path);
    annotateBarrier(this.host, this.zk, this.path, "raised");
  }

  async lower(): Promise<void> {
    annotateBarrier(this.host, this.zk, this.path, "lowered");
    await retrying(this.host, "barrier", async () => {
      try {
        await this.zk.delete(this.path, -1);
      } catch (err) {
        if (!hasCode(err, Code.NONODE)) throw err;
      }
    });
    annotateBarrier(this.host, this.zk, this.path, "down");
  }

  /** Waits until the barrier is down. Syncs first: a lagging server must not show "down" after a raise we know of. */
  async waitUntilDown(): Promise<void> {
    annotateBarrier(this.host, this.zk, this.path, "wait");
    await retrying(this.host, "barrier", () => this.zk.sync(this.path));
    if (this.variant.kind === "poll") {
      while ((await retrying(this.host, "barrier", () => this.zk.exists(this.path))) !== null) await this.host.sleepMs(this.variant.pollMs);
      annotateBarrier(this.host, this.zk, this.path, "passed");
      return;
    }
    for (;;) {
      const w = watchOnce(this.host);
      const stat = await retrying(this.host, "barrier", () => this.zk.exists(this.path, w.watcher));
      if (stat === null) break;
      if (isExpiredEvent(await w.fired)) throw new SessionLostError("barrier", "Expired");
    }
    annotateBarrier(this.host, this.zk, this.path, "passed");
  }
}

/** Writes a `recipe.barrier` annotation (the simple and the double barrier share the kind). */
export function annotateBarrier(host: RecipeHost, zk: ZooKeeper, barrier: string, event: string, extra: Pick<TraceAnnotations["recipe.barrier"], "size"> = {}): void {
  host.annotate("recipe.barrier", { barrier, client: host.id, session: zk.getSessionIdHex(), event, ...extra });
}
