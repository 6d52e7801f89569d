/**
 * Nemesis "zab-swarm": the whole fault schedule of a `zab-random-faults` swarm run, drawn from
 * the seed before the run (swarm testing, TigerBeetle's VOPR). The seed switches some aims off
 * and weighs the rest ("swarm/plan"), then draws a timeline of aims ("swarm/fault-kinds") and
 * each aim's faults ("swarm/faults") over the ensemble the seed picks ("swarm/shape").
 *
 * The fault phase is anchored on the script's `workload.phase` {phase: "faults"} trace event
 * (it starts once the ensemble settled and /swarm exists) and lasts the plan's `faultPhaseMs`;
 * the script heals everything at its end. Every fault's steps have deadlines that end by then
 * (a step's `withinMs` is cut to what is left of the phase), so no fault lands after the heal;
 * undos (`forMs`) that land after it find nothing left to undo.
 *
 * The aims (each a fault kind of sim/faults.ts with a trace condition, sim/fault-when.ts):
 * - crash-restart: crash the leader or a server, start it after a bounce or 0.5–15 s;
 * - crash-new-leader: crash the server that just established its epoch (or accepted it);
 * - crash-syncing-learner: once a leader syncs a learner, crash the learner (or the leader) at
 *   once, soon, at its new epoch, or at its next fsync — optionally with slow disks first;
 * - crash-at-fsync: crash a server right after it issues an fsync (written, not durable);
 * - orphan-proposal: cut the leader from some followers one way, crash it (and maybe one that
 *   heard it) while proposals reached only part of the ensemble;
 * - crash-at-sync-point: crash at a learner's sync packet boundary — after DIFF (ZK-2355),
 *   after a SNAP load (ZK-3642), at the NEWLEADER ACK that established the leader (ZK-3911);
 *   half of them first bring the sync about (a follower bounced, the leader crashed);
 * - partition-client, isolate-leader, pause, clog, slow-fsync, loss: timed disruptions.
 *
 * With `"windows": true` (scenario zab-crash-windows), a second timeline ("swarm/windows", its
 * own streams, so the first one's draws stay as they were) aims crashes inside the windows where durability is decided (docs/bug-power.md), with
 * slow-fsync bursts that widen them (FoundationDB's BUGGIFY):
 * - crash-in-log-fsync: a server crashed after it issues an fsync and before it completes (its
 *   appended txns not durable yet), the fsync slowed first so the crash lands inside;
 * - crash-ack-commit: a follower crashed right after its ACK (the leader's disk slowed, so the
 *   commit waits on followers), or the leader right after it counts an ACK;
 * - crash-after-snapshot: a server crashed as a fuzzy snapshot starts or just after it is taken,
 *   before its new log holds a txn;
 * - crash-in-sync: once a leader syncs a learner, the learner's disk slowed and the learner (or
 *   the leader) crashed while the sync's fsync is in flight;
 * - slow-fsync-burst: a short slow-fsync on one server, widening every window meanwhile.
 *
 * A third timeline ("swarm/vocabulary", its own streams again) draws from the rest of the fault
 * vocabulary, so that every fault that makes sense for ZooKeeper reaches the swarm:
 * - crash-after-send / crash-after-receive: a server crashed right after it sends (or receives)
 *   a message of a drawn kind — a vote, FOLLOWERINFO, LEADERINFO, ACKEPOCH, DIFF/TRUNC/SNAP,
 *   NEWLEADER, UPTODATE, PROPOSAL, ACK, COMMIT, INFORM, REQUEST, PING — its 1st–3rd such message;
 * - crash-client: a client process crashed (at once, or right after it sends a request) and
 *   started again after a bounce or 0.5–15 s: its session is abandoned, not closed;
 * - pause-client: a client frozen for 1–25 s, often past its session timeout;
 * - clock-skew: a server's or a client's clock run 1.1–4× fast or 2–10× slow for 1–20 s;
 * - pause-past-timeouts: a server (the leader, half the time) frozen until the heal: past its
 *   session, sync and election timeouts when it comes early in the phase;
 * - disk-full: a server's disk full for 0.5–10 s (it stops itself at ENOSPC; freed, restarted).
 * What the swarm leaves out, and why, is `ZAB_SWARM_LEFT_OUT`.
 *
 * Beside the timeline, a share of the seeds (`LAGGING_SEED_SHARE`, from their own streams
 * "swarm/lagging-plan" and "swarm/lagging", so the other draws stay as they were) gets one or two lagging-server
 * episodes (lagging-server.ts): a lagging follower or a stale leader that clients are pushed onto.
 */
