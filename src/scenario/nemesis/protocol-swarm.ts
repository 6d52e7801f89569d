/**
 * Nemesis "protocol-swarm": the fault phase of the teaching protocols' swarms (paxos-,
 * multipaxos-, 2pc-, 3pc-random-faults, 3pc-random-crashes), drawn from the seed before the run
 * like every nemesis. The stream "swarm/plan" switches each kind off (probability 0.3) or weighs
 * it 1–5 and picks the largest gap between faults; "swarm/faults" draws the timeline and each
 * fault over the nodes the seed's shape creates (`WorkloadDef.seedNodes`). Faults start in the
 * fault phase [0, untilMs); the run's convergence phase then ends whatever is still in force.
 *
 * Kinds (the whole vocabulary; a swarm lists those it draws in `kinds` and declares each one it
 * leaves out, with why, in `omitted` — none may be left unaccounted for):
 * - crash: a `crashable` node, only if it is up; started again after a quick bounce or
 *   0.5 s–`downMsMax`. client-crash: the same for a `clients` node (a client that forgets its
 *   plan and its request ids).
 * - crash-after: some of `aimedAt` each crash right after its next trace event of one of
 *   `aimedKinds` — an acceptor's answer, a participant's vote: the moment unsynced state would
 *   be lost — given up at `untilMs`.
 * - crash-on-message: a node crashes right after it sends, or receives, a message of one of
 *   `messageKinds` (a `detail` step on "send" / "deliver"): half the time the next node that
 *   does (`$0`), half the time one of the `crashable` or `clients` nodes at its own next one.
 * - bounce: a `crashable` node crashes right after it next sends a datagram and starts again
 *   0–2 ms later, so the datagrams it sent and those on their way to it cross the restart.
 * - partition (the `network` split in two), isolate (one `network` node cut from every node),
 *   cut (one way), loss, duplicate, clog: undone after 0.1 s–`holdMsMax`. reorder: 5–50 % of
 *   the datagrams on some links get up to 5–500 ms more delay than the rest, so an old message
 *   (a prepare, a vote, a preCommit) arrives after newer ones, long after it was sent; undone
 *   the same way.
 * - pause (50 ms–`holdMsMax`), long-pause (`longPauseMs`–3·`longPauseMs`: longer than any of
 *   the protocol's timeouts, so the others act as if it had failed, and then it resumes).
 * - slow-fsync, disk-full (a `crashable` node's disk refuses writes, ENOSPC), undone after
 *   0.1 s–`holdMsMax`.
 * - clock: some `crashable` nodes' clocks run fast or slow, within ±`clockDriftPct` percent
 *   (half of them at the bound), undone after 0.1 s–`holdMsMax`.
 * - drift-cut: one `crashable` node's clock runs slow at the bound and the other `crashable`
 *   nodes' fast at the bound, while it is cut off from them (not from the clients): a node that
 *   goes on trusting its timers — a master's lease — while the others' run out first. Half the
 *   time (with `leader`, a role reference such as "$leader") the node is the leader of the moment.
 *
 * `straggler: true` closes the fault phase with one `crashable` node left behind while the
 * others carry on (stream "swarm/straggler", so the rest of the draw is the same with or without
 * it): for the last 100–600 ms before the scenario's `durationMs` it is down (started again at
 * `durationMs`, its volatile state gone) or cut off from every other node. A swarm that sets it
 * judges catch-up: with `untilMs`, `holdMsMax`, `downMsMax` and `longPauseMs` such that every
 * other fault is over by then, nothing follows the straggler's return that could give it
 * another way in (a restart, a leader change of the nemesis's making), and the convergence
 * phase is quiet: after the heal it must learn what was decided without it.
 *
 * Invariants: a pure function of (scenario, seed); every fault names only nodes the seed
 * creates (or `$0`, the node of the event it is aimed at); no fault starts, and no aimed crash
 * arms, at or after `untilMs`.
 */
import { UserInputError } from "../../sim/errors.js";
import type { Fault, FaultAction } from "../../sim/faults.js";
import type { TraceStep } from "../../sim/fault-when.js";
import type { Rng } from "../../sim/rng.js";
import { entry } from "./draw.js";
import type { NemesisDef } from "./index.js";

export const PROTOCOL_SWARM_KINDS = [
  "crash", "client-crash", "crash-after", "crash-on-message", "bounce", "partition", "isolate", "cut", "loss", "duplicate", "pause", "long-pause", "slow-fsync", "disk-full", "clock", "drift-cut", "clog", "reorder",
] as const;
type Kind = (typeof PROTOCOL_SWARM_KINDS)[number];

