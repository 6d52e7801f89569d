/**
 * The fault injector of the teaching protocols' swarms (`paxos-random-faults`,
 * `multipaxos-random-faults`), drawn from the run's seed as `zab-random-faults` draws its own:
 * the stream "swarm/plan" picks the mix (each kind off with probability 0.3, else a weight
 * 1–5) and the gap between faults; "swarm/faults" draws each fault. Faults land only in the
 * fault phase [0, untilMs); whatever is still in force then is ended by the run's convergence
 * phase (`endAllFaults`), after which the liveness checkers judge a healed system.
 *
 * Kinds: crash-restart (down for 0–200 ms or 0.5–5 s), crash-after (crash some of `aimedAt` at once
 * after each next records one of `aimedKinds` — say an acceptor's answer, the moment an unsynced state
 * would be lost — and restart it soon), partition (a random split), cut (one-way), loss,
 * duplicate, reorder, pause (a GC pause), slow-fsync, clog. Only `crashable` nodes crash or
 * pause; every node may be cut off.
 */
import type { Simulator } from "../../sim/simulator.js";
import type { Rng } from "../../sim/rng.js";
import { applyFault, type FaultAction } from "../../sim/faults.js";

const KINDS = ["crash-restart", "crash-after", "partition", "cut", "loss", "duplicate", "reorder", "pause", "slow-fsync", "clog"] as const;
type NemesisKind = (typeof KINDS)[number];

export interface NemesisOptions {
  /** Nodes that may crash, restart and pause. */
  crashable: readonly string[];
  /** Every node (for network faults). */
  all: readonly string[];
  /** Trace kinds after which `crash-after` crashes the node that recorded them… */
  aimedKinds: readonly string[];
  /** …one of these nodes. */
  aimedAt: readonly string[];
  untilMs: number;
}

export interface NemesisPlan {
  weights: Record<NemesisKind, number>;
  gapMsMax: number;
}

export function drawNemesisPlan(rng: Rng): NemesisPlan {
  const weights = Object.fromEntries(KINDS.map((k) => [k, rng.chance(0.3) ? 0 : rng.int(1, 5)])) as Record<NemesisKind, number>;
  return { weights, gapMsMax: rng.int(50, 800) };
}

export function describePlan(plan: NemesisPlan): string {
  return KINDS.filter((k) => plan.weights[k] > 0).join(" ") || "(no faults)";
}

/** Starts the nemesis at virtual time 0; it schedules itself until `untilMs`. */
export function startNemesis(sim: Simulator, rng: Rng, plan: NemesisPlan, o: NemesisOptions): void {
  const untilUs = o.untilMs * 1000;
  const total = KINDS.reduce((a, k) => a + plan.weights[k], 0);
  if (total === 0) return;
  // The phase ends with an event at `untilMs` itself: the run's clock reaches it before the
  // convergence phase ends every fault, and no aimed crash fires after that.
  let over = false;
  const aimedCrashes = new Set<() => void>();
  sim.schedule(untilUs, () => {
    over = true;
    for (const unsubscribe of aimedCrashes) unsubscribe();
  });
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(0, xs.length - 1)]!;
  const fault = (a: FaultAction) => applyFault(sim, a);
  /** Runs `undo` after `ms` if still in the fault phase (else convergence ends it). */
  const later = (ms: number, undo: () => void) => {
    const at = sim.nowUs + ms * 1000;
    if (at < untilUs) sim.schedule(at, undo);
  };
  const restartLater = (node: string) =>
    later(rng.chance(0.4) ? rng.int(0, 200) : rng.int(500, 5000), () => {
      if (sim.node(node).status === "down") fault({ kind: "start", node });
    });
  const someOf = (xs: readonly string[]) => {
    const chosen = xs.filter(() => rng.chance(0.5));
    return chosen.length > 0 ? chosen : [pick(xs)];
  };
  const inject = (kind: NemesisKind): void => {
    switch (kind) {
      case "crash-restart": {
        const node = pick(o.crashable);
        if (sim.node(node).status !== "up") return;
        fault({ kind: "crash", node });
        return restartLater(node);
      }
      case "crash-after": {
        // Several nodes at once (each waits for its own moment until the phase ends: the
        // aimed event may be rare): a majority that answered and then lost what it answered.
        const aimed = new Set(o.aimedKinds);
        for (const target of someOf(o.aimedAt)) {
          const unsubscribe = sim.trace.subscribe(
            (e) => {
              if (over || e.node !== target || sim.node(target).status !== "up") return;
              unsubscribe();
              sim.schedule(sim.nowUs, () => {
                if (over) return;
                fault({ kind: "crash", node: target });
                restartLater(target);
              });
            },
            (k) => aimed.has(k),
          );
          aimedCrashes.add(unsubscribe);
        }
        return;
      }
      case "partition": {
        const side = someOf(o.all);
        const rest = o.all.filter((n) => !side.includes(n));
        if (rest.length === 0) return;
        fault({ kind: "partition", groups: [side, rest] });
        return later(rng.int(100, 4000), () => fault({ kind: "heal" }));
      }
      case "cut": {
        const from = someOf(o.all);
        const to = someOf(o.all.filter((n) => !from.includes(n)).length > 0 ? o.all.filter((n) => !from.includes(n)) : o.all);
        fault({ kind: "cut", from, to, oneWay: true });
        return later(rng.int(100, 4000), () => fault({ kind: "heal", from, to, oneWay: true }));
      }
      case "loss":
      case "duplicate":
      case "reorder": {
        const rate = rng.int(5, 50) / 100;
        fault({ kind, rate });
        return later(rng.int(100, 4000), () => fault({ kind, rate: 0 }));
      }
      case "pause": {
        const node = pick(o.crashable);
        fault({ kind: "pause", node });
        return later(rng.int(50, 3000), () => fault({ kind: "resume", node }));
      }
      case "slow-fsync": {
        const node = pick(o.crashable);
        fault({ kind: "disk", node, fault: "slow-fsync", fsyncLatencyMs: rng.int(10, 500) });
        return later(rng.int(100, 4000), () => fault({ kind: "disk", node, fault: "ok" }));
      }
      case "clog": {
        const from = someOf(o.all);
        const to = someOf(o.all);
        fault({ kind: "clog", from, to, extraDelayMs: rng.int(5, 500), oneWay: rng.chance(0.5) });
        return later(rng.int(100, 4000), () => fault({ kind: "unclog", from, to }));
      }
    }
  };
  const next = (): void => {
    const at = sim.nowUs + rng.int(0, plan.gapMsMax) * 1000;
    if (at >= untilUs) return;
    sim.schedule(at, () => {
      let x = rng.int(1, total);
      for (const k of KINDS) {
        if ((x -= plan.weights[k]) <= 0) {
          inject(k);
          break;
        }
      }
      next();
    });
  };
  next();
}