import { UserInputError } from "../../sim/errors.js";
import type { Fault, FaultAction } from "../../sim/faults.js";
import type { TraceStep } from "../../sim/fault-when.js";
import type { Rng } from "../../sim/rng.js";
import { swarmFaultPhaseMs, swarmShapeOf } from "../workloads/swarm-shape.js";
import { drawDownMs, drawLinks, entry, subset } from "./draw.js";
import { drawLaggingServer } from "./lagging-server.js";
import type { NemesisContext, NemesisDef } from "./index.js";

export const SWARM_AIMS = [
  "crash-restart", "crash-new-leader", "crash-syncing-learner", "crash-at-fsync", "orphan-proposal",
  "partition-client", "isolate-leader", "pause", "clog", "slow-fsync", "loss", "crash-at-sync-point",
] as const;
export type SwarmAim = (typeof SWARM_AIMS)[number];

/** The aims of the windows timeline (see the header). */
export const WINDOW_AIMS = ["crash-in-log-fsync", "crash-ack-commit", "crash-after-snapshot", "crash-in-sync", "slow-fsync-burst"] as const;
export type WindowAim = (typeof WINDOW_AIMS)[number];

/** The vocabulary timeline's aims (see the header). */
export const VOCABULARY_AIMS = ["crash-after-send", "crash-after-receive", "crash-client", "pause-client", "clock-skew", "pause-past-timeouts", "disk-full"] as const;
export type VocabularyAim = (typeof VOCABULARY_AIMS)[number];

/** The quorum and election messages (kernel `send`/`deliver` details) a server may crash right after. */
export const ZAB_MESSAGES = [
  "fle.notification", "FOLLOWERINFO", "OBSERVERINFO", "LEADERINFO", "ACKEPOCH", "DIFF", "TRUNC", "SNAP",
  "NEWLEADER", "UPTODATE", "PROPOSAL", "ACK", "COMMIT", "INFORM", "REQUEST", "PING",
] as const;

/** The client requests (kernel `send` details) a client may crash right after sending. */
const CLIENT_REQUESTS = ["create", "setData", "delete", "multi", "getData", "getChildren"] as const;

/**
 * The fault kinds of sim/faults.ts that the ZooKeeper swarms never draw, and why (docs/faults.md,
 * docs/bug-power.md's coverage tables): the swarm's declaration of the corner it leaves alone.
 */
export const ZAB_SWARM_LEFT_OUT: readonly { fault: string; why: string }[] = [
  { fault: "duplicate", why: "ZooKeeper's links are TCP connections, exactly-once while up: the kernel duplicates datagrams only, and the ensemble sends none" },
  { fault: "reorder", why: "TCP connections are FIFO: the kernel reorders datagrams only (connection-fifo checks that it never reorders a connection)" },
  { fault: "delay", why: "a link's base delay is the scenario's network setting; clog adds delay to chosen links during the phase" },
  { fault: "partition", why: "cut covers it with finer aim (one way or both, the leader, a client from some servers); a partition into groups is a set of cuts" },
  { fault: "restart", why: "a crash followed by a start after a bounce of 0–200 ms is the same fault, drawn by every crash aim" },
];

/** The windows timeline's largest gap between two aims. */
const WINDOW_GAP_MS_MAX = 2500;

/** What one seed's fault phase looks like (the script reads the workload half: keys, pace). */
export interface SwarmPlan {
  faultPhaseMs: number;
  faultGapMsMax: number;
  weights: Record<SwarmAim, number>;
  keys: number;
  opGapMsMax: number;
}

/** The plan of a seed: from the "swarm/plan" stream of its root (the workload's `faultPhaseMs`, if given, in place of the drawn one). */
export function drawSwarmPlan(root: Rng, faultPhaseMs?: number): SwarmPlan {
  const rng = root.fork("swarm").fork("plan");
  // Swarm testing: each seed switches some aims off entirely and weighs the rest.
  const weights = Object.fromEntries(SWARM_AIMS.map((k) => [k, rng.chance(0.3) ? 0 : rng.int(1, 5)])) as Record<SwarmAim, number>;
  const drawnPhaseMs = rng.int(8_000, 25_000);
  return { faultPhaseMs: faultPhaseMs ?? drawnPhaseMs, faultGapMsMax: rng.int(300, 3000), weights, keys: rng.int(2, 8), opGapMsMax: rng.int(50, 600) };
}