const PARAMS = ["kinds", "omitted", "crashable", "clients", "network", "leader", "aimedKinds", "aimedAt", "messageKinds", "untilMs", "gapMsMin", "gapMsMax", "downMsMax", "holdMsMax", "longPauseMs", "clockDriftPct", "straggler"];

interface Params {
  kinds: readonly Kind[];
  crashable?: readonly string[];
  clients?: readonly string[];
  network?: readonly string[];
  /** A role reference ("$leader") for the workload's leader, when it has one. */
  leader?: string;
  aimedKinds: readonly string[];
  aimedAt?: readonly string[];
  messageKinds: readonly string[];
  untilMs?: number;
  gapMsMin: number;
  /** The plan's largest gap is drawn in [lo, hi]. */
  gapMsMax: readonly [number, number];
  downMsMax: number;
  holdMsMax: number;
  longPauseMs: number;
  clockDriftPct: number;
  straggler: boolean;
}

function readKinds(params: Readonly<Record<string, unknown>>): Kind[] {
  const isKind = (k: unknown): k is Kind => (PROTOCOL_SWARM_KINDS as readonly unknown[]).includes(k);
  const kinds = params.kinds ?? PROTOCOL_SWARM_KINDS;
  if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every(isKind)) throw new UserInputError(`nemesis.kinds: expected a non-empty list of ${PROTOCOL_SWARM_KINDS.join(", ")}`);
  const omitted = params.omitted ?? {};
  if (typeof omitted !== "object" || omitted === null || Array.isArray(omitted)) throw new UserInputError(`nemesis.omitted: expected an object {"<fault kind>": "<why this swarm leaves it out>"}`);
  for (const [k, why] of Object.entries(omitted)) {
    if (!isKind(k)) throw new UserInputError(`nemesis.omitted: unknown fault kind "${k}" (known: ${PROTOCOL_SWARM_KINDS.join(", ")})`);
    if (kinds.includes(k)) throw new UserInputError(`nemesis.omitted: "${k}" is also in kinds`);
    if (typeof why !== "string" || why.trim() === "") throw new UserInputError(`nemesis.omitted.${k}: expected a sentence saying why the swarm leaves it out`);
  }
  const unaccounted = PROTOCOL_SWARM_KINDS.filter((k) => !kinds.includes(k) && !(k in omitted));
  if (params.kinds !== undefined && unaccounted.length > 0) throw new UserInputError(`nemesis.omitted: a swarm draws every fault kind or says why not; missing: ${unaccounted.join(", ")}`);
  return kinds;
}

