/**
 * zab-random-faults: swarm testing of the ensemble. Everything comes from the run's
 * seed through named rng streams forked from "swarm": the fault mix and its rates
 * ("swarm/plan"), each fault ("swarm/faults") and each client's workload ("swarm/client/cN").
 *
 * Run shape (TigerBeetle's VOPR, Maelstrom's heal-then-read):
 *   1. settle, create /swarm;
 *   2. fault phase: clients write and read a small key space while faults land — crashes and
 *      restarts, crashes aimed at elections and syncs (the new leader right after it
 *      establishes its epoch, a learner while the leader syncs it, a server right after it
 *      issues an fsync: written but not durable; at a learner's sync packet boundaries: after
 *      DIFF, after a SNAP load, after the NEWLEADER ACK), client partitions (also one-way), leader
 *      isolation, pauses past the session timeout, clogged links, slow fsync, message loss;
 *   3. heal everything (heal, unclog, loss 0, resume, start the crashed, disk ok);
 *   4. convergence within a budget: one serving leader, then every client node reads the key
 *      space after a sync and all must agree.
 * The script judges only liveness-shaped expectations (settles, reads succeed, readers agree);
 * safety is the checkers' job, over the trace.
 */
import { whenTrace } from "./bug-support.js";
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { Rng } from "../../sim/rng.js";
import type { TraceEvent } from "../../sim/trace.js";
import type { ScriptContext, ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";
import { DEFAULT_OP_MIX, finalReads, TRAFFIC_ROOT, TrafficClient } from "./traffic.js";

const ROOT = TRAFFIC_ROOT;
const OPEN = Ids.OPEN_ACL_UNSAFE;
const CONVERGENCE_BUDGET_MS = 40_000;

const FAULT_KINDS = [
  "crash-restart", "crash-new-leader", "crash-syncing-learner", "crash-at-fsync", "orphan-proposal",
  "partition-client", "isolate-leader", "pause", "clog", "slow-fsync", "loss", "crash-at-sync-point",
] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

/** What one seed's fault phase looks like. */
interface SwarmPlan {
  faultPhaseMs: number;
  faultGapMsMax: number;
  weights: Record<FaultKind, number>;
  keys: number;
  opGapMsMax: number;
}

function drawPlan(rng: Rng): SwarmPlan {
  // Swarm testing: each seed switches some fault kinds off entirely and weighs the rest.
  const weights = Object.fromEntries(FAULT_KINDS.map((k) => [k, rng.chance(0.3) ? 0 : rng.int(1, 5)])) as Record<FaultKind, number>;
  return { faultPhaseMs: rng.int(8_000, 25_000), faultGapMsMax: rng.int(300, 3000), weights, keys: rng.int(2, 8), opGapMsMax: rng.int(50, 600) };
}

function pickKind(rng: Rng, w: Record<FaultKind, number>): FaultKind | undefined {
  const total = FAULT_KINDS.reduce((a, k) => a + w[k], 0);
  if (total === 0) return undefined;
  let x = rng.int(1, total);
  for (const k of FAULT_KINDS) if ((x -= w[k]) <= 0) return k;
  return undefined;
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;

/** The first trace event matching `predicate` within `timeoutMs`, or undefined (no expectation). */
function nextTrace(s: ScriptContext, predicate: (e: TraceEvent) => boolean, timeoutMs: number): Promise<TraceEvent | undefined> {
  return whenTrace(s, undefined, predicate, timeoutMs);
}

/** The fault phase's world: which servers are up, and what to undo at heal. */
class Nemesis {
  healed = false;
  constructor(
    private readonly s: ScriptContext,
    private readonly ens: EnsembleView,
    private readonly rng: Rng,
  ) {}

  up(): string[] {
    return this.s.servers.filter((id) => this.s.sim.node(id).status === "up");
  }

  /** Crashes `id` now (if up) and starts it again after a drawn delay (if still in the fault phase). */
  crash(id: string, why: string): void {
    if (this.healed || this.s.sim.node(id).status !== "up") return;
    this.s.fault({ kind: "crash", node: id });
    this.s.note(`${(this.s.sim.nowUs / 1000).toFixed(0)}ms: crash ${id} (${why})`);
    const downMs = this.rng.chance(0.3) ? this.rng.int(0, 200) : this.rng.int(500, 15_000);
    void this.s.sleepMs(downMs).then(() => {
      if (!this.healed && this.s.sim.node(id).status === "down") this.s.fault({ kind: "start", node: id });
    });
  }

  /** Undoes `undo` after `ms`, unless the heal came first (it undoes everything). */
  later(ms: number, undo: () => void): void {
    void this.s.sleepMs(ms).then(() => {
      if (!this.healed) undo();
    });
  }

  async inject(kind: FaultKind): Promise<void> {
    const { s, rng } = this;
    const up = this.up();
    if (up.length === 0) return;
    const leader = this.ens.leader();
    switch (kind) {
      case "crash-restart":
        return this.crash(leader !== undefined && rng.chance(0.5) ? leader : pick(rng, up), "random");
      case "crash-new-leader":
        return this.crashNewLeader();
      case "crash-syncing-learner":
        return this.crashSyncingLearner();
      case "crash-at-fsync": {
        const target = pick(rng, up);
        const e = await nextTrace(s, (t) => t.kind === "disk.fsync" && t.node === target, rng.int(200, 3000));
        if (e !== undefined) this.crash(target, "right after it issued an fsync: written, not durable");
        return;
      }
      case "orphan-proposal":
        return this.orphanProposal(leader);
      case "crash-at-sync-point":
        return this.crashAtSyncPoint();
      case "partition-client": {
        const client = pick(rng, s.clients);
        const servers = up.filter(() => rng.chance(0.7));
        if (servers.length === 0) return;
        const oneWay = rng.chance(0.4);
        const [from, to] = rng.chance(0.5) ? [[client], servers] : [servers, [client]];
        s.fault({ kind: "cut", from, to, oneWay });
        return this.later(rng.int(500, 20_000), () => s.fault({ kind: "heal", from, to, oneWay }));
      }
      case "isolate-leader": {
        if (leader === undefined) return;
        const others = s.servers.filter((id) => id !== leader);
        const oneWay = rng.chance(0.3);
        const [from, to] = rng.chance(0.5) ? [[leader], others] : [others, [leader]];
        s.fault({ kind: "cut", from, to, oneWay });
        return this.later(rng.int(1000, 20_000), () => s.fault({ kind: "heal", from, to, oneWay }));
      }
      case "pause": {
        const target = leader !== undefined && rng.chance(0.5) ? leader : pick(rng, up);
        s.fault({ kind: "pause", node: target });
        return this.later(rng.int(1000, 25_000), () => {
          if (s.sim.node(target).status === "paused") s.fault({ kind: "resume", node: target });
        });
      }
      case "clog": {
        const from = s.servers.filter(() => rng.chance(0.5));
        const to = [...s.servers, ...s.clients].filter(() => rng.chance(0.5));
        if (from.length === 0 || to.length === 0) return;
        s.fault({ kind: "clog", from, to, extraDelayMs: rng.int(20, 3000), oneWay: rng.chance(0.5) });
        return this.later(rng.int(500, 15_000), () => s.fault({ kind: "unclog", from, to }));
      }
      case "slow-fsync": {
        const node = pick(rng, s.servers);
        s.fault({ kind: "disk", node, fault: "slow-fsync", fsyncLatencyMs: rng.int(20, 2000) });
        return this.later(rng.int(1000, 20_000), () => s.fault({ kind: "disk", node, fault: "ok" }));
      }
      case "loss": {
        const from = s.servers.filter(() => rng.chance(0.5));
        const to = [...s.servers, ...s.clients].filter(() => rng.chance(0.5));
        if (from.length === 0 || to.length === 0) return;
        s.fault({ kind: "loss", rate: rng.int(1, 40) / 100, from, to, oneWay: rng.chance(0.5) });
        return this.later(rng.int(500, 15_000), () => s.fault({ kind: "loss", rate: 0, from, to }));
      }
    }
  }

  /** Waits for the next leader to establish its epoch, then crashes it (or a follower) at once or soon. */
  private async crashNewLeader(): Promise<void> {
    const { s, rng } = this;
    const point = pick(rng, ["zab.leader.established", "zab.epoch.current", "zab.epoch.accepted"]);
    const e = await nextTrace(s, (t) => t.kind === point, rng.int(1000, 15_000));
    if (e === undefined) return;
    if (rng.chance(0.5)) await s.sleepMs(rng.int(0, 300));
    this.crash(e.node, `right after ${point}`);
  }

  /** Waits for the leader to start syncing a learner, then crashes the learner (or the leader) mid-sync. */
  private async crashSyncingLearner(): Promise<void> {
    const { s, rng } = this;
    if (rng.chance(0.5)) {
      // Slow the learners' disks so the sync's log writes stay unfsynced for a while.
      for (const node of s.servers.filter(() => rng.chance(0.5))) s.fault({ kind: "disk", node, fault: "slow-fsync", fsyncLatencyMs: rng.int(50, 1500) });
    }
    const sync = await nextTrace(s, (t) => t.kind === "zab.sync", rng.int(1000, 15_000));
    if (sync === undefined) return;
    const learnerSid = Number(sync.fields?.learner);
    const learner = s.servers[learnerSid - 1];
    if (learner === undefined) return;
    const target = rng.chance(0.8) ? learner : sync.node;
    const when = rng.int(0, 3);
    if (when === 1) await s.sleepMs(rng.int(0, 100));
    if (when === 2) await nextTrace(s, (t) => t.kind === "zab.epoch.current" && t.node === learner, 3000);
    if (when === 3) await nextTrace(s, (t) => t.kind === "disk.fsync" && t.node === learner, 3000);
    this.crash(target, `while ${sync.node} syncs ${learner} (${String(sync.fields?.mode)})`);
  }

  /**
   * Crashes at a packet boundary of a learner's sync, between two events (no delay can aim
   * there): the points behind ZOOKEEPER-2355, -3642 and -3911.
   * - "diff-read": the learner has read the DIFF packet, not yet the proposals behind it; the
   *   leader crashes, so the learner goes back to LOOKING in the middle of the diff (2355);
   * - "snap-loaded": the learner has loaded a SNAP, not yet persisted at NEWLEADER; the leader
   *   crashes (3642);
   * - "newleader-acked": a DIFF learner's NEWLEADER ACK made the leader established, the learner
   *   has not read UPTODATE; both crash (3911: the diff is logged only at UPTODATE).
   */
  private async crashAtSyncPoint(): Promise<void> {
    const { s, rng } = this;
    const point = pick(rng, ["diff-read", "snap-loaded", "newleader-acked"] as const);
    const mode = point === "snap-loaded" ? "SNAP" : "DIFF";
    const sync = await nextTrace(s, (t) => t.kind === "zab.sync" && t.fields?.mode === mode, rng.int(1000, 20_000));
    if (sync === undefined) return;
    const learner = s.servers[Number(sync.fields?.learner) - 1];
    if (learner === undefined) return;
    const boundary = (t: TraceEvent): boolean => {
      if (point === "newleader-acked") return t.kind === "zab.leader.established" && t.node === sync.node;
      if (t.node !== learner) return false;
      return point === "snap-loaded" ? t.kind === "zab.snap.load" : t.kind === "zab.phase" && t.fields?.phase === "SYNCHRONIZATION";
    };
    if ((await nextTrace(s, boundary, 5000)) === undefined) return;
    this.crash(sync.node, `${learner} syncing from it: ${point}`);
    if (point === "newleader-acked") this.crash(learner, `its NEWLEADER ACK established ${sync.node}, before UPTODATE`);
  }

  /** A proposal that reaches only part of the ensemble, then the leader (and maybe its one follower) crash. */
  private async orphanProposal(leader: string | undefined): Promise<void> {
    const { s, rng } = this;
    if (leader === undefined) return;
    const followers = s.servers.filter((id) => id !== leader);
    const cut = followers.filter(() => rng.chance(0.6));
    if (cut.length === 0) return;
    s.fault({ kind: "cut", from: [leader], to: cut, oneWay: true });
    await s.sleepMs(rng.int(20, 800));
    this.crash(leader, "after proposing to part of the ensemble only");
    const reached = followers.filter((id) => !cut.includes(id));
    if (reached.length > 0 && rng.chance(0.5)) this.crash(pick(rng, reached), "it holds the orphan proposal");
    if (!this.healed) s.fault({ kind: "heal", from: [leader], to: cut, oneWay: true });
  }

  /** Ends every fault: the start of the convergence phase. */
  healAll(): void {
    const s = this.s;
    this.healed = true;
    s.fault({ kind: "heal" });
    s.fault({ kind: "unclog" });
    s.fault({ kind: "loss", rate: 0 });
    for (const node of s.servers) {
      const status = s.sim.node(node).status;
      if (status === "paused") s.fault({ kind: "resume", node });
      if (status === "down") s.fault({ kind: "start", node });
      s.fault({ kind: "disk", node, fault: "ok" });
    }
    s.note(`${(s.sim.nowUs / 1000).toFixed(0)}ms: healed everything`);
  }
}

export const zabRandomFaults: ScriptDef = {
  name: "zab-random-faults",
  description: "swarm: seed-drawn faults aimed at elections and syncs, client traffic, then heal and converge",
  async run(s) {
    const swarm = s.sim.rng.fork("swarm");
    const plan = drawPlan(swarm.fork("plan"));
    const ens = new EnsembleView(s.sim, s);
    if ((await ens.settled(30_000)) === undefined) return;
    const setup = await s.connect(s.clients[0]!);
    await setup.create(ROOT, "", OPEN, CreateMode.PERSISTENT);
    await setup.close();
    s.note(`plan: fault phase ${plan.faultPhaseMs} ms, ${plan.keys} keys, mix ${FAULT_KINDS.filter((k) => plan.weights[k] > 0).join(" ")}`);

    const clients = s.clients.map((c) => {
      const rng = swarm.fork(`client/${c}`);
      return new TrafficClient(s, c, rng, { keys: plan.keys, opGapMsMax: plan.opGapMsMax, sessionTimeoutMs: rng.int(4000, 12_000), mix: DEFAULT_OP_MIX });
    });
    const nemesis = new Nemesis(s, ens, swarm.fork("faults"));
    const faultRng = swarm.fork("fault-kinds");
    const endUs = s.sim.nowUs + plan.faultPhaseMs * 1000;
    while (s.sim.nowUs < endUs) {
      await s.sleepMs(faultRng.int(0, plan.faultGapMsMax));
      const kind = pickKind(faultRng, plan.weights);
      if (kind !== undefined && s.sim.nowUs < endUs) await nemesis.inject(kind);
    }
    nemesis.healAll();

    if ((await ens.settled(CONVERGENCE_BUDGET_MS, "the healed ensemble converges: one serving leader, every server serving")) === undefined) return;
    for (const c of clients) c.stop();
    await Promise.all(clients.map((c) => c.done));
    await finalReads(s);
  },
};
