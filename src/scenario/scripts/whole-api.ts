/**
 * whole-api: the whole client API under faults, judged against the reference model
 * (check/linearizability/zk-model.ts) by the client checkers. The api-swarm workload builds the
 * deployment the seed picks (a standalone server or an ensemble); this script drives it:
 *
 *   1. settle; a super-user handle creates the root /wa and its subtrees /wa/t0 … (open ACLs);
 *   2. fault phase: records `workload.phase` {phase: "faults"} (the nemesis's anchor); every
 *      client node runs `sessionsPerClient` actors (api-actor.ts), each a handle drawing calls
 *      from the seed's plan, while the drawn faults land;
 *   3. heal everything — links, clogs, loss, pauses, crashed servers and clients, disks, clocks;
 *   4. convergence within a budget: one serving leader and every running server serving (a
 *      standalone server serving), then the actors stop and close their handles;
 *   5. heal-then-read: every client node opens a super-user handle, syncs and reads the whole
 *      /wa tree (data, Stat, ACL, the number of nodes); all must agree once nothing is in flight
 *      (sessions of crashed clients expiring, containers and TTL nodes being reaped).
 *
 * The script judges only liveness-shaped expectations (settles, reads agree); the reference
 * model judges every reply, over the trace.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { KeeperException, type ZooKeeper } from "../../zk/client/index.js";
import { FAULT_PHASE_EVENT } from "../nemesis/zab-swarm.js";
import { apiPlanOf } from "../workloads/api-swarm-shape.js";
import { ApiActor } from "./api-actor.js";
import { API_ROOT, SUPER_CREDENTIALS, subtreePath } from "./api-draws.js";
import { CrashWatch, SessionBook } from "./api-world.js";
import { EnsembleView } from "./ensemble.js";
import { tolerate } from "./traffic.js";
import type { ScriptContext, ScriptDef } from "./script.js";

const CONVERGENCE_BUDGET_MS = 40_000;
/** Rounds of final reads (5 s apart) before disagreeing views are a failed expectation. */
const FINAL_READ_ROUNDS = 8;

/** Ends every fault, servers and clients alike: the start of the convergence phase. */
export function healEverything(s: ScriptContext): void {
  s.fault({ kind: "heal" });
  s.fault({ kind: "unclog" });
  s.fault({ kind: "loss", rate: 0 });
  s.fault({ kind: "duplicate", rate: 0 });
  for (const node of [...s.servers, ...s.clients]) {
    const status = s.sim.node(node).status;
    if (status === "paused") s.fault({ kind: "resume", node });
    if (status === "down") s.fault({ kind: "start", node });
    s.fault({ kind: "clock", node, rate: 1 });
  }
  for (const node of s.servers) s.fault({ kind: "disk", node, fault: "ok" });
  s.note(`${(s.sim.nowUs / 1000).toFixed(0)}ms: healed everything`);
}

/** Waits until the deployment serves: the ensemble's serving leader, or the standalone server. */
async function converged(s: ScriptContext, budgetMs: number, what: string): Promise<boolean> {
  if (s.servers.length > 1) return (await new EnsembleView(s.sim, s).settled(budgetMs, what, true)) !== undefined;
  return s.waitFor(() => s.sim.node(s.servers[0]!).status === "up", budgetMs, what);
}

