/**
 * recipe-queue and recipe-queue-priority: producers (the first half of the clients: c1, c2 in
 * the scenarios) and consumers (the rest: c3, c4) through the fault window, then a drain. The
 * first delete of the first consumer is hit by a CONNECTIONLOSS
 * that the delete itself survives (the replies to c3 are cut until it gives up on the
 * connection), so its retried delete meets NONODE: the FIFO queue (at-least-once) hands the
 * item over anyway, marked unsure; the priority queue (at-most-once) drops it and says so.
 * The priority queue's consumers start late, so a backlog of mixed priorities waits for them
 * and order matters from the first take (`recipe.priority-queue`); its naive twin takes by
 * sequence alone and is caught. Check phase: producers stop, consumers drain, the queue is empty.
 */
import type { ZooKeeper } from "../../zk/client/index.js";
import type { NodeContext } from "../../sim/node-context.js";
import { DistributedQueue, type QueueOptions } from "../../recipes/queue.js";
import { DistributedPriorityQueue, type PriorityQueueOptions } from "../../recipes/priority-queue.js";
import type { ScriptContext, ScriptDef, WorkloadKnob } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, untilCheckPhase, withSessions, cutRepliesOnInvoke, REPLY_CUT_MS, paced, workloadPriorities } from "./recipe-support.js";

export const QUEUE_DIR = "/app/queue";

/** How long the priority queue's consumers let a backlog build before their first take. */
const PRIORITY_BACKLOG_MS = 3000;

/** The queue a story runs: how to open it on a handle, how its producers offer (the `i`th item of producer `index`), when its consumers start. */
interface QueueKind<Q extends DistributedQueue> {
  open(zk: ZooKeeper, host: NodeContext): Q;
  offer(s: ScriptContext, q: Q, id: string, i: number, index: number): Promise<string>;
  consumersStartMs: number;
  /** The workload knobs its story reads. */
  knobs: readonly WorkloadKnob[];
}

function fifoQueue(options: QueueOptions): QueueKind<DistributedQueue> {
  return { open: (zk, host) => new DistributedQueue(zk, host, QUEUE_DIR, options), offer: (_s, q, id) => q.offer(id, `job ${id}`), consumersStartMs: 0, knobs: ["pacePercent"] };
}

function priorityQueue(options: PriorityQueueOptions): QueueKind<DistributedPriorityQueue> {
  return {
    open: (zk, host) => new DistributedPriorityQueue(zk, host, QUEUE_DIR, options),
    offer: (s, q, id, i, index) => {
      const given = workloadPriorities(s);
      return q.offer(id, `job ${id}`, given !== undefined ? given[(i + index) % given.length]! : (i * 7 + index * 3) % 5);
    },
    consumersStartMs: PRIORITY_BACKLOG_MS,
    knobs: ["pacePercent", "priorities"],
  };
}

async function producer<Q extends DistributedQueue>(s: ScriptContext, node: string, index: number, kind: QueueKind<Q>): Promise<void> {
  const host = hostOf(s, node);
  let i = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const q = kind.open(zk, host);
    await q.init();
    while (i === 0 || inFaultWindow(s)) {
      const id = `${node}.${i++}`;
      await kind.offer(s, q, id, i, index);
      await host.sleepMs(paced(s, 400 + 61 * index));
    }
  });
}

async function consumer<Q extends DistributedQueue>(s: ScriptContext, node: string, kind: QueueKind<Q>, producersDone: () => boolean): Promise<void> {
  const host = hostOf(s, node);
  if (kind.consumersStartMs > 0) await host.sleepMs(kind.consumersStartMs);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const q = kind.open(zk, host);
    await q.init();
    for (;;) {
      const item = await q.poll();
      if (item !== undefined) {
        await host.sleepMs(paced(s, 150));
        continue;
      }
      if (producersDone()) return;
      await q.awaitItems(500);
    }
  });
}

function queueScript<Q extends DistributedQueue>(name: string, kind: QueueKind<Q>, recipeCheckers: readonly string[], description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers,
    clientRange: [2, 8],
    workloadKnobs: kind.knobs,
    async run(s) {
      await settle(s);
      const producers = s.clients.slice(0, Math.ceil(s.clients.length / 2));
      const consumers = s.clients.slice(producers.length);
      const k1 = consumers[0]!;
      const isTake = (f: Record<string, unknown>) => f.op === "delete" && typeof f.path === "string" && f.path.startsWith(`${QUEUE_DIR}/`);
      cutRepliesOnInvoke(s, k1, isTake, REPLY_CUT_MS, `${k1}'s first delete reached the servers, but their replies are cut: its outcome will be unknown`);
      let producing = producers.length;
      const done = () => producing === 0 && !inFaultWindow(s);
      const workers: Record<string, Promise<void>> = {};
      producers.forEach((p, index) => (workers[p] = producer(s, p, index, kind).finally(() => producing--)));
      for (const k of consumers) workers[k] = consumer(s, k, kind, done);
      await joinWorkers(s, workers, 120_000);
      await untilCheckPhase(s);
      const checker = consumers[consumers.length - 1]!;
      const zk = await connectClient(s, checker, RECIPE_SESSION_TIMEOUT_MS);
      const q = kind.open(zk, hostOf(s, checker));
      await zk.sync(QUEUE_DIR);
      s.expectEqual(await q.peekAll(), [], "the queue is empty after the drain");
      q.drained();
      await zk.close();
    },
  };
}

const PRIORITY_CHECKERS = ["recipe.queue", "recipe.priority-queue"];

export const recipeQueue = queueScript("recipe-queue", fifoQueue({ delivery: "at-least-once" }), ["recipe.queue"], "FIFO queue, at-least-once delivery: an unknown delete outcome is handed over (maybe twice), never lost");
export const recipeQueuePriority = queueScript(
  "recipe-queue-priority",
  priorityQueue({ delivery: "at-most-once" }),
  PRIORITY_CHECKERS,
  "priority queue, at-most-once delivery: more urgent items first; an unknown delete outcome is dropped (maybe lost), never handed over twice",
);
export const recipeQueuePriorityNaive = queueScript(
  "recipe-queue-priority-naive",
  priorityQueue({ delivery: "at-most-once", variant: "by-sequence" }),
  PRIORITY_CHECKERS,
  "naive priority queue: consumers take by sequence number alone, so urgent items wait behind older ones",
);
