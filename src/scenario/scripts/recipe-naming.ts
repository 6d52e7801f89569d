/**
 * recipe-naming (and its naive twin): every client draws unique names from the naming service
 * through the fault window. The first naming create of c1 is hit by a CONNECTIONLOSS that the
 * create itself survives (the replies to c1 are cut until it gives up on the connection): the
 * recipe finds its node by the request's tag; the blind-retry twin creates a second node, and
 * the request holds two names, one leaked. Check phase: a fresh listing of the directory, in
 * which no request holds two names (`recipe.naming`).
 */
import { NamingService, type NamingVariant } from "../../recipes/naming-service.js";
import { CreateMode } from "../../zk/proto/records.js";
import type { ClientInvokeFields } from "../../zk/trace-events.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { inFaultWindow, RECIPE_SESSION_TIMEOUT_MS, REPLY_CUT_MS, clientWorkers, connectClient, cutRepliesOnInvoke, hostOf, joinWorkers, settle, untilCheckPhase, withSessions, paced } from "./recipe-support.js";

export const NAMES = "/app/names";
const NAME_EVERY_MS = 900;

/** Draws a name every NAME_EVERY_MS while the fault window lasts (at least once). */
export async function namer(s: ScriptContext, node: string, variant: NamingVariant = "look-up", index = 0): Promise<void> {
  let assigned = 0;
  await withSessions(s, node, RECIPE_SESSION_TIMEOUT_MS, async (zk, host) => {
    const naming = new NamingService(zk, host, NAMES, variant);
    while (assigned === 0 || inFaultWindow(s)) {
      await naming.assign("job");
      assigned++;
      await host.sleepMs(paced(s, NAME_EVERY_MS + 43 * index));
    }
  });
}

function namingScript(name: string, variant: NamingVariant, description: string): ScriptDef {
  return {
    name,
    description,
    recipeCheckers: ["recipe.naming"],
    clientRange: [1, 8],
    workloadKnobs: ["pacePercent"],
    async run(s) {
      await settle(s);
      const isNamingCreate = (f: ClientInvokeFields) => f.op === "create" && f.mode === CreateMode.PERSISTENT_SEQUENTIAL && f.path.startsWith(`${NAMES}/`);
      cutRepliesOnInvoke(s, "c1", isNamingCreate, REPLY_CUT_MS, "c1's naming create reached the servers, but their replies to c1 are cut: CONNECTIONLOSS is coming");
      await joinWorkers(s, clientWorkers(s, (c, i) => namer(s, c, variant, i)), 120_000);
      await untilCheckPhase(s);
      const zk = await connectClient(s, s.clients[0]!, RECIPE_SESSION_TIMEOUT_MS);
      s.note(`${(await new NamingService(zk, hostOf(s, s.clients[0]!), NAMES).list()).length} names drawn`);
      await zk.close();
    },
  };
}

export const recipeNaming = namingScript("recipe-naming", "look-up", "naming service through faults: sequential names tagged per request; a CONNECTIONLOSS never gives one request two names");
export const recipeNamingNaive = namingScript("recipe-naming-naive", "blind-retry", "naive naming service: blindly creates again after CONNECTIONLOSS, so one request holds two names and one leaks");
