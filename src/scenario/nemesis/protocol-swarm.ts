/**
 * Nemesis "protocol-swarm": the fault phase of the teaching protocols' swarms (paxos-,
 * multipaxos-, 2pc-, 3pc-random-faults, 3pc-random-crashes), drawn from the seed before the run
 * like every nemesis. The stream "swarm/plan" switches each kind off (probability 0.3) or weighs
 * it 1–5 and picks the largest gap between faults; "swarm/faults" draws the timeline and each
 * fault over the nodes the seed's shape creates (`WorkloadDef.seedNodes`). Faults start in the
 * fault phase [0, untilMs); the run's convergence phase then ends whatever is still in force.
 *
 * Kinds: crash (a `crashable` node, only if it is up; started again after a quick bounce or
 * 0.5 s–`downMsMax`), crash-after (some of `aimedAt` each crash right after they next record one
 * of `aimedKinds` — an acceptor's answer, the moment unsynced state would be lost — through a
 * trace condition that gives up at `untilMs`), partition (the `network` split in two), isolate
 * (one `network` node cut from every node), cut (one way), loss, duplicate, pause, slow-fsync,
 * clog; all but crash undone after 0.1 s–`holdMsMax` (pause 50 ms–`holdMsMax`).
 *
 * Invariants: a pure function of (scenario, seed); every fault names only nodes the seed
 * creates; no fault starts, and no aimed crash arms, at or after `untilMs`.
 */
import { UserInputError } from "../../sim/errors.js";
import type { Fault, FaultAction } from "../../sim/faults.js";
import type { Rng } from "../../sim/rng.js";
import { entry } from "./draw.js";
import type { NemesisDef } from "./index.js";

export const PROTOCOL_SWARM_KINDS = ["crash", "crash-after", "partition", "isolate", "cut", "loss", "duplicate", "pause", "slow-fsync", "clog"] as const;
type Kind = (typeof PROTOCOL_SWARM_KINDS)[number];

const PARAMS = ["kinds", "crashable", "network", "aimedKinds", "aimedAt", "untilMs", "gapMsMin", "gapMsMax", "downMsMax", "holdMsMax"];

interface Params {
  kinds: readonly Kind[];
  crashable?: readonly string[];
  network?: readonly string[];
  aimedKinds: readonly string[];
  aimedAt?: readonly string[];
  untilMs?: number;
  gapMsMin: number;
  /** The plan's largest gap is drawn in [lo, hi]. */
  gapMsMax: readonly [number, number];
  downMsMax: number;
  holdMsMax: number;
}

function read(params: Readonly<Record<string, unknown>>, nodes: readonly string[]): Params {
  const whole = (k: string, dflt: number, min: number): number => {
    const v = params[k] ?? dflt;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new UserInputError(`nemesis.${k}: expected a whole number ≥ ${min}, got ${JSON.stringify(v)}`);
    return v;
  };
  const nodeList = (k: string): string[] | undefined => {
    const v = params[k];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.length === 0 || !v.every((n) => typeof n === "string" && nodes.includes(n))) {
      throw new UserInputError(`nemesis.${k}: expected a non-empty list of node names (known: ${nodes.join(", ")})`);
    }
    return v as string[];
  };
  const kinds = params.kinds ?? PROTOCOL_SWARM_KINDS;
  if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((k) => (PROTOCOL_SWARM_KINDS as readonly unknown[]).includes(k))) {
    throw new UserInputError(`nemesis.kinds: expected a non-empty list of ${PROTOCOL_SWARM_KINDS.join(", ")}`);
  }
  const aimedKinds = params.aimedKinds ?? [];
  if (!Array.isArray(aimedKinds) || !aimedKinds.every((k) => typeof k === "string" && k !== "")) throw new UserInputError(`nemesis.aimedKinds: expected a list of trace event kinds like "paxos.accepted"`);
  if (kinds.includes("crash-after") && aimedKinds.length === 0) throw new UserInputError(`nemesis.aimedKinds: "crash-after" needs the trace kinds it crashes after`);
  const gap = params.gapMsMax ?? [50, 800];
  if (!Array.isArray(gap) || gap.length !== 2 || !gap.every((g) => Number.isSafeInteger(g) && (g as number) >= 1) || (gap[0] as number) > (gap[1] as number)) {
    throw new UserInputError(`nemesis.gapMsMax: expected [lo, hi], whole numbers with 1 ≤ lo ≤ hi, got ${JSON.stringify(gap)}`);
  }
  const untilMs = params.untilMs === undefined ? undefined : whole("untilMs", 0, 1);
  const [crashable, network, aimedAt] = [nodeList("crashable"), nodeList("network"), nodeList("aimedAt")];
  return {
    kinds: kinds as Kind[],
    aimedKinds: aimedKinds as string[],
    gapMsMin: whole("gapMsMin", 0, 0),
    gapMsMax: [gap[0] as number, gap[1] as number],
    downMsMax: whole("downMsMax", 5000, 500),
    holdMsMax: whole("holdMsMax", 4000, 100),
    ...(crashable !== undefined ? { crashable } : {}),
    ...(network !== undefined ? { network } : {}),
    ...(aimedAt !== undefined ? { aimedAt } : {}),
    ...(untilMs !== undefined ? { untilMs } : {}),
  };
}

