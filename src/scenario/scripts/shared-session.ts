/**
 * Shared-session episodes for the swarm (issue 20, "one session attached through two servers").
 *
 * A ZooKeeper session may be re-attached by a second handle that presents its id and password
 * — a restarted process taking over the session its previous instance persisted — while the
 * old handle (the zombie) is still connected through another server. Whichever of them closes
 * the session ends it for both: from the moment the leader preps the closeSession, no request of
 * the session may take effect (PrepRequestProcessor marks the session closing; SessionTracker
 * checkSession answers SESSIONEXPIRED). ZOOKEEPER-1208 broke exactly that: an ephemeral created
 * through the other server between the close's prep and its commit outlived the session.
 *
 * One episode, all draws from the stream it is given (the script forks "swarm/shared-session",
 * so no other stream's draws change): the zombie handle attaches on one client node through
 * one server and creates its ephemeral; the successor attaches to the same session on another
 * client node through another server; the zombie closes the session and, a drawn 0–30 ms later
 * (the close still in flight or uncommitted), the successor issues one write — an ephemeral
 * create or a persistent write — then closes too. The faults of the run (slow disks, clogged
 * links) widen the window at random. Nothing here judges the outcome: a ZooKeeper error is an
 * expected answer, and the checkers read the trace (zk.session-txns: no txn of a session after
 * its closeSession).
 *
 * A handle that cannot connect within `ATTACH_BUDGET_MS` (its server down or cut off) ends the
 * episode: both handles are closed and nothing is written. So does a client node that is not up
 * when the episode would act on it (a nemesis paused or crashed it: a frozen process issues
 * nothing), or that crashes while the episode waits on it (its handle died with the process; the
 * wait would never end).
 */
import type { Rng } from "../../sim/rng.js";
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { createClient, type ZooKeeper } from "../../zk/client/index.js";
import { CLIENT_PORT } from "../../zk/proto/wire.js";
import type { ScriptContext } from "./script.js";
import { tolerate, TRAFFIC_ROOT } from "./traffic.js";

const OPEN = Ids.OPEN_ACL_UNSAFE;
/** How long a handle may take to connect before the episode gives up. */
const ATTACH_BUDGET_MS = 4000;
/** The largest gap between the zombie's close and the successor's write. */
const WRITE_GAP_MS_MAX = 30;

/** Episode start times, ms into a fault phase of `faultPhaseMs` (2–6 of them, in order). */
export function drawSharedSessionTimes(rng: Rng, faultPhaseMs: number): number[] {
  const n = rng.int(2, 6);
  return Array.from({ length: n }, () => rng.int(0, Math.max(0, faultPhaseMs - ATTACH_BUDGET_MS))).sort((a, b) => a - b);
}

/** One episode (header), `index` naming its nodes; resolves when both handles are closed. */
export async function sharedSessionEpisode(s: ScriptContext, rng: Rng, index: number): Promise<void> {
  if (s.clients.length < 2 || s.servers.length < 2) return;
  const zombieNode = rng.pick(s.clients);
  const successorNode = rng.pick(s.clients.filter((c) => c !== zombieNode));
  const zombieServer = rng.pick(s.servers);
  const successorServer = rng.pick(s.servers.filter((id) => id !== zombieServer));
  const gapMs = rng.int(0, WRITE_GAP_MS_MAX);
  const ephemeral = rng.chance(0.5);
  const value = `${successorNode}:shared-${index}`;
  const zombie = open(s, zombieNode, zombieServer);
  if (zombie === undefined) return;
  let successor: ZooKeeper | undefined;
  const crashed = crashOf(s, [zombieNode, successorNode]);
  const up = (node: string) => s.sim.node(node).status === "up" && !crashed.happened;
  // An op on `node`'s handle, unless the node is not up; a crash of either node ends the wait.
  const act = async (node: string, op: () => Promise<unknown>): Promise<boolean> => {
    if (!up(node)) return false;
    await Promise.race([tolerate(op()), crashed.signal]);
    return !crashed.happened;
  };
  try {
    if (!(await connected(s, zombie))) return;
    if (!(await act(zombieNode, () => zombie.create(`${TRAFFIC_ROOT}/z-${index}-a`, "", OPEN, CreateMode.EPHEMERAL)))) return;
    successor = up(successorNode) ? open(s, successorNode, successorServer, zombie) : undefined;
    if (successor === undefined || !(await connected(s, successor))) return;
    const attached = successor;
    s.note(`shared session ${index}: ${zombieNode} through ${zombieServer} closes it, ${successorNode} through ${successorServer} writes ${gapMs} ms later`);
    const closed = act(zombieNode, () => zombie.close());
    if (gapMs > 0) await s.sleepMs(gapMs);
    const path = `${TRAFFIC_ROOT}/z-${index}-b`;
    await act(successorNode, () => (ephemeral ? attached.create(path, value, OPEN, CreateMode.EPHEMERAL) : attached.create(path, value, OPEN, CreateMode.PERSISTENT)));
    await closed;
  } finally {
    await act(zombieNode, () => zombie.close());
    const last = successor;
    if (last !== undefined) await act(successorNode, () => last.close());
    crashed.dispose();
  }
}

/** Whether any of `nodes` crashed since the call, and a promise that settles when one does. */
function crashOf(s: ScriptContext, nodes: readonly string[]): { readonly happened: boolean; signal: Promise<void>; dispose: () => void } {
  const d = s.sim.deferred<void>();
  const state = { happened: false, signal: d.promise, dispose: () => {} };
  state.dispose = s.sim.trace.subscribe(
    (e) => {
      if (!nodes.includes(e.node)) return;
      state.happened = true;
      d.resolve();
    },
    ["crash"],
  );
  return state;
}

/** A handle on `node` through `server` alone; attached to `sessionOf`'s session when given. Undefined if the node is not up. */
function open(s: ScriptContext, node: string, server: string, sessionOf?: ZooKeeper): ZooKeeper | undefined {
  const ctx = s.sim.node(node).context;
  if (ctx === undefined || s.sim.node(node).status !== "up") return undefined;
  const session = sessionOf === undefined ? {} : { sessionId: sessionOf.getSessionId(), sessionPasswd: sessionOf.getSessionPasswd() };
  return createClient(ctx, { connectString: `${server}:${CLIENT_PORT}`, sessionTimeoutMs: 10_000, ...s.clientDefaults, ...session });
}

async function connected(s: ScriptContext, zk: ZooKeeper): Promise<boolean> {
  for (let waited = 0; waited < ATTACH_BUDGET_MS && zk.getState() !== "CONNECTED"; waited += 10) {
    if (zk.getState() === "CLOSED") return false;
    await s.sleepMs(10);
  }
  return zk.getState() === "CONNECTED";
}