/** The trace event the script records when its fault phase starts. */
export const FAULT_PHASE_EVENT = { kind: "workload.phase", phase: "faults" } as const;

/**
 * How much of an aim's longest wait the timeline skips before the next aim. The run-time swarm
 * this replaces awaited each aim's trace event, which mostly came well before the deadline;
 * a third of the deadline gives as many crashes per seed as it injected (seeds 1–20 of
 * zab-fuzzy-snapshots: 43 against 42; the whole deadline gave 29, none 82).
 */
const WAIT_FRACTION = 1 / 3;

function pickAim<A extends string>(rng: Rng, aims: readonly A[], w: Record<A, number>): A | undefined {
  const total = aims.reduce((a, k) => a + w[k], 0);
  if (total === 0) return undefined;
  let x = rng.int(1, total);
  for (const k of aims) if ((x -= w[k]) <= 0) return k;
  return undefined;
}

/** One aim's faults, drawn at `offsetMs` into a phase with `leftMs` to go; `busyMs`: how long the aim waits. */
interface Aimed {
  faults: Fault[];
  busyMs: number;
}

class SwarmDraw {
  constructor(
    private readonly rng: Rng,
    private readonly provoke: Rng,
    private readonly servers: readonly string[],
    private readonly clients: readonly string[],
  ) {}

  /** The anchor step: `offsetMs` after the fault phase began. */
  private anchor(offsetMs: number): TraceStep {
    return { after: FAULT_PHASE_EVENT.kind, fields: { phase: FAULT_PHASE_EVENT.phase }, delayMs: offsetMs };
  }

  /** A fault `offsetMs` into the phase, after `steps` (each step's wait cut to what is left), or nothing. */
  private at(offsetMs: number, leftMs: number, action: FaultAction, steps: TraceStep[] = [], forMs?: number): Fault[] {
    let left = leftMs;
    const cut: TraceStep[] = [];
    for (const s of steps) {
      const within = Math.min(s.withinMs ?? left, left);
      left -= within + (s.delayMs ?? 0);
      if (within < 1 || left < 0) return [];
      cut.push({ ...s, withinMs: within });
    }
    return [entry(action, 0, forMs, [this.anchor(offsetMs), ...cut])];
  }

  /** `action` `offsetMs` into the phase, undone `forMs` after it fired; nothing once the phase is over. */
  place(offsetMs: number, leftMs: number, action: FaultAction, forMs: number | undefined, steps: TraceStep[] = []): Fault[] {
    return leftMs < 1 ? [] : this.at(offsetMs, leftMs, action, steps, forMs);
  }

  /** A crash of `node` if it is up then (a paused server is left frozen, as the run-time swarm did), started again after a drawn time. */
  private crash(node: string, offsetMs: number, leftMs: number, steps: TraceStep[] = []): Fault[] {
    return this.at(offsetMs, leftMs, { kind: "crash", node }, steps, drawDownMs(this.rng)).map((f) => ({ ...f, onlyIfUp: true }));
  }