export const wholeApi: ScriptDef = {
  name: "whole-api",
  description: "every call of the client API from seed-weighed actors under drawn faults, then heal, converge and read back",
  paramKeys: ["faultPhaseMs"],
  async run(s) {
    const plan = apiPlanOf(s.sim.rng, s.params.faultPhaseMs as number | undefined);
    // The first wait must be the kernel's: the kernel runs the continuations of user code only
    // after an event that settled one of its own promises (a standalone server serves at once).
    await s.sleepMs(1);
    if (!(await converged(s, 30_000, "the deployment serves"))) return;
    const admin = await s.connect(s.clients[0]!);
    admin.addAuthInfo("digest", SUPER_CREDENTIALS);
    await admin.create(API_ROOT, "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    for (let t = 0; t < plan.subtrees; t++) await admin.create(subtreePath(t), "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    await admin.close();
    const on = Object.entries(plan.weights).filter(([, w]) => w > 0).map(([k]) => k);
    s.note(`plan: fault phase ${plan.faultPhaseMs} ms, ${plan.subtrees} subtrees, ${plan.sessionsPerClient} session(s) per client, ops ${on.join(" ")}`);

    const book = new SessionBook(s.sim);
    const crashes = new CrashWatch(s.sim);
    const api = s.sim.rng.fork("api");
    const addresses = (node: string) => [node, ...s.clients.filter((c) => c !== node)].map((c) => s.sim.node(c).context!.addressOf(c));
    const actors: ApiActor[] = [];
    for (const node of s.clients) {
      for (let i = 0; i < plan.sessionsPerClient; i++) actors.push(new ApiActor(s, node, `${node}-${i}`, api.fork(`actor/${node}/${i}`), plan, book, crashes, addresses(node)));
    }
    s.sim.trace.record(s.sim.nowUs, FAULT_PHASE_EVENT.kind, "", undefined, undefined, undefined, { phase: FAULT_PHASE_EVENT.phase });
    await s.sleepMs(plan.faultPhaseMs);
    healEverything(s);
    const backlogMs = Math.max(0, ...s.servers.map((id) => Math.ceil((s.sim.node(id).disk.fsyncQueueDrainsAtUs - s.sim.nowUs) / 1000)));
    const ok = await converged(s, backlogMs + CONVERGENCE_BUDGET_MS, "the healed deployment converges: one serving leader, every server serving (but one whose acceptedEpoch is ahead of the leader's)");
    for (const a of actors) a.stop();
    await Promise.all(actors.map((a) => a.done));
    if (ok) await finalReads(s);
  },
};

/** Every client node reads the /wa tree back after a sync; all must agree (a few rounds apart). */
async function finalReads(s: ScriptContext): Promise<void> {
  let views: string[] = [];
  for (let round = 0; round < FINAL_READ_ROUNDS; round++) {
    views = [];
    for (const node of s.clients) views.push(await readTree(s, node));
    if (views.every((v) => v === views[0])) return;
    await s.sleepMs(5000);
  }
  s.expect(false, `after sync, every client reads the same /wa tree: ${views.join(" | ")}`);
}

async function readTree(s: ScriptContext, node: string): Promise<string> {
  const zk = await s.connect(node);
  zk.addAuthInfo("digest", SUPER_CREDENTIALS);
  await zk.sync(API_ROOT);
  const lines: string[] = [`total=${await zk.getAllChildrenNumber(API_ROOT)}`];
  await dump(zk, API_ROOT, lines);
  await tolerate(zk.close());
  return lines.join(";");
}

/** `path` and everything below it, depth first in name order: data, version, ACL, ephemeral or not. */
async function dump(zk: ZooKeeper, path: string, lines: string[]): Promise<void> {
  try {
    const { data, stat } = await zk.getData(path);
    const acl = (await zk.getACL(path)).acl.map((a) => `${a.id.scheme}:${a.id.id}:${a.perms}`).sort();
    lines.push(`${path}=${data === null ? "null" : hex(data)}@${stat.version}/${stat.aversion}${stat.ephemeralOwner === 0n ? "" : "E"}[${acl.join(",")}]`);
    for (const child of (await zk.getChildren(path)).sort()) await dump(zk, `${path}/${child}`, lines);
  } catch (err) {
    // Gone meanwhile (a reaped container, an expiring session's ephemeral): the next round sees.
    if (!(err instanceof KeeperException)) throw err;
    lines.push(`${path}=${err.codeName}`);
  }
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
