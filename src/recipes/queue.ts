/**
 * Distributed FIFO queue (ZooKeeper recipes, "Queues"; Curator's `DistributedQueue`):
 * - offer: create `<dir>/qn-<id>-` PERSISTENT_SEQUENTIAL; the sequence number orders the queue;
 * - take: getChildren(dir), take the lowest sequence whose delete succeeds, working through
 *   the list it read; when the queue is empty, wait on a children watch.
 * The priority queue (priority-queue.ts) is this queue with the recipe's two changes, made
 * through the protected hooks: a priority in the name, and an up-to-date list for each take.
 *
 * Unknown outcomes, and what this queue promises about them:
 * - offer after CONNECTIONLOSS: the item id is in the name, so we look for our child before
 *   creating again. If a consumer already took it, we cannot see it and create it again: the
 *   enqueue is *at least once* (consumers see the same item id twice). Exactly once while the
 *   item sits in the queue.
 * - take after CONNECTIONLOSS on the delete, then NONODE: our delete may have happened, or
 *   another consumer's. The `delivery` option decides, per queue object:
 *   `at-least-once` (default) hands the item over anyway (it may be delivered twice);
 *   `at-most-once` does not (it may be delivered never). A delete that returns OK is ours:
 *   exactly once.
 *
 * Trace: `recipe.queue {queue, client, session, delivery, event, item, node?, seq?,
 * priority?, outcome?, unsure?}`: `offer` (outcome `ok` | `unknown`), `take` (`unsure`
 * marks the ambiguous at-least-once hand-over), `dropped` (an ambiguous item an at-most-once
 * consumer did not hand over), `wait` (a consumer found the queue empty and waits for a child),
 * `drained` (the application's statement that the queue is empty
 * and no producer is running).
 */
import type { ZooKeeper } from "../zk/client/index.js";
import { Code } from "../zk/proto/error-code.js";
import { CreateMode, Ids } from "../zk/proto/records.js";
import {
  SessionLostError,
  decodeText,
  ensurePath,
  hasCode,
  isRecoverable,
  isSessionFatal,
  keeperCode,
  retrying,
  sequenceOf,
  bySequence,
  watchOnce,
  type RecipeHost,
} from "./recipe-support.js";
import type { TraceAnnotations } from "../sim/trace-schema.js";

export type Delivery = "at-least-once" | "at-most-once";

/**
 * The consumer's code: `careful`, the recipe above; `expired-take`, a deliberately broken consumer (a canary): when
 * its delete fails because its session expired, it hands the item over as surely taken — as
 * if the delete had gone through before the session died — though another consumer may have
 * taken it meanwhile.
 */
export type QueueConsumer = "careful" | "expired-take";

export interface QueueOptions {
  delivery?: Delivery;
  consumer?: QueueConsumer;
}

export interface QueueItem {
  id: string;
  node: string;
  seq: number;
  priority: number;
  data: string;
}

export class DistributedQueue {
  readonly delivery: Delivery;
  private readonly consumer: QueueConsumer;

  constructor(
    protected readonly zk: ZooKeeper,
    protected readonly host: RecipeHost,
    readonly dir: string,
    options: QueueOptions = {},
  ) {
    this.delivery = options.delivery ?? "at-least-once";
    this.consumer = options.consumer ?? "careful";
  }

  async init(): Promise<void> {
    await ensurePath(this.zk, this.host, "queue", this.dir);
  }

  /** Enqueues `data` under the caller-unique `id` ([A-Za-z0-9._]). Resolves with the node name. */
  async offer(id: string, data: string): Promise<string> {
    return this.offerNamed(id, `qn-${id}-`, data, 0);
  }

  /** Enqueues under the node-name `prefix`; `priority` is for the trace (0 in a FIFO queue). */
  protected async offerNamed(id: string, prefix: string, data: string, priority: number): Promise<string> {
    if (!/^[A-Za-z0-9._]+$/.test(id)) throw new Error(`queue ${this.dir}: item id "${id}" must match [A-Za-z0-9._]+`);
    try {
      return await this.createItem(id, prefix, data, priority);
    } catch (err) {
      // The session died with a create in doubt (sent, or lost to CONNECTIONLOSS and then the
      // look-up failed too): the item may be in the queue.
      if (err instanceof SessionLostError) this.emit({ event: "offer", item: id, outcome: "unknown", priority });
      throw err;
    }
  }