  aim(kind: SwarmAim, offsetMs: number, leftMs: number): Aimed {
    const { rng, servers, clients } = this;
    const t = offsetMs;
    switch (kind) {
      case "crash-restart":
        return { faults: this.crash(rng.chance(0.5) ? "$leader" : rng.pick(servers), t, leftMs), busyMs: 0 };
      case "crash-new-leader": {
        const point = rng.pick(["zab.leader.established", "zab.epoch.current", "zab.epoch.accepted"]);
        const withinMs = rng.int(1000, 15_000);
        const delayMs = rng.chance(0.5) ? rng.int(0, 300) : 0;
        return { faults: this.crash("$1", t, leftMs, [{ after: point, withinMs, delayMs }]), busyMs: withinMs };
      }
      case "crash-syncing-learner":
        return this.crashSyncingLearner(t, leftMs);
      case "crash-at-fsync": {
        const target = rng.pick(servers);
        const withinMs = rng.int(200, 3000);
        // A serving server fsyncs within milliseconds: the wait is short, the next aim follows at once.
        return { faults: this.crash(target, t, leftMs, [{ after: "disk.fsync", node: target, withinMs }]), busyMs: 0 };
      }
      case "orphan-proposal":
        return this.orphanProposal(t, leftMs);
      case "crash-at-sync-point":
        return this.crashAtSyncPoint(t, leftMs);
      case "partition-client": {
        const client = rng.pick(clients);
        const chosen = subset(rng, servers, 0.7);
        if (chosen.length === 0) return { faults: [], busyMs: 0 };
        const oneWay = rng.chance(0.4);
        const [from, to] = rng.chance(0.5) ? [[client], chosen] : [chosen, [client]];
        return { faults: this.at(t, leftMs, { kind: "cut", from, to, oneWay }, [], rng.int(500, 20_000)), busyMs: 0 };
      }
      case "isolate-leader": {
        const oneWay = rng.chance(0.3);
        const [from, to] = rng.chance(0.5) ? [["$leader"], [...servers]] : [[...servers], ["$leader"]];
        return { faults: this.at(t, leftMs, { kind: "cut", from, to, oneWay }, [], rng.int(1000, 20_000)), busyMs: 0 };
      }
      case "pause": {
        const node = rng.chance(0.5) ? "$leader" : rng.pick(servers);
        return { faults: this.at(t, leftMs, { kind: "pause", node }, [], rng.int(1000, 25_000)), busyMs: 0 };
      }
      case "clog": {
        const links = drawLinks(rng, servers, [...servers, ...clients]);
        if (links === undefined) return { faults: [], busyMs: 0 };
        const action: FaultAction = { kind: "clog", ...links, extraDelayMs: rng.int(20, 3000), oneWay: rng.chance(0.5) };
        return { faults: this.at(t, leftMs, action, [], rng.int(500, 15_000)), busyMs: 0 };
      }
      case "slow-fsync": {
        const action: FaultAction = { kind: "disk", node: rng.pick(servers), fault: "slow-fsync", fsyncLatencyMs: rng.int(20, 2000) };
        return { faults: this.at(t, leftMs, action, [], rng.int(1000, 20_000)), busyMs: 0 };
      }
      case "loss": {
        const links = drawLinks(rng, servers, [...servers, ...clients]);
        if (links === undefined) return { faults: [], busyMs: 0 };
        const action: FaultAction = { kind: "loss", rate: rng.int(1, 40) / 100, ...links, oneWay: rng.chance(0.5) };
        return { faults: this.at(t, leftMs, action, [], rng.int(500, 15_000)), busyMs: 0 };
      }
    }
  }

  /** One aim of the windows timeline, `offsetMs` into a phase with `leftMs` to go. */
  windowAim(kind: WindowAim, t: number, leftMs: number): Aimed {
    const { rng, servers } = this;
    switch (kind) {
      case "crash-in-log-fsync": {
        const target = rng.chance(0.5) ? "$leader" : rng.pick(servers);
        const { faults: slow, latencyMs } = this.fsyncBurst(target, t, leftMs, [], 0.7);
        // Crash while the fsync is in flight: less than its latency after it was issued.
        const step: TraceStep = { after: "disk.fsync", node: target, withinMs: rng.int(200, 3000), delayMs: rng.int(0, latencyMs - 1) };
        return { faults: [...slow, ...this.crash(target, t, leftMs, [step])], busyMs: 0 };
      }
      case "crash-ack-commit": {
        if (rng.chance(0.5)) return { faults: this.crash("$leader", t, leftMs, [{ after: "zab.ack", node: "$leader", withinMs: rng.int(200, 3000) }]), busyMs: 0 };
        const target = rng.pick(servers);
        const { faults: slow } = this.fsyncBurst("$leader", t, leftMs, [], 1);
        return { faults: [...slow, ...this.crash(target, t, leftMs, [{ after: "zab.ack", node: target, withinMs: rng.int(200, 3000), delayMs: rng.int(0, 3) }])], busyMs: 0 };
      }
      case "crash-after-snapshot": {
        const point = rng.chance(0.5) ? "zk.snapshot.start" : "zk.snapshot.done";
        return { faults: this.crash("$1", t, leftMs, [{ after: point, withinMs: rng.int(1000, 15_000), delayMs: rng.int(0, 3) }]), busyMs: 0 };
      }
      case "crash-in-sync": {
        // The sync must come early enough to leave the fsync step its 3 s within the phase.
        const withinMs = Math.min(rng.int(1000, 15_000), leftMs - 3000 - 800);
        if (withinMs < 1) return { faults: [], busyMs: 0 };
        const sync: TraceStep = { after: "zab.sync", withinMs };
        const { faults: slow, latencyMs } = this.fsyncBurst("$1.learner", t, leftMs, [sync], 1);
        const target = rng.chance(0.7) ? "$1.learner" : "$1";
        const fsync: TraceStep = { after: "disk.fsync", node: "$1.learner", withinMs: 3000, delayMs: rng.int(0, latencyMs - 1) };
        return { faults: [...slow, ...this.crash(target, t, leftMs, [sync, fsync])], busyMs: withinMs };
      }
      case "slow-fsync-burst":
        return { faults: this.fsyncBurst(rng.chance(0.3) ? "$leader" : rng.pick(servers), t, leftMs, [], 1).faults, busyMs: 0 };
    }
  }

