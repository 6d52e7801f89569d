/**
 * Distributed priority queue (ZooKeeper recipes, "Priority Queue"; Curator's
 * `DistributedPriorityQueue`): the FIFO queue (queue.ts) with the recipe's two changes.
 * - offer: the name carries the priority, `<dir>/qn-<pp>-<id>-` PERSISTENT_SEQUENTIAL, lower
 *   `pp` first; the sequence number orders items of one priority;
 * - take: try only the head (lowest (priority, sequence)) before reading the children again,
 *   since a more urgent item may have arrived meanwhile.
 *
 * Delivery under unknown outcomes is the FIFO queue's (the `delivery` option); the trace is its
 * `recipe.queue`, with `priority` set.
 */
import { sequenceOf } from "./recipe-support.js";
import { DistributedQueue } from "./queue.js";

export class DistributedPriorityQueue extends DistributedQueue {
  /** Enqueues `data` under the caller-unique `id` with `priority` 0–99 (lower first). */
  override async offer(id: string, data: string, priority = 0): Promise<string> {
    if (!Number.isInteger(priority) || priority < 0 || priority > 99) throw new Error(`queue ${this.dir}: priority ${priority} must be an integer in [0, 99]`);
    return this.offerNamed(id, `qn-${String(priority).padStart(2, "0")}-${id}-`, data, priority);
  }

  protected override ordered(names: readonly string[]): string[] {
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
