/**
 * recipe-counter (and its naive twin): four clients increment a shared counter by versioned
 * compare-and-set through the fault window. The first increment write of c1 is hit by a
 * CONNECTIONLOSS that the write itself survives (the replies to c1 are cut until it gives up
 * on the connection): the careful counter recognises its own increment by its marker; the
 * blind-retry twin increments again and the final value exceeds what was acknowledged. A
 * worker whose session dies mid-increment settles the unknown increment from a new session.
 * Check phase: the final value equals the acknowledged increments.
 */
import { DistributedCounter, type CounterVariant } from "../../recipes/counter.js";
import { SessionLostError } from "../../recipes/recipe-support.js";
import type { ClientInvokeFields } from "../../zk/trace-events.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, connectClient, hostOf, joinWorkers, settle, untilCheckPhase, withSessions, clientWorkers, cutRepliesOnInvoke, REPLY_CUT_MS, paced, startOffsetMs, startDelay, recipeHostOf } from "./recipe-support.js";

export const COUNTER_PATH = "/app/counter";

async function incrementer(s: ScriptContext, node: string, index: number, variant: CounterVariant, tally: { acked: number }): Promise<void> {
  let next = 0;
  let unresolved: number | undefined;
  await startDelay(s, node, startOffsetMs(s, index, 31 * index));
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const counter = new DistributedCounter(zk, recipeHostOf(s, host), COUNTER_PATH, { variant, firstIncrement: next });
    await counter.init();
    if (unresolved !== undefined && (await counter.resolve(unresolved))) tally.acked++;
    unresolved = undefined;
    while (counter.nextIncrement === 0 || inFaultWindow(s)) {
      try {
        await counter.increment();
        tally.acked++;
      } catch (err) {
        if (err instanceof SessionLostError) unresolved = counter.unresolved;
        throw err;
      } finally {
        next = counter.nextIncrement;
      }
      await host.sleepMs(paced(s, 350 + 37 * index));
    }
  });
}

function counterScript(name: string, variant: CounterVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.counter"],
    clientRange: [1, 8],
    workloadKnobs: ["pacePercent", "startOffsetsMs"],
    async run(s) {
      await settle(s);
      const isIncrement = (f: ClientInvokeFields) => f.op === "setData" && f.path === COUNTER_PATH;
      cutRepliesOnInvoke(s, "c1", isIncrement, REPLY_CUT_MS, "c1's first increment reached the servers, but their replies to c1 are cut: CONNECTIONLOSS is coming");
      const tally = { acked: 0 };
      await joinWorkers(s, clientWorkers(s, (c, i) => incrementer(s, c, i, variant, tally)), 120_000);
      await untilCheckPhase(s);
      const reader = await connectClient(s, s.clients[0]!, RECIPE_SESSION_TIMEOUT_MS);
      const value = await new DistributedCounter(reader, hostOf(s, s.clients[0]!), COUNTER_PATH).get(true);
      s.note(`final value ${value}; ${tally.acked} increments acknowledged`);
      if (variant === "marker") s.expectEqual(value, tally.acked, "the counter equals the acknowledged increments");
      await reader.close();
    },
  };
}

export const recipeCounter = counterScript("recipe-counter", "marker", "a counter by versioned compare-and-set with a per-client marker: CONNECTIONLOSS never counts twice");
export const recipeCounterNaive = counterScript("recipe-counter-naive", "blind-retry", "naive counter: blindly retries after CONNECTIONLOSS and counts an increment twice");
