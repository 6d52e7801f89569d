/**
 * recipe-latch-expiry and recipe-lock-expiry: roles held long enough for faults to hit their
 * holders. Every client stands for leadership (latches and, every other client, selectors) or
 * takes the lock, and keeps the role for a long term (30 s, or until the rounds end; the lock holder writes its fenced
 * storage every 300 ms while it may act) unless the recipe says it is over. Meanwhile the script
 * aims rounds of faults at whoever holds the role then:
 *   - blip: its client is cut from every server for 4.5 s — past its read timeout (4 s of a 6 s
 *     session): Disconnected, then a reconnect within the session; a lock stays held across it,
 *     a latch suspends and leads again;
 *   - expire-cut, expire-pause: cut or paused for 12 s, past its session: the server expires the
 *     session, another client takes the role, and the holder must hear Expired and give it up.
 * Then the check phase: a leader again (latch) or every worker done (lock).
 *
 * So the recipe checkers see the states they exist to judge (recipe.election, recipe.lock-mutex
 * with its claims after expiry, recipe.lock-fencing): a holder across its own session's
 * expiry, and across a connection loss and a reconnect. The recipe canaries `latch-stays-leader`
 * and `lock-trusts-expired` (src/scenario/canaries.ts) run the broken recipes here.
 */
import type { NodeContext } from "../../sim/node-context.js";
import { LeaderLatch, LeaderSelector } from "../../recipes/leader-election.js";
import { DistributedLock } from "../../recipes/lock.js";
import { FencedResource } from "../../recipes/fenced-resource.js";
import type { ZooKeeper } from "../../zk/client/index.js";
import type { FaultAction } from "../../sim/faults.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { STORAGE_SESSION_TIMEOUT_MS, clientWorkers, connectClient, hostOf, joinWorkers, settle, withSessions, stopped, latchVariantOf, lockVariantOf, type StopFlag } from "./recipe-support.js";
import { oneLeaderAfterFaults } from "./recipe-election.js";
import { LOCK_RESOURCE } from "./recipe-lock.js";

export const EXPIRY_LATCH_DIR = "/app/latch-expiry";
export const EXPIRY_LOCK_DIR = "/app/lock-expiry";
/** The holders' session timeout: read timeout 4 s, so a 4.5 s cut disconnects without expiring. */
const HOLDER_SESSION_TIMEOUT_MS = 6000;
/** Longer than the fault rounds on one holder: a term ends when the recipe (or the script's stop) says so. */
const LONG_TERM_MS = 30_000;
const WRITE_GAP_MS = 300;
/**
 * A generated run's length (`generatedDurationMs`), as the scenario files': the rounds run on
 * their own clock (each waits up to 15 s for a holder, then 4.5 or 12 s of fault and 3 s after),
 * about 45–60 s in all, and the run would otherwise end 20 s after the last fault before the short
 * timing's 40 s, while a round still runs or its check phase waits for a leader.
 */
const EXPIRY_RUN_MS = 120_000;

type Round = { kind: "blip" | "expire-cut" | "expire-pause"; forMs: number };
const ROUNDS: readonly Round[] = [
  { kind: "blip", forMs: 4500 },
  { kind: "expire-cut", forMs: 12_000 },
  { kind: "blip", forMs: 4500 },
  { kind: "expire-pause", forMs: 12_000 },
];

/** Who holds the role now, as each worker's recipe object tells it. */
type Holding = Map<string, () => boolean>;

/** Aims each round at a client that holds the role then (waiting up to 15 s for one), then stops the workers. */
async function faultRounds(s: ScriptContext, holding: Holding, stop: StopFlag, role: string): Promise<void> {
  for (const round of ROUNDS) {
    let holder: string | undefined;
    const found = await s.waitFor(() => (holder = [...holding].find(([, holds]) => holds())?.[0]) !== undefined, 15_000, `a client holds the ${role}`);
    if (!found || holder === undefined) break;
    await s.sleepMs(500);
    const action: FaultAction = round.kind === "expire-pause" ? { kind: "pause", node: holder } : { kind: "cut", from: [holder], to: [...s.servers] };
    s.fault(action);
    s.note(`${holder} holds the ${role}: ${round.kind === "expire-pause" ? "paused" : "cut from every server"} for ${round.forMs} ms (${round.kind === "blip" ? "a connection loss within its session" : "past its session timeout"})`);
    await s.sleepMs(round.forMs);
    s.fault(round.kind === "expire-pause" ? { kind: "resume", node: holder } : { kind: "heal", from: [holder], to: [...s.servers] });
    await s.sleepMs(3000);
  }
  stop.value = true;
}

