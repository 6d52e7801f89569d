/**
 * Distributed priority queue (ZooKeeper recipes, "Priority Queue"; Curator's
 * `DistributedPriorityQueue`): the FIFO queue (queue.ts) with the recipe's two changes.
 * - offer: the name carries the priority, `<dir>/qn-<pp>-<id>-` PERSISTENT_SEQUENTIAL, lower
 *   `pp` first; the sequence number orders items of one priority;
 * - take: "an up-to-date children list" — sync, then getChildren(dir) — and try only its head
 *   (lowest (priority, sequence)) before reading again, since a more urgent item may have
 *   arrived meanwhile.
 *
 * The order it promises (checked from the histories by `recipe.priority-queue`): an item is
 * taken only if no item of strictly higher priority was acknowledged as enqueued before the
 * consumer's sync and was still in the queue (no delete of it begun) when the consumer's
 * getChildren answered. The sync is what makes an offer acknowledged to another client visible
 * to the consumer's server; without it a lagging follower may answer with an older list. Offers
 * of unknown outcome, and items of equal priority, are promised no order across consumers.
 *
 * The naive variant `by-sequence` forgets the recipe's second change: its consumers take by
 * sequence number alone, as the FIFO queue does, so an urgent item waits behind older ones.
 *
 * Delivery under unknown outcomes is the FIFO queue's (the `delivery` option); the trace is its
 * `recipe.queue`, with `priority` set.
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { retrying, sequenceOf, type RecipeHost } from "./recipe-support.js";
import { DistributedQueue, type QueueOptions } from "./queue.js";

/** How consumers order the queue: by (priority, sequence) — the recipe — or by sequence alone (naive). */
export type PriorityQueueVariant = "by-priority" | "by-sequence";

export interface PriorityQueueOptions extends QueueOptions {
  variant?: PriorityQueueVariant;
}

export class DistributedPriorityQueue extends DistributedQueue {
  readonly variant: PriorityQueueVariant;

  constructor(zk: ZooKeeper, host: RecipeHost, dir: string, options: PriorityQueueOptions = {}) {
    super(zk, host, dir, options);
    this.variant = options.variant ?? "by-priority";
  }

  /** Enqueues `data` under the caller-unique `id` with `priority` 0–99 (lower first). */
  override async offer(id: string, data: string, priority = 0): Promise<string> {
    if (!Number.isInteger(priority) || priority < 0 || priority > 99) throw new Error(`queue ${this.dir}: priority ${priority} must be an integer in [0, 99]`);
    return this.offerNamed(id, `qn-${String(priority).padStart(2, "0")}-${id}-`, data, priority);
  }

  /** Sync first: the list must show every item acknowledged before we looked. */
  protected override async readChildren(): Promise<string[]> {
    await retrying(this.host, "queue", () => this.zk.sync(this.dir));
    return super.readChildren();
  }

  protected override ordered(names: readonly string[]): string[] {
    if (this.variant === "by-sequence") return super.ordered(names);
    return [...names].sort((a, b) => this.priorityOf(a) - this.priorityOf(b) || sequenceOf(a) - sequenceOf(b));
  }

  /** Only the head: the next read may show a more urgent item. */
  protected override candidates(ordered: readonly string[]): readonly string[] {
    return ordered.slice(0, 1);
  }

  protected override priorityOf(name: string): number {
    return Number(name.slice(3, 5));
  }
}