  private async createItem(id: string, prefix: string, data: string, priority: number): Promise<string> {
    let retried = false;
    for (;;) {
      try {
        const path = await this.zk.create(`${this.dir}/${prefix}`, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        return this.offered(id, path.slice(this.dir.length + 1), priority, retried);
      } catch (err) {
        if (isSessionFatal(err)) throw new SessionLostError("queue", keeperCode(err));
        if (!isRecoverable(err)) throw err;
      }
      retried = true;
      const children = await retrying(this.host, "queue", () => this.zk.getChildren(this.dir));
      const mine = children.find((c) => c.startsWith(prefix));
      if (mine !== undefined) return this.offered(id, mine, priority, retried);
    }
  }

  private offered(id: string, name: string, priority: number, retried: boolean): string {
    this.emit({ event: "offer", item: id, node: name, seq: sequenceOf(name), priority, outcome: "ok", retried });
    return name;
  }

  /** Takes the head of the queue, or returns undefined if the queue is empty. */
  async poll(): Promise<QueueItem | undefined> {
    for (;;) {
      const names = this.ordered(await this.readChildren());
      if (names.length === 0) return undefined;
      for (const name of this.candidates(names)) {
        const item = await this.tryTake(name);
        if (item !== undefined) return item;
      }
    }
  }

  /** Takes the head of the queue, waiting (children watch) while it is empty. */
  async take(): Promise<QueueItem> {
    for (;;) {
      const item = await this.poll();
      if (item !== undefined) return item;
      await this.awaitItems();
    }
  }

  /** Waits until the queue may have items (a children watch), or `timeoutMs` of local time. */
  async awaitItems(timeoutMs?: number): Promise<void> {
    const w = watchOnce(this.host);
    const children = await retrying(this.host, "queue", () => this.zk.getChildren(this.dir, w.watcher));
    if (children.length > 0) return;
    this.emit({ event: "wait" });
    await (timeoutMs === undefined ? w.fired : Promise.race([w.fired, this.host.sleepMs(timeoutMs)]));
  }

  /** Every item currently in the queue, in order (a read; nothing is taken). */
  async peekAll(): Promise<string[]> {
    return this.ordered(await retrying(this.host, "queue", () => this.zk.getChildren(this.dir)));
  }

  private async tryTake(name: string): Promise<QueueItem | undefined> {
    const path = `${this.dir}/${name}`;
    let data: string;
    try {
      data = decodeText((await retrying(this.host, "queue", () => this.zk.getData(path))).data);
    } catch (err) {
      if (hasCode(err, Code.NONODE)) return undefined;
      throw err;
    }
    const item = this.itemOf(name, data);
    let unsure = false;
    for (;;) {
      try {
        await this.zk.delete(path, -1);
        return this.taken(item, false);
      } catch (err) {
        // After an unknown outcome the session may die before we learn it: the delete may have
        // happened, so the item is handed over or dropped below, never silently lost (the next
        // call reports the lost session).
        // The expired-take canary's flaw: a delete refused for a dead session counts as done.
        if (isSessionFatal(err) && this.consumer === "expired-take") return this.taken(item, false);
        if (isSessionFatal(err) && !unsure) throw new SessionLostError("queue", keeperCode(err));
        if (hasCode(err, Code.NONODE) || isSessionFatal(err)) break;
        if (!isRecoverable(err)) throw err;
        unsure = true;
      }
    }
    if (!unsure) return undefined; // another consumer took it
    if (this.delivery === "at-least-once") return this.taken(item, true);
    this.emit({ event: "dropped", item: item.id, node: name, seq: item.seq, priority: item.priority });
    return undefined;
  }

  private taken(item: QueueItem, unsure: boolean): QueueItem {
    this.emit({ event: "take", item: item.id, node: item.node, seq: item.seq, priority: item.priority, unsure });
    return item;
  }

  /** The children a consumer chooses from (FIFO: any server's list will do, its order is the sequence). */
  protected readChildren(): Promise<string[]> {
    return retrying(this.host, "queue", () => this.zk.getChildren(this.dir));
  }

  /** The queue's order: sequence numbers. */
  protected ordered(names: readonly string[]): string[] {
    return bySequence(names);
  }

  /** Which of an ordered list a consumer tries before reading again: FIFO works through all of it. */
  protected candidates(ordered: readonly string[]): readonly string[] {
    return ordered;
  }

  /** The priority a node name carries (none in a FIFO queue). */
  protected priorityOf(_name: string): number {
    return 0;
  }

  private itemOf(name: string, data: string): QueueItem {
    const m = /^qn-(?:\d{2}-)?(.+)-(\d{10})$/.exec(name);
    if (m === null) throw new Error(`queue ${this.dir}: unexpected child ${name}`);
    return { id: m[1]!, node: name, seq: Number(m[2]), priority: this.priorityOf(name), data };
  }

  /** The application's word that the queue is empty and no producer runs (for the checker). */
  drained(): void {
    this.emit({ event: "drained" });
  }

  private emit(fields: Omit<TraceAnnotations["recipe.queue"], "queue" | "client" | "session" | "delivery">): void {
    this.host.annotate("recipe.queue", { queue: this.dir, client: this.host.id, session: this.zk.getSessionIdHex(), delivery: this.delivery, ...fields });
  }
}
