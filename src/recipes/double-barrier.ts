/**
 * Double barrier (ZooKeeper recipes, "Double Barriers"): `enter` waits until `size` processes
 * have joined; `leave` waits until all have left. Enter: watch `b/ready`, create our EPHEMERAL
 * child, read the children; fewer than `size` → wait for `ready`; otherwise create `ready`.
 * Leave: read the children; none → done; only ours → delete it, done; we are the lowest →
 * wait for the highest to go; otherwise delete ours and wait for the lowest to go; repeat.
 * Ephemeral children mean a process that dies inside the barrier does not block the others
 * from leaving.
 *
 * The naive variant `leave-at-once` treats leaving like the simple barrier's passing: it
 * deletes its child and goes, without waiting for the others to finish (`recipe.barrier` sees
 * it walk out while others still compute).
 *
 * Our child is `<sessionIdHex>-<client>-` EPHEMERAL_SEQUENTIAL, so the children have an
 * order ("lowest", "highest") and a create whose reply was lost can be found by session id.
 *
 * Trace: `recipe.barrier {barrier, client, session, event, size}` (the kind the simple barrier
 * writes too): `enter` (joining), `entered` (released into the computation), `leave`
 * (starting to leave), `left`.
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { CreateMode, Ids } from "../zk/proto/records.js";
import {
  SessionLostError,
  childrenWithoutOrphans,
  createOwnSequential,
  deleteOwnNode,
  ensurePath,
  hasCode,
  isExpiredEvent,
  retrying,
  watchOnce,
  type RecipeHost,
} from "./recipe-support.js";
import { annotateBarrier } from "./barrier.js";

/** How a process leaves: waiting until all have left (the recipe), or at once (naive). */
export type DoubleBarrierVariant = "wait-all" | "leave-at-once";

export class DoubleBarrier {
  private node: string | undefined;

  constructor(
    private readonly zk: ZooKeeper,
    private readonly host: RecipeHost,
    readonly path: string,
    readonly size: number,
    readonly variant: DoubleBarrierVariant = "wait-all",
  ) {}

  private get ready(): string {
    return `${this.path}/ready`;
  }

  private get prefix(): string {
    return `${this.zk.getSessionIdHex()}-${this.host.id}-`;
  }

  async enter(): Promise<void> {
    await ensurePath(this.zk, this.host, "barrier", this.path);
    annotateBarrier(this.host, this.zk, this.path, "enter", { size: this.size });
    const w = watchOnce(this.host);
    const up = await retrying(this.host, "barrier", () => this.zk.exists(this.ready, w.watcher));
    this.node = await createOwnSequential(this.host, "barrier", this.zk, this.path, this.prefix);
    if (up === null) {
      const members = await this.members();
      if (members.length < this.size) {
        if (isExpiredEvent(await w.fired)) throw new SessionLostError("barrier", "Expired");
      } else {
        await retrying(this.host, "barrier", async () => {
          try {
            await this.zk.create(this.ready, "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
          } catch (err) {
            if (!hasCode(err, Code.NODEEXISTS)) throw err;
          }
        });
      }
    }
    annotateBarrier(this.host, this.zk, this.path, "entered", { size: this.size });
  }

  async leave(): Promise<void> {
    annotateBarrier(this.host, this.zk, this.path, "leave", { size: this.size });
    if (this.variant === "leave-at-once") await this.deleteOwn();
    else await this.leaveWhenAllDone();
    annotateBarrier(this.host, this.zk, this.path, "left", { size: this.size });
  }

  private async leaveWhenAllDone(): Promise<void> {
    const mine = this.node!.slice(this.path.length + 1);
    for (;;) {
      const members = await this.members();
      if (members.length === 0) return;
      const i = members.indexOf(mine);
      if (members.length === 1 && i === 0) {
        await this.deleteOwn();
        return;
      }
      // The lowest waits for the highest; the others delete theirs and wait for the lowest.
      const target = i === 0 ? members[members.length - 1]! : members[0]!;
      if (i > 0) await this.deleteOwn();
      const w = watchOnce(this.host);
      const stat = await retrying(this.host, "barrier", () => this.zk.exists(`${this.path}/${target}`, w.watcher));
      if (stat !== null && isExpiredEvent(await w.fired)) throw new SessionLostError("barrier", "Expired");
    }
  }

  /** Process nodes in sequence order (`ready` excluded). */
  private async members(): Promise<string[]> {
    return childrenWithoutOrphans(this.host, "barrier", this.zk, this.path, this.node!.slice(this.path.length + 1), { only: (c) => c !== "ready" });
  }

  private async deleteOwn(): Promise<void> {
    await deleteOwnNode(this.host, "barrier", this.zk, this.node!);
  }
}