  /** One aim of the vocabulary timeline, `t` into a phase with `leftMs` to go. */
  vocabularyAim(kind: VocabularyAim, t: number, leftMs: number): Aimed {
    const { rng, servers, clients } = this;
    switch (kind) {
      case "crash-after-send":
      case "crash-after-receive": {
        const withinMs = rng.int(1000, 15_000);
        const step: TraceStep = {
          after: kind === "crash-after-send" ? "send" : "deliver",
          detail: rng.pick(ZAB_MESSAGES),
          ...(rng.chance(0.4) ? { node: "$leader" } : {}),
          count: rng.int(1, 3),
          withinMs,
        };
        // Step 0 is the phase anchor: "$1" is the node of the message event.
        return { faults: this.crash("$1", t, leftMs, [step]), busyMs: withinMs };
      }
      case "crash-client": {
        const client = rng.pick(clients);
        const steps: TraceStep[] = rng.chance(0.5) ? [{ after: "send", node: client, detail: rng.pick(CLIENT_REQUESTS), withinMs: rng.int(500, 5000) }] : [];
        return { faults: this.crash(client, t, leftMs, steps), busyMs: 0 };
      }
      case "pause-client":
        return { faults: this.at(t, leftMs, { kind: "pause", node: rng.pick(clients) }, [], rng.int(1000, 25_000)), busyMs: 0 };
      case "clock-skew": {
        const node = rng.chance(0.3) ? rng.pick(clients) : rng.chance(0.4) ? "$leader" : rng.pick(servers);
        const rate = rng.chance(0.5) ? rng.int(110, 400) / 100 : 1 / rng.int(2, 10);
        return { faults: this.at(t, leftMs, { kind: "clock", node, rate }, [], rng.int(1000, 20_000)), busyMs: 0 };
      }
      case "pause-past-timeouts": {
        const node = rng.chance(0.5) ? "$leader" : rng.pick(servers);
        return { faults: this.at(t, leftMs, { kind: "pause", node }, [], leftMs), busyMs: 0 };
      }
      case "disk-full": {
        const forMs = Math.min(rng.int(500, 10_000), leftMs - 1);
        if (forMs < 1) return { faults: [], busyMs: 0 };
        return { faults: this.at(t, leftMs, { kind: "disk", node: rng.pick(servers), fault: "full" }, [], forMs), busyMs: 0 };
      }
    }
  }

  /**
   * With probability `p`, a slow-fsync burst on `node` (after `steps`): 20–800 ms per fsync for
   * 0.2–4 s. `latencyMs`: the fsync latency a crash aimed after an fsync must stay under (the
   * disk's own 2 ms without a burst).
   */
  private fsyncBurst(node: string, t: number, leftMs: number, steps: TraceStep[], p: number): { faults: Fault[]; latencyMs: number } {
    const { rng } = this;
    if (!rng.chance(p)) return { faults: [], latencyMs: 2 };
    const latencyMs = rng.int(20, 800);
    const action: FaultAction = { kind: "disk", node, fault: "slow-fsync", fsyncLatencyMs: latencyMs };
    return { faults: this.at(t, leftMs, action, steps, rng.int(200, 4000)), latencyMs };
  }

