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
 * recipe-queue-pause is recipe-queue with another aimed fault: its last consumer is paused past
 * its session between the read that chose an item and the delete that takes it (the canary
 * `queue-takes-on-expiry` counts that refused delete as a take, and is caught delivering twice).
 */
import type { ZooKeeper } from "../../zk/client/index.js";
import type { NodeContext } from "../../sim/node-context.js";
import { DistributedQueue, type QueueConsumer, type QueueOptions } from "../../recipes/queue.js";
import { DistributedPriorityQueue, type PriorityQueueOptions } from "../../recipes/priority-queue.js";
import type { ClientInvokeFields } from "../../zk/trace-events.js";
import type { ScriptContext, ScriptDef, WorkloadKnob } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, untilCheckPhase, withSessions, cutRepliesOnInvoke, REPLY_CUT_MS, paced, workloadPriorities, onInvoke, startDelay } from "./recipe-support.js";

export const QUEUE_DIR = "/app/queue";

/** How long the priority queue's consumers let a backlog build before their first take. */
const PRIORITY_BACKLOG_MS = 3000;

/** The queue a story runs: how to open it on a handle, how its producers offer (the `i`th item of producer `index`), when its consumers start. */
interface QueueKind<Q extends DistributedQueue> {
  open(s: ScriptContext, zk: ZooKeeper, host: NodeContext): Q;
  offer(s: ScriptContext, q: Q, id: string, i: number, index: number): Promise<string>;
  consumersStartMs: number;
  /** The workload knobs its story reads. */
  knobs: readonly WorkloadKnob[];
}

function fifoQueue(options: QueueOptions): QueueKind<DistributedQueue> {
  return { open: (s, zk, host) => new DistributedQueue(zk, host, QUEUE_DIR, { ...options, consumer: queueConsumerOf(s) }), offer: (_s, q, id) => q.offer(id, `job ${id}`), consumersStartMs: 0, knobs: ["pacePercent"] };
}

function priorityQueue(options: PriorityQueueOptions): QueueKind<DistributedPriorityQueue> {
  return {
    open: (_s, zk, host) => new DistributedPriorityQueue(zk, host, QUEUE_DIR, options),
    offer: (s, q, id, i, index) => {
      const given = workloadPriorities(s);
      return q.offer(id, `job ${id}`, given !== undefined ? given[(i + index) % given.length]! : (i * 7 + index * 3) % 5);
    },
    consumersStartMs: PRIORITY_BACKLOG_MS,
    knobs: ["pacePercent", "priorities"],
  };
}

async function producer<Q extends DistributedQueue>(s: ScriptContext, node: string, index: number, kind: QueueKind<Q>): Promise<void> {
  let i = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const q = kind.open(s, zk, host);
    await q.init();
    while (i === 0 || inFaultWindow(s)) {
      const id = `${node}.${i++}`;
      await kind.offer(s, q, id, i, index);
      await host.sleepMs(paced(s, 400 + 61 * index));
    }
  });
}

async function consumer<Q extends DistributedQueue>(s: ScriptContext, node: string, kind: QueueKind<Q>, producersDone: () => boolean): Promise<void> {
  if (kind.consumersStartMs > 0) await startDelay(s, node, kind.consumersStartMs);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const q = kind.open(s, zk, host);
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

/** The scripted fault of a queue story, armed before the workers start: it aims at the consumers. */
type ArmFault = (s: ScriptContext, consumers: readonly string[]) => void;

/** The first consumer's first take loses its delete's reply (the unknown outcome), as in the header. */
const cutFirstTakeReply: ArmFault = (s, consumers) => {
  const k1 = consumers[0]!;
  cutRepliesOnInvoke(s, k1, isTake, REPLY_CUT_MS, `${k1}'s first delete reached the servers, but their replies are cut: its outcome will be unknown`);
};

const isTake = (f: ClientInvokeFields) => f.op === "delete" && f.path.startsWith(`${QUEUE_DIR}/`);

/** The FIFO consumer a run's canary asks for: `expired-take` under `queue-takes-on-expiry`, else the careful one. */
const queueConsumerOf = (s: ScriptContext): QueueConsumer => (s.canary === "queue-takes-on-expiry" ? "expired-take" : "careful");

/** Past the consumers' session timeout (RECIPE_SESSION_TIMEOUT_MS), well past their read timeout. */
const TAKE_PAUSE_MS = 10_000;
/** Which of the paused consumer's item reads the pause lands on (a backlog has built by then). */
const PAUSED_READ = 3;

/**
 * The last consumer is paused (a GC pause) for TAKE_PAUSE_MS as it reads its PAUSED_READth item:
 * between the read that chose the item and the delete that takes it. Its session expires
 * meanwhile and another consumer takes that item; when it resumes, its delete must not count.
 */
const pauseInTake: ArmFault = (s, consumers) => {
  const k = consumers[consumers.length - 1]!;
  let reads = 0;
  const isItemRead = (f: ClientInvokeFields, node: string) => node === k && f.op === "getData" && f.path.startsWith(`${QUEUE_DIR}/`) && ++reads === PAUSED_READ;
  onInvoke(s, isItemRead, { kind: "pause", node: k }, () => {
    s.note(`${k} is paused for ${TAKE_PAUSE_MS} ms as it reads an item it is about to take (past its ${RECIPE_SESSION_TIMEOUT_MS} ms session)`);
    s.sim.schedule(s.sim.nowUs + TAKE_PAUSE_MS * 1000, () => s.fault({ kind: "resume", node: k }));
  });
};

function queueScript<Q extends DistributedQueue>(name: string, kind: QueueKind<Q>, recipeCheckers: readonly string[], description: string, arm: ArmFault = cutFirstTakeReply): ScriptDef {
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
      arm(s, consumers);
      let producing = producers.length;
      const done = () => producing === 0 && !inFaultWindow(s);
      const workers: Record<string, Promise<void>> = {};
      producers.forEach((p, index) => (workers[p] = producer(s, p, index, kind).finally(() => producing--)));
      for (const k of consumers) workers[k] = consumer(s, k, kind, done);
      await joinWorkers(s, workers, 120_000);
      await untilCheckPhase(s);
      const checker = consumers[consumers.length - 1]!;
      const zk = await connectClient(s, checker, RECIPE_SESSION_TIMEOUT_MS);
      const q = kind.open(s, zk, hostOf(s, checker));
      await zk.sync(QUEUE_DIR);
      s.expectEqual(await q.peekAll(), [], "the queue is empty after the drain");
      q.drained();
      await zk.close();
    },
  };
}

const PRIORITY_CHECKERS = ["recipe.queue", "recipe.priority-queue"];

export const recipeQueuePause = queueScript(
  "recipe-queue-pause",
  fifoQueue({ delivery: "at-least-once" }),
  ["recipe.queue"],
  "FIFO queue (at-least-once) whose consumer is paused past its session between reading an item and deleting it: another consumer takes that item, and it is neither lost nor taken twice",
  pauseInTake,
);

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
