/**
 * recipe-queue and recipe-queue-priority: two producers (c1, c2) and two consumers (c3, c4)
 * through the fault window, then a drain. The first delete of c3 is hit by a CONNECTIONLOSS
 * that the delete itself survives (the replies to c3 are cut until it gives up on the
 * connection), so its retried delete meets NONODE: the FIFO queue (at-least-once) hands the
 * item over anyway, marked unsure; the priority queue (at-most-once) drops it and says so.
 * Check phase: producers stop, consumers drain, the queue is empty.
 */
import { DistributedQueue, type QueueOptions } from "../../recipes/queue.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, untilCheckPhase, withSessions, cutRepliesOnInvoke, REPLY_CUT_MS } from "./recipe-support.js";

export const QUEUE_DIR = "/app/queue";

async function producer(s: ScriptContext, node: string, index: number, options: QueueOptions): Promise<void> {
  const host = hostOf(s, node);
  let i = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const q = new DistributedQueue(zk, host, QUEUE_DIR, options);
    await q.init();
    while (i === 0 || inFaultWindow(s)) {
      const id = `${node}.${i++}`;
      await q.offer(id, `job ${id}`, options.priority === true ? (i * 7 + index * 3) % 5 : 0);
      await host.sleepMs(400 + 61 * index);
    }
  });
}

async function consumer(s: ScriptContext, node: string, options: QueueOptions, producersDone: () => boolean): Promise<void> {
  const host = hostOf(s, node);
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk) => {
    const q = new DistributedQueue(zk, host, QUEUE_DIR, options);
    await q.init();
    for (;;) {
      const item = await q.poll();
      if (item !== undefined) {
        await host.sleepMs(150);
        continue;
      }
      if (producersDone()) return;
      await q.awaitItems(500);
    }
  });
}

function queueScript(name: string, options: QueueOptions, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.queue"],
    async run(s) {
      await settle(s);
      const [p1, p2, k1, k2] = s.clients as [string, string, string, string];
      const isTake = (f: Record<string, unknown>) => f.op === "delete" && typeof f.path === "string" && f.path.startsWith(`${QUEUE_DIR}/`);
      cutRepliesOnInvoke(s, k1, isTake, REPLY_CUT_MS, `${k1}'s first delete reached the servers, but their replies are cut: its outcome will be unknown`);
      let producing = 2;
      const done = () => producing === 0 && !inFaultWindow(s);
      const workers: Record<string, Promise<void>> = {
        [p1]: producer(s, p1, 0, options).finally(() => producing--),
        [p2]: producer(s, p2, 1, options).finally(() => producing--),
        [k1]: consumer(s, k1, options, done),
        [k2]: consumer(s, k2, options, done),
      };
      await joinWorkers(s, workers, 120_000);
      await untilCheckPhase(s);
      const zk = await connectClient(s, k2, RECIPE_SESSION_TIMEOUT_MS);
      const q = new DistributedQueue(zk, hostOf(s, k2), QUEUE_DIR, options);
      await zk.sync(QUEUE_DIR);
      s.expectEqual(await q.peekAll(), [], "the queue is empty after the drain");
      q.drained();
      await zk.close();
    },
  };
}

export const recipeQueue = queueScript("recipe-queue", { delivery: "at-least-once" }, "FIFO queue, at-least-once delivery: an unknown delete outcome is handed over (maybe twice), never lost");
export const recipeQueuePriority = queueScript("recipe-queue-priority", { delivery: "at-most-once", priority: true }, "priority queue, at-most-once delivery: an unknown delete outcome is dropped (maybe lost), never handed over twice");