  /** Once the leader syncs a learner, crash the learner (80 %) or the leader: at once, soon, at its new epoch or its next fsync. */
  private crashSyncingLearner(t: number, leftMs: number): Aimed {
    const { rng, servers } = this;
    // Slow some disks first, so the sync's log writes stay unfsynced for a while (until the heal).
    const slow = rng.chance(0.5) ? subset(rng, servers, 0.5).flatMap((node) => this.at(t, leftMs, { kind: "disk", node, fault: "slow-fsync", fsyncLatencyMs: rng.int(50, 1500) })) : [];
    const withinMs = rng.int(1000, 15_000);
    const target = rng.chance(0.8) ? "$1.learner" : "$1";
    const when = rng.int(0, 3);
    const sync: TraceStep = { after: "zab.sync", withinMs, ...(when === 1 ? { delayMs: rng.int(0, 100) } : {}) };
    const then: TraceStep[] = when === 2 ? [{ after: "zab.epoch.current", node: "$1.learner", withinMs: 3000 }] : when === 3 ? [{ after: "disk.fsync", node: "$1.learner", withinMs: 3000 }] : [];
    return { faults: [...slow, ...this.crash(target, t, leftMs, [sync, ...then])], busyMs: withinMs + (then.length > 0 ? 3000 : 0) };
  }

  /** A proposal that reaches only part of the ensemble, then the leader (and maybe one that heard it) crash. */
  private orphanProposal(t: number, leftMs: number): Aimed {
    const { rng, servers } = this;
    const cut = subset(rng, servers, 0.6);
    if (cut.length === 0) return { faults: [], busyMs: 0 };
    const holdMs = rng.int(20, 800);
    if (holdMs >= leftMs) return { faults: [], busyMs: 0 };
    const faults = [...this.at(t, leftMs, { kind: "cut", from: ["$leader"], to: cut, oneWay: true }, [], holdMs), ...this.crash("$leader", t + holdMs, leftMs - holdMs)];
    const reached = servers.filter((id) => !cut.includes(id));
    if (reached.length > 0 && rng.chance(0.5)) faults.push(...this.crash(rng.pick(reached), t + holdMs, leftMs - holdMs));
    return { faults, busyMs: holdMs };
  }

  /** Crashes at a packet boundary of a learner's sync, between two events (no delay can aim there). */
  private crashAtSyncPoint(t: number, leftMs: number): Aimed {
    const { rng } = this;
    const point = rng.pick(["diff-read", "snap-loaded", "newleader-acked"] as const);
    const withinMs = rng.int(1000, 20_000);
    const sync: TraceStep = { after: "zab.sync", fields: { mode: point === "snap-loaded" ? "SNAP" : "DIFF" }, withinMs };
    const boundary: TraceStep =
      point === "newleader-acked"
        ? { after: "zab.leader.established", node: "$1", withinMs: 5000 }
        : point === "snap-loaded"
          ? { after: "zab.snap.load", node: "$1.learner", withinMs: 5000 }
          : { after: "zab.phase", node: "$1.learner", fields: { phase: "SYNCHRONIZATION" }, withinMs: 5000 };
    const faults = [...this.provokeSync(point, t, leftMs), ...this.crash("$1", t, leftMs, [sync, boundary])];
    // ZK-3911's point: the learner whose NEWLEADER ACK established the leader crashes too.
    if (point === "newleader-acked") faults.push(...this.crash("$1.learner", t, leftMs, [sync, boundary]));
    return { faults, busyMs: withinMs + 5000 };
  }

  /**
   * Half the time, a sync-point aim brings about the sync it waits for instead of waiting for
   * one that other faults cause: a follower bounced (it rejoins behind the leader: a DIFF), or
   * the leader crashed (the next one establishes its epoch through NEWLEADER ACKs). Drawn from
   * its own stream ("swarm/provoke"), so the other aims' draws stay as they were.
   */
  private provokeSync(point: "diff-read" | "snap-loaded" | "newleader-acked", t: number, leftMs: number): Fault[] {
    const rng = this.provoke;
    if (point === "snap-loaded" || !rng.chance(0.5)) return [];
    const action: FaultAction = { kind: "crash", node: point === "diff-read" ? rng.pick(this.servers) : "$leader" };
    return this.at(t, leftMs, action, [], point === "diff-read" ? rng.int(0, 200) : drawDownMs(rng)).map((f) => ({ ...f, onlyIfUp: true }));
  }
}