/** The draws of one seed: its nodes by role and its streams. */
class ProtocolDraw {
  constructor(
    private readonly rng: Rng,
    private readonly p: Params,
    private readonly all: readonly string[],
    private readonly crashable: readonly string[],
    private readonly network: readonly string[],
    private readonly aimedAt: readonly string[],
    private readonly untilMs: number,
  ) {}

  /** Each of `xs` with probability 0.5, or one of them if that left none. */
  private someOf(xs: readonly string[]): string[] {
    const chosen = xs.filter(() => this.rng.chance(0.5));
    return chosen.length > 0 ? chosen : [this.rng.pick(xs)];
  }

  private downMs(): number {
    return this.rng.chance(0.3) ? this.rng.int(0, 200) : this.rng.int(500, this.p.downMsMax);
  }

  private held(action: FaultAction, t: number, minMs = 100): Fault[] {
    return [entry(action, t, this.rng.int(minMs, this.p.holdMsMax))];
  }

  faultsOf(kind: Kind, t: number): Fault[] {
    const rng = this.rng;
    switch (kind) {
      case "crash":
        if (this.crashable.length === 0) return [];
        return [{ ...entry({ kind: "crash", node: rng.pick(this.crashable) }, t, this.downMs()), onlyIfUp: true }];
      case "crash-after":
        // Several nodes at once, each at its own next aimed event (it may be rare): a majority
        // that answered and then lost what it answered.
        if (this.aimedAt.length === 0) return [];
        return this.someOf(this.aimedAt).map((node) => ({
          ...entry({ kind: "crash", node }, t, this.downMs(), [{ after: rng.pick(this.p.aimedKinds), node, withinMs: this.untilMs - t }]),
          onlyIfUp: true,
        }));
      case "partition": {
        const side = this.someOf(this.network);
        const rest = this.network.filter((n) => !side.includes(n));
        return rest.length === 0 ? [] : this.held({ kind: "cut", from: side, to: rest }, t);
      }
      case "isolate": {
        const node = rng.pick(this.network);
        return this.held({ kind: "cut", from: [node], to: this.all.filter((n) => n !== node) }, t);
      }
      case "cut": {
        const from = this.someOf(this.network);
        const others = this.network.filter((n) => !from.includes(n));
        return this.held({ kind: "cut", from, to: this.someOf(others.length > 0 ? others : this.network), oneWay: true }, t);
      }
      case "loss":
      case "duplicate":
        return this.held({ kind, rate: rng.int(5, 50) / 100, from: this.someOf(this.network), to: [...this.network], oneWay: true }, t);
      case "pause":
        return this.crashable.length === 0 ? [] : this.held({ kind: "pause", node: rng.pick(this.crashable) }, t, 50);
      case "slow-fsync":
        return this.crashable.length === 0 ? [] : this.held({ kind: "disk", node: rng.pick(this.crashable), fault: "slow-fsync", fsyncLatencyMs: rng.int(10, 500) }, t);
      case "clog":
        return this.held({ kind: "clog", from: this.someOf(this.network), to: this.someOf(this.network), extraDelayMs: rng.int(5, 500), oneWay: rng.chance(0.5) }, t);
    }
  }
}

export const protocolSwarmNemesis: NemesisDef = {
  kind: "protocol-swarm",
  description: "the teaching protocols' swarm faults: crashes (some aimed right after a trace event), partitions, cuts, loss, pauses, slow disks",
  paramKeys: PARAMS,
  checkParams: (params, nodes) => void read(params, nodes),
  draw(ctx, params) {
    const p = read(params, ctx.nodes);
    const seedNodes = ctx.seedNodes();
    const exists = (xs: readonly string[] | undefined) => (xs ?? seedNodes).filter((n) => seedNodes.includes(n));
    const crashable = exists(p.crashable);
    const untilMs = p.untilMs ?? ctx.scenario.durationMs;
    const plan = ctx.rng.fork("swarm").fork("plan");
    const weights = p.kinds.map((k) => [k, plan.chance(0.3) ? 0 : plan.int(1, 5)] as const);
    const total = weights.reduce((a, [, w]) => a + w, 0);
    const gapMsMax = plan.int(p.gapMsMax[0], p.gapMsMax[1]);
    const rng = ctx.rng.fork("swarm").fork("faults");
    const draw = new ProtocolDraw(rng, p, seedNodes, crashable, exists(p.network), p.aimedAt === undefined ? crashable : exists(p.aimedAt), untilMs);
    const out: Fault[] = [];
    for (let t = rng.int(p.gapMsMin, Math.max(p.gapMsMin, gapMsMax)); total > 0 && t < untilMs; t += rng.int(p.gapMsMin, Math.max(p.gapMsMin, gapMsMax))) {
      let x = rng.int(1, total);
      const kind = weights.find(([, w]) => (x -= w) <= 0)![0];
      out.push(...draw.faultsOf(kind, t));
    }
    return out;
  },
};