function read(params: Readonly<Record<string, unknown>>, nodes: readonly string[]): Params {
  const whole = (k: string, dflt: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = params[k] ?? dflt;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) throw new UserInputError(`nemesis.${k}: expected a whole number in [${min}, ${max}], got ${JSON.stringify(v)}`);
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
  const kinds = readKinds(params);
  const aimedKinds = params.aimedKinds ?? [];
  if (!Array.isArray(aimedKinds) || !aimedKinds.every((k) => typeof k === "string" && k !== "")) throw new UserInputError(`nemesis.aimedKinds: expected a list of trace event kinds like "paxos.accepted"`);
  if (kinds.includes("crash-after") && aimedKinds.length === 0) throw new UserInputError(`nemesis.aimedKinds: "crash-after" needs the trace kinds it crashes after`);
  const messageKinds = params.messageKinds ?? [];
  if (!Array.isArray(messageKinds) || !messageKinds.every((k) => typeof k === "string" && k !== "")) throw new UserInputError(`nemesis.messageKinds: expected a list of message types like "promise"`);
  if (kinds.includes("crash-on-message") && messageKinds.length === 0) throw new UserInputError(`nemesis.messageKinds: "crash-on-message" needs the message types it crashes on`);
  const gap = params.gapMsMax ?? [50, 800];
  if (!Array.isArray(gap) || gap.length !== 2 || !gap.every((g) => Number.isSafeInteger(g) && (g as number) >= 1) || (gap[0] as number) > (gap[1] as number)) {
    throw new UserInputError(`nemesis.gapMsMax: expected [lo, hi], whole numbers with 1 ≤ lo ≤ hi, got ${JSON.stringify(gap)}`);
  }
  const untilMs = params.untilMs === undefined ? undefined : whole("untilMs", 0, 1);
  const straggler = params.straggler ?? false;
  if (typeof straggler !== "boolean") throw new UserInputError(`nemesis.straggler: expected true or false, got ${JSON.stringify(straggler)}`);
  const [crashable, clients, network, aimedAt] = [nodeList("crashable"), nodeList("clients"), nodeList("network"), nodeList("aimedAt")];
  if (kinds.includes("client-crash") && clients === undefined) throw new UserInputError(`nemesis.clients: "client-crash" needs the client nodes it may crash`);
  const leader = params.leader;
  if (leader !== undefined && (typeof leader !== "string" || !/^\$[a-z][a-z-]*$/.test(leader))) throw new UserInputError(`nemesis.leader: expected a role reference like "$leader", got ${JSON.stringify(leader)}`);
  return {
    kinds,
    aimedKinds: aimedKinds as string[],
    messageKinds: messageKinds as string[],
    gapMsMin: whole("gapMsMin", 0, 0),
    gapMsMax: [gap[0] as number, gap[1] as number],
    downMsMax: whole("downMsMax", 5000, 500),
    holdMsMax: whole("holdMsMax", 4000, 100),
    longPauseMs: whole("longPauseMs", 1000, 1),
    clockDriftPct: whole("clockDriftPct", 10, 1, 99),
    straggler,
    ...(crashable !== undefined ? { crashable } : {}),
    ...(clients !== undefined ? { clients } : {}),
    ...(network !== undefined ? { network } : {}),
    ...(aimedAt !== undefined ? { aimedAt } : {}),
    ...(leader !== undefined ? { leader: leader as string } : {}),
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
    private readonly clients: readonly string[],
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

  private held(action: FaultAction, t: number, minMs = 100, maxMs = this.p.holdMsMax): Fault[] {
    return [entry(action, t, this.rng.int(minMs, maxMs))];
  }

  private crash(node: string, t: number, downMs: number, when?: TraceStep[]): Fault {
    return { ...entry({ kind: "crash", node }, t, downMs, when), onlyIfUp: true };
  }

  /** A clock rate within the drift bound: half the time at the bound itself, fast or slow. */
  private clockRate(): number {
    const pct = this.p.clockDriftPct;
    const off = this.rng.chance(0.5) ? pct * 10 : this.rng.int(1, pct * 10);
    return (1000 + (this.rng.chance(0.5) ? off : -off)) / 1000;
  }

  faultsOf(kind: Kind, t: number): Fault[] {
    const rng = this.rng;
    const withinMs = this.untilMs - t;
    switch (kind) {
      case "crash":
        return this.crashable.length === 0 ? [] : [this.crash(rng.pick(this.crashable), t, this.downMs())];
      case "client-crash":
        return this.clients.length === 0 ? [] : [this.crash(rng.pick(this.clients), t, this.downMs())];
      case "crash-after":
        // Several nodes at once, each at its own next aimed event (it may be rare): a majority
        // that answered and then lost what it answered.
        if (this.aimedAt.length === 0) return [];
        return this.someOf(this.aimedAt).map((node) => this.crash(node, t, this.downMs(), [{ after: rng.pick(this.p.aimedKinds), node, withinMs }]));
      case "crash-on-message": {
        const step: TraceStep = { after: rng.chance(0.5) ? "send" : "deliver", detail: rng.pick(this.p.messageKinds), withinMs };
        const nodes = [...this.crashable, ...this.clients];
        if (rng.chance(0.5) || nodes.length === 0) return [this.crash("$0", t, this.downMs(), [step])];
        const node = rng.pick(nodes);
        return [this.crash(node, t, this.downMs(), [{ ...step, node }])];
      }
      case "bounce": {
        if (this.crashable.length === 0) return [];
        const node = rng.pick(this.crashable);
        return [this.crash(node, t, rng.int(0, 2), [{ after: "send", node, withinMs }])];
      }
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
      case "long-pause":
        return this.crashable.length === 0 ? [] : this.held({ kind: "pause", node: rng.pick(this.crashable) }, t, this.p.longPauseMs, 3 * this.p.longPauseMs);
      case "slow-fsync":
        return this.crashable.length === 0 ? [] : this.held({ kind: "disk", node: rng.pick(this.crashable), fault: "slow-fsync", fsyncLatencyMs: rng.int(10, 500) }, t);
      case "disk-full":
        return this.crashable.length === 0 ? [] : this.held({ kind: "disk", node: rng.pick(this.crashable), fault: "full" }, t);
      case "clock": {
        if (this.crashable.length === 0) return [];
        const forMs = rng.int(100, this.p.holdMsMax);
        return this.someOf(this.crashable).map((node) => entry({ kind: "clock", node, rate: this.clockRate() }, t, forMs));
      }
      case "drift-cut": {
        if (this.crashable.length < 2) return [];
        // The leader is resolved when the faults fire: every clock fast first, then its slow (same instant, list order).
        const node = this.p.leader !== undefined && rng.chance(0.5) ? this.p.leader : rng.pick(this.crashable);
        const others = this.crashable.filter((n) => n !== node);
        const [forMs, bound] = [rng.int(100, this.p.holdMsMax), this.p.clockDriftPct / 100];
        return [
          ...others.map((n) => entry({ kind: "clock", node: n, rate: 1 + bound }, t, forMs)),
          entry({ kind: "clock", node, rate: 1 - bound }, t, forMs),
          entry({ kind: "cut", from: [node], to: others }, t, forMs),
        ];
      }
      case "reorder":
        return this.held({ kind, rate: rng.int(5, 50) / 100, extraDelayMs: rng.int(5, 500), from: this.someOf(this.network), to: this.someOf(this.network), oneWay: true }, t);
      case "clog":
        return this.held({ kind: "clog", from: this.someOf(this.network), to: this.someOf(this.network), extraDelayMs: rng.int(5, 500), oneWay: rng.chance(0.5) }, t);
    }
  }
}

/** The straggler of `straggler: true`: one node down, or cut off, for the last stretch before `endMs`. */
function straggler(rng: Rng, crashable: readonly string[], all: readonly string[], endMs: number): Fault[] {
  const node = rng.pick(crashable);
  const forMs = Math.min(endMs, rng.int(100, 600));
  const t = endMs - forMs;
  if (rng.chance(0.5)) return [{ ...entry({ kind: "crash", node }, t, forMs), onlyIfUp: true }];
  return [entry({ kind: "cut", from: [node], to: all.filter((n) => n !== node) }, t, forMs)];
}

export const protocolSwarmNemesis: NemesisDef = {
  kind: "protocol-swarm",
  description: "the teaching protocols' swarm faults: crashes of nodes and clients (some aimed right after a message or trace event, some bouncing with datagrams in flight), partitions, cuts, loss, duplication, reordering, pauses longer than any timeout, slow and full disks, clock drift",
  paramKeys: PARAMS,
  checkParams: (params, nodes) => void read(params, nodes),
  leftOutOf: (params) => Object.entries((params.omitted ?? {}) as Record<string, string>).map(([fault, why]) => ({ fault, why })),
  draw(ctx, params) {
    const p = read(params, ctx.nodes);
    const seedNodes = ctx.seedNodes();
    const exists = (xs: readonly string[] | undefined, dflt: readonly string[] = seedNodes) => (xs ?? dflt).filter((n) => seedNodes.includes(n));
    const crashable = exists(p.crashable);
    const untilMs = p.untilMs ?? ctx.scenario.durationMs;
    const plan = ctx.rng.fork("swarm").fork("plan");
    const weights = p.kinds.map((k) => [k, plan.chance(0.3) ? 0 : plan.int(1, 5)] as const);
    const total = weights.reduce((a, [, w]) => a + w, 0);
    const gapMsMax = plan.int(p.gapMsMax[0], p.gapMsMax[1]);
    const rng = ctx.rng.fork("swarm").fork("faults");
    const draw = new ProtocolDraw(rng, p, seedNodes, crashable, exists(p.clients, []), exists(p.network), p.aimedAt === undefined ? crashable : exists(p.aimedAt), untilMs);
    const out: Fault[] = [];
    for (let t = rng.int(p.gapMsMin, Math.max(p.gapMsMin, gapMsMax)); total > 0 && t < untilMs; t += rng.int(p.gapMsMin, Math.max(p.gapMsMin, gapMsMax))) {
      let x = rng.int(1, total);
      const kind = weights.find(([, w]) => (x -= w) <= 0)![0];
      out.push(...draw.faultsOf(kind, t));
    }
    if (p.straggler && crashable.length > 0) out.push(...straggler(ctx.rng.fork("swarm").fork("straggler"), crashable, seedNodes, ctx.scenario.durationMs));
    return out;
  },
};