/** The share of seeds whose fault phase has lagging-server episodes. */
export const LAGGING_SEED_SHARE = 0.35;

/** How long a lagging-server episode needs, at most, from its start to the clients' arrival. */
const LAGGING_EPISODE_MS = 25_000;

/** One or two lagging-server episodes at drawn times of the phase (stream "swarm/lagging"). */
export function drawLaggingEpisodes(root: Rng, servers: readonly string[], clients: readonly string[], tickTimeMs: number, faultPhaseMs: number, episodes: number): Fault[] {
  const rng = root.fork("swarm").fork("lagging");
  const draw = new SwarmDraw(rng, rng, servers, clients);
  const out: Fault[] = [];
  for (let i = 0; i < episodes; i++) {
    // Early enough that the clients meet the lagging server before the heal: a stale leader's new
    // epoch takes syncLimit and an election, the clients' move a read timeout and a host cycle.
    const t = rng.int(0, Math.max(0, faultPhaseMs - LAGGING_EPISODE_MS));
    out.push(...drawLaggingServer(rng, servers, clients, tickTimeMs, t, faultPhaseMs - t, (o, left, action, forMs, steps) => draw.place(o, left, action, forMs, steps)));
  }
  return out;
}

/** The whole schedule of one seed's fault phase. */
export function drawSwarmFaults(root: Rng, servers: readonly string[], clients: readonly string[], tickTimeMs: number, faultPhaseMs?: number, windows = false): Fault[] {
  const plan = drawSwarmPlan(root, faultPhaseMs);
  const swarm = root.fork("swarm");
  const draw = new SwarmDraw(swarm.fork("faults"), swarm.fork("provoke"), servers, clients);
  const out = drawTimeline(swarm.fork("fault-kinds"), plan.faultPhaseMs, plan.faultGapMsMax, SWARM_AIMS, plan.weights, (aim, t, leftMs) => draw.aim(aim, t, leftMs));
  const lagging = swarm.fork("lagging-plan");
  if (lagging.chance(LAGGING_SEED_SHARE)) out.push(...drawLaggingEpisodes(root, servers, clients, tickTimeMs, plan.faultPhaseMs, lagging.int(1, 2)));
  out.push(...drawVocabularyFaults(swarm.fork("vocabulary"), plan.faultPhaseMs, servers, clients));
  return windows ? [...out, ...drawWindowFaults(swarm.fork("windows"), plan.faultPhaseMs, servers, clients)] : out;
}

/** The vocabulary timeline's largest gap between two aims: a few of its faults per phase. */
const VOCABULARY_GAP_MS_MAX = 6000;

/** The vocabulary timeline (header): its own plan, aims and draws, all from `rng` ("swarm/vocabulary"). */
function drawVocabularyFaults(rng: Rng, faultPhaseMs: number, servers: readonly string[], clients: readonly string[]): Fault[] {
  return drawOwnTimeline(rng, faultPhaseMs, servers, clients, VOCABULARY_AIMS, VOCABULARY_GAP_MS_MAX, (draw, aim, t, leftMs) => draw.vocabularyAim(aim, t, leftMs));
}

/** A timeline beside the first, with its own plan (some aims off, the rest weighed), aims and draws, all from `rng`. */
function drawOwnTimeline<A extends string>(rng: Rng, faultPhaseMs: number, servers: readonly string[], clients: readonly string[], aims: readonly A[], gapMsMax: number, aimAt: (draw: SwarmDraw, aim: A, t: number, leftMs: number) => Aimed): Fault[] {
  const planRng = rng.fork("plan");
  const weights = Object.fromEntries(aims.map((k) => [k, planRng.chance(0.3) ? 0 : planRng.int(1, 5)])) as Record<A, number>;
  const draw = new SwarmDraw(rng.fork("faults"), rng.fork("provoke"), servers, clients);
  return drawTimeline(rng.fork("kinds"), faultPhaseMs, gapMsMax, aims, weights, (aim, t, leftMs) => aimAt(draw, aim, t, leftMs));
}

