/**
 * recipe-lock (and its naive twins): every client takes the exclusive lock again and again
 * through the fault window, writes
 * to a fenced resource while holding it, and releases it. The first lock create of c1 is hit
 * by a CONNECTIONLOSS that the create itself survives (the reply is held by a one-way cut until
 * the client gives up on the connection): the careful recipe finds its node by its session id;
 * the blind-retry variant creates a second one and waits behind its own orphan forever. The
 * herd variant is correct but wakes every waiter on every change (checker `recipe.lock-herd`).
 * Faults beyond that trap come from the scenario's schedule.
 */
import type { ZooKeeper } from "../../zk/client/index.js";
import { DistributedLock, type LockVariant } from "../../recipes/lock.js";
import { FencedResource } from "../../recipes/fenced-resource.js";
import { CreateMode } from "../../zk/proto/records.js";
import type { ClientInvokeFields } from "../../zk/trace-events.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import type { NodeContext } from "../../sim/node-context.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, STORAGE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, withSessions, clientWorkers, cutRepliesOnInvoke, REPLY_CUT_MS, paced, startOffsetMs, lockVariantOf, startDelay } from "./recipe-support.js";

export const LOCK_DIR = "/app/lock";
export const LOCK_RESOURCE = "/app/storage";
const HOLD_MS = 300;

async function lockWorker(s: ScriptContext, node: string, index: number, variant: LockVariant): Promise<void> {
  // The storage connection, a handle of its own per process (a crash ends it with the process).
  let store: { zk: ZooKeeper; host: NodeContext; resource: FencedResource } | undefined;
  const storage = async (host: NodeContext, init: boolean): Promise<FencedResource> => {
    if (store === undefined || store.host !== host || store.zk.getState() === "CLOSED") {
      const zk = await connectClient(s, node, STORAGE_SESSION_TIMEOUT_MS);
      store = { zk, host, resource: new FencedResource(zk, host, LOCK_RESOURCE) };
      if (init) await store.resource.init();
    }
    return store.resource;
  };
  await storage(hostOf(s, node), true);
  await startDelay(s, node, startOffsetMs(s, index, 37 * index));
  let done = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const lock = new DistributedLock(zk, host, LOCK_DIR, { variant: lockVariantOf(s, variant) });
    // Rounds go on through the fault window, so the faults hit holders and waiters.
    while (done === 0 || inFaultWindow(s)) {
      const grant = await lock.acquire();
      await host.sleepMs(paced(s, HOLD_MS));
      const resource = await storage(host, false);
      if (lock.isHeld()) await resource.write(grant.token, `${node} round ${done}`);
      await lock.release();
      done++;
      await host.sleepMs(paced(s, 100 + 53 * index));
    }
  });
  await store?.zk.close();
}

function lockScript(name: string, variant: LockVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.lock-mutex", "recipe.lock-herd", "recipe.lock-fencing"],
    clientRange: [1, 8],
    workloadKnobs: ["pacePercent", "startOffsetsMs"],
    async run(s) {
      await settle(s);
      const isLockCreate = (f: ClientInvokeFields) => f.op === "create" && f.mode === CreateMode.EPHEMERAL_SEQUENTIAL;
      cutRepliesOnInvoke(s, "c1", isLockCreate, REPLY_CUT_MS, "c1's lock create reached the servers, but their replies to c1 are cut: CONNECTIONLOSS is coming");
      await joinWorkers(s, clientWorkers(s, (c, i) => lockWorker(s, c, i, variant)), 240_000);
      s.note(`${variant} lock: every worker finished its rounds`);
    },
  };
}

export const recipeLock = lockScript("recipe-lock", "herd-free", "exclusive lock without herd effect; a CONNECTIONLOSS on a sequential create is resolved by the session id in the name");
export const recipeLockNaiveHerd = lockScript("recipe-lock-naive-herd", "herd", "naive lock: every waiter watches the lock directory (herd effect)");
export const recipeLockNaiveRetry = lockScript("recipe-lock-naive-retry", "blind-retry", "naive lock: blindly retries the sequential create after CONNECTIONLOSS and deadlocks behind its own orphan");