/** Leads until the term ends or the recipe says leadership is over; latch or selector by client index. */
async function longTerm(s: ScriptContext, zk: ZooKeeper, host: NodeContext, node: string, index: number, holding: Holding, stop: StopFlag): Promise<void> {
  const term = () => Promise.race([host.sleepMs(LONG_TERM_MS), stopped(host, stop)]);
  const options = { variant: latchVariantOf(s) };
  if (index % 2 === 1) {
    let leads = false;
    holding.set(node, () => leads);
    await new LeaderSelector(zk, host, EXPIRY_LATCH_DIR, options).lead(async (leadership) => {
      leads = true;
      holding.set(node, () => leadership.hasLeadership());
      await Promise.race([term(), leadership.ended]);
    });
    return;
  }
  const latch = new LeaderLatch(zk, host, EXPIRY_LATCH_DIR, options);
  holding.set(node, () => latch.hasLeadership());
  await latch.start();
  await latch.await();
  await Promise.race([term(), latch.leadershipEnded()]);
  await latch.close();
}

export const recipeLatchExpiry: ScriptDef = {
  name: "recipe-latch-expiry",
  clientCrashes: false,
  description: "leader latches and selectors kept open for long terms while their leaders lose the connection, and their sessions: one leader at a time, a lost leadership given up, a leader again after the faults",
  recipeCheckers: ["recipe.election"],
  clientRange: [2, 8],
  generatedDurationMs: EXPIRY_RUN_MS,
  async run(s) {
    await settle(s);
    const holding: Holding = new Map();
    const stop: StopFlag = { value: false };
    const workers = clientWorkers(s, (node, index) => {
      const host = hostOf(s, node);
      return withSessions(s, node, HOLDER_SESSION_TIMEOUT_MS, async (zk) => {
        while (!stop.value) {
          await longTerm(s, zk, host, node, index, holding, stop);
          await host.sleepMs(200 + 37 * index);
        }
      });
    });
    await faultRounds(s, holding, stop, "leadership");
    await joinWorkers(s, workers, 60_000);
    await oneLeaderAfterFaults(s, EXPIRY_LATCH_DIR);
  },
};

/** Holds the lock for a long term, writing while it may act and waiting out a suspension; then releases. */
async function longHold(s: ScriptContext, lock: DistributedLock, store: () => FencedResource, host: NodeContext, node: string, stop: StopFlag): Promise<void> {
  const grant = await lock.acquire();
  const untilUs = s.sim.nowUs + LONG_TERM_MS * 1000;
  let writes = 0;
  while (s.sim.nowUs < untilUs && !stop.value && lock.holdState !== "free") {
    if (lock.holdState === "held") await store().write(grant.token, `${node} token ${grant.token} write ${writes++}`);
    await host.sleepMs(WRITE_GAP_MS);
  }
  await lock.release();
}

export const recipeLockExpiry: ScriptDef = {
  name: "recipe-lock-expiry",
  clientCrashes: false,
  description: "exclusive lock held for long terms while the holder loses its connection (and keeps the lock) or its session (and must give it up): mutual exclusion, fenced writes, no stale claim",
  recipeCheckers: ["recipe.lock-mutex", "recipe.lock-herd", "recipe.lock-fencing"],
  clientRange: [2, 8],
  generatedDurationMs: EXPIRY_RUN_MS,
  async run(s) {
    await settle(s);
    const holding: Holding = new Map();
    const stop: StopFlag = { value: false };
    const workers = clientWorkers(s, async (node, index) => {
      const host = hostOf(s, node);
      let storeZk = await connectClient(s, node, STORAGE_SESSION_TIMEOUT_MS);
      let resource = new FencedResource(storeZk, host, LOCK_RESOURCE);
      await resource.init();
      // The storage connection outlives the lock's session; rebuilt only if it too expired.
      const store = () => resource;
      await host.sleepMs(41 * index);
      await withSessions(s, node, HOLDER_SESSION_TIMEOUT_MS, async (zk) => {
        while (!stop.value) {
          if (storeZk.getState() === "CLOSED") {
            storeZk = await connectClient(s, node, STORAGE_SESSION_TIMEOUT_MS);
            resource = new FencedResource(storeZk, host, LOCK_RESOURCE);
          }
          const lock = new DistributedLock(zk, host, EXPIRY_LOCK_DIR, { variant: lockVariantOf(s) });
          holding.set(node, () => lock.holdState === "held");
          await longHold(s, lock, store, host, node, stop);
          await host.sleepMs(150 + 53 * index);
        }
      });
      await storeZk.close();
    });
    await faultRounds(s, holding, stop, "lock");
    await joinWorkers(s, workers, 90_000);
    s.note("every lock worker finished its terms");
  },
};