/** The windows timeline (header): its own plan, aims and draws, all from `rng` ("swarm/windows"). */
function drawWindowFaults(rng: Rng, faultPhaseMs: number, servers: readonly string[], clients: readonly string[]): Fault[] {
  return drawOwnTimeline(rng, faultPhaseMs, servers, clients, WINDOW_AIMS, WINDOW_GAP_MS_MAX, (draw, aim, t, leftMs) => draw.windowAim(aim, t, leftMs));
}

/**
 * One timeline of aims over the fault phase: a gap of 0…`gapMsMax`, an aim picked by `weights`
 * (from `kinds`), its faults, and a wait of a share of the time the aim keeps busy, until the
 * phase ends.
 */
function drawTimeline<A extends string>(kinds: Rng, faultPhaseMs: number, gapMsMax: number, aims: readonly A[], weights: Record<A, number>, aimAt: (aim: A, t: number, leftMs: number) => Aimed): Fault[] {
  const out: Fault[] = [];
  let t = 0;
  for (;;) {
    t += kinds.int(0, gapMsMax);
    if (t >= faultPhaseMs) break;
    const aim = pickAim(kinds, aims, weights);
    if (aim === undefined) continue;
    const { faults, busyMs } = aimAt(aim, t, faultPhaseMs - t);
    out.push(...faults);
    t += Math.round(busyMs * WAIT_FRACTION);
  }
  return out;
}

/** The shape's server and client names (the nemeses draw over the nodes the seed creates). */
function swarmNodes(ctx: NemesisContext, kind: string): { servers: string[]; clients: string[]; tickTimeMs: number; faultPhaseMs: number | undefined } {
  if (ctx.scenario.workload.kind !== "swarm") throw new UserInputError(`nemesis "${kind}" needs the "swarm" workload, got "${ctx.scenario.workload.kind}"`);
  const shape = swarmShapeOf(ctx.rng, ctx.scenario.workload.params);
  const servers = Array.from({ length: shape.servers + shape.observers }, (_, i) => `s${i + 1}`);
  const clients = Array.from({ length: shape.clients }, (_, i) => `c${i + 1}`);
  return { servers, clients, tickTimeMs: shape.tickTimeMs, faultPhaseMs: swarmFaultPhaseMs(ctx.scenario.workload.params) };
}

export const zabSwarmNemesis: NemesisDef = {
  kind: "zab-swarm",
  description: "the zab-random-faults swarm's faults: aimed at elections and syncs, anchored on the script's fault phase",
  paramKeys: ["windows"],
  leftOut: ZAB_SWARM_LEFT_OUT,
  checkParams(params) {
    if (params.windows !== undefined && typeof params.windows !== "boolean") throw new UserInputError(`nemesis "zab-swarm": "windows" must be true or false, got ${JSON.stringify(params.windows)}`);
  },
  draw(ctx, params) {
    const { servers, clients, tickTimeMs, faultPhaseMs } = swarmNodes(ctx, "zab-swarm");
    return drawSwarmFaults(ctx.rng, servers, clients, tickTimeMs, faultPhaseMs, params.windows === true);
  },
};

/**
 * Nemesis "lagging-server": only the swarm's lagging-server episodes, `episodes` of them
 * (1–4, default 2) at drawn times of the seed's fault phase — the topology alone, for a scenario
 * that exercises a client meeting a server behind it.
 */
export const laggingServerNemesis: NemesisDef = {
  kind: "lagging-server",
  description: "a lagging follower or a stale leader that clients are pushed onto, then healed (the swarm's lagging-server episodes alone)",
  paramKeys: ["episodes"],
  checkParams(params) {
    const n = params.episodes;
    if (n !== undefined && !(Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 4)) throw new UserInputError(`nemesis.episodes: expected an integer in [1, 4], got ${JSON.stringify(n)}`);
  },
  draw(ctx, params) {
    const { servers, clients, tickTimeMs, faultPhaseMs } = swarmNodes(ctx, "lagging-server");
    return drawLaggingEpisodes(ctx.rng, servers, clients, tickTimeMs, drawSwarmPlan(ctx.rng, faultPhaseMs).faultPhaseMs, (params.episodes as number | undefined) ?? 2);
  },
};
