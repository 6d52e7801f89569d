/**
 * client-traffic: client traffic under the scenario's own fault schedule — the script that
 * generated scenarios (src/property/) run. Unlike zab-random-faults it injects nothing itself:
 * the faults are data in the scenario, so a shrunk case is a short readable schedule.
 *
 * Parameters: `{"kind": "zk", "script": "client-traffic", "servers": 3, "clients": 2,
 * "traffic": {"keys": 4, "opGapMsMax": 300, "sessionTimeoutMs": 6000, "mix": {...}, "untilMs": 20000}}`
 * (see traffic.ts for the fields and their defaults).
 *
 * Run shape (TigerBeetle's VOPR, Maelstrom's heal-then-read):
 *   1. create the root, retrying from any client until it works (faults may already be landing);
 *   2. every client runs random ops until `traffic.untilMs` — the schedule's fault window must
 *      end (everything undone) by then;
 *   3. convergence within a budget: one serving leader (ensembles), then every client syncs and
 *      reads the key space and all must agree.
 * The script judges only liveness-shaped expectations; safety is the checkers' job.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { createClient, KeeperException } from "../../zk/client/index.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import { EnsembleView } from "./ensemble.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { finalReads, parseTraffic, TRAFFIC_ROOT, TrafficClient, type TrafficDocument } from "./traffic.js";

/** After `untilMs`: the time the ensemble has to settle again (and the root to be created). */
export const CONVERGENCE_BUDGET_MS = 30_000;
/** After the budget: time for the clients to stop and the final reads (four rounds at most). */
export const FINAL_READS_MS = 30_000;

/** Creates the root from some client that can reach a server, trying each in turn until `deadlineUs`. */
async function createRoot(s: ScriptContext, deadlineUs: number): Promise<boolean> {
  for (let attempt = 0; s.sim.nowUs < deadlineUs; attempt++) {
    const node = s.clients[attempt % s.clients.length]!;
    const ctx = s.sim.node(node).context;
    if (ctx === undefined) throw new Error(`client node ${node} is down`);
    const zk = createClient(ctx, { connectString: s.servers.map((id) => `${id}:${CLIENT_PORT}`).join(","), sessionTimeoutMs: 10_000, ...s.clientDefaults });
    try {
      for (let i = 0; i < 500 && zk.getState() !== "CONNECTED" && s.sim.nowUs < deadlineUs; i++) await s.sleepMs(10);
      if (zk.getState() !== "CONNECTED" || s.sim.node(node).status !== "up") continue;
      await zk.create(TRAFFIC_ROOT, "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      return true;
    } catch (err) {
      if (!(err instanceof KeeperException)) throw err;
      // NODEEXISTS: an earlier attempt's create took effect after its CONNECTIONLOSS.
      if (err.codeName === "NODEEXISTS") return true;
    } finally {
      // Not awaited: a handle that never connected closes only when its connection gives up.
      void zk.close();
    }
  }
  return false;
}

/**
 * Steps 1 and 2: creates the root (by `rootByUs`, else a failed expectation, `why` saying what
 * the deadline is, and undefined), then every client runs its traffic until `traffic.untilMs`;
 * returns the clients, still running (stop them).
 */
export async function runTraffic(s: ScriptContext, traffic: TrafficDocument, rootByUs: number, why: string): Promise<TrafficClient[] | undefined> {
  if (!(await createRoot(s, rootByUs))) {
    s.expect(false, `the root ${TRAFFIC_ROOT} could be created by ${rootByUs / 1000} ms ${why}`);
    return undefined;
  }
  const clients = s.clients.map((c) => new TrafficClient(s, c, s.sim.rng.fork("traffic").fork(c), traffic));
  const untilUs = traffic.untilMs * 1000;
  if (s.sim.nowUs < untilUs) await s.sleepMs((untilUs - s.sim.nowUs) / 1000);
  return clients;
}

export const clientTraffic: ScriptDef = {
  name: "client-traffic",
  description: "clients run random ops while the scenario's fault schedule plays; then heal, converge and read",
  paramKeys: ["traffic"],
  checkParams: (params) => void parseTraffic(params.traffic),
  async run(s) {
    const traffic = parseTraffic(s.params.traffic);
    const convergedByUs = traffic.untilMs * 1000 + CONVERGENCE_BUDGET_MS * 1000;
    const clients = await runTraffic(s, traffic, convergedByUs, `(${CONVERGENCE_BUDGET_MS} ms after the traffic phase)`);
    if (clients === undefined) return;
    s.note(`${(s.sim.nowUs / 1000).toFixed(0)}ms: traffic ends, convergence begins`);
    if (s.servers.length > 1) {
      const budgetMs = Math.max(1, (convergedByUs - s.sim.nowUs) / 1000);
      if ((await new EnsembleView(s.sim, s).settled(budgetMs, "the healed ensemble converges: one serving leader, every server serving")) === undefined) return;
    }
    for (const c of clients) c.stop();
    await Promise.all(clients.map((c) => c.done));
    await finalReads(s);
  },
};
