/**
 * A tiny election-only ensemble for the FastLeaderElection tests.
 *
 * Each node runs a QuorumCnxManager and a FastLeaderElection with a fixed (currentEpoch,
 * lastLoggedZxid), and nothing of ZAB — except, when `learnerStub` is on, a stand-in for the
 * first step of discovery that gives elections their real-life consequences: a follower or
 * observer connects to its leader on the quorum port (5 attempts, 1 s apart, as
 * `Learner.connectToLeader`), and goes back to LOOKING when it cannot or when that connection
 * dies; a leader goes back to LOOKING when no quorum of voters has connected within
 * `initLimit`, or when its connected voters fall below a quorum. Like `Leader.lead()` it pings
 * every tickTime/2 and steps down when fewer than a quorum of voters answered within
 * `syncLimit`; a learner that hears nothing from its leader for `syncLimit` looks again.
 * Without that stub a follower of a crashed or isolated leader would never look again.
 *
 * The checks read the recorded trace (`fle.vote` / `fle.elected` annotations), never the live
 * objects, so they share no code with the election.
 */
import { Simulator, type SimulatorOptions } from "../../../../src/sim/simulator.js";
import type { NodeContext } from "../../../../src/sim/node-context.js";
import type { Endpoint } from "../../../../src/sim/network.js";
import type { TraceEvent } from "../../../../src/sim/trace.js";
import { installFaults, type Fault } from "../../../../src/sim/faults.js";
import { makeZxid, type Zxid } from "../../../../src/zk/proto/records.js";
import { QuorumVerifier, type LearnerType } from "../../../../src/zk/server/quorum/quorum-verifier.js";
import { QuorumCnxManager } from "../../../../src/zk/server/quorum/quorum-cnx-manager.js";
import { FastLeaderElection, type ElectedState } from "../../../../src/zk/server/quorum/fast-leader-election.js";
import type { Vote } from "../../../../src/zk/server/quorum/vote.js";

declare module "../../../../src/sim/trace-schema.js" {
  interface TraceAnnotations {
    /** The stub leader gave up: no quorum of followers heard within the sync limit. */
    "stub.not-enough-followers": { sid: number };
    /** The stub follower gave up: its leader was silent for the sync limit. */
    "stub.leader-silent": { sid: number };
  }
}

export const QUORUM_PORT = 2888;
const CONNECT_ATTEMPTS = 5;
const CONNECT_RETRY_MS = 1000;
const TICK_TIME_MS = 2000;
const INIT_LIMIT_MS = 10 * TICK_TIME_MS;
const SYNC_LIMIT_MS = 5 * TICK_TIME_MS;

export interface ServerSpec {
  sid: number;
  role?: LearnerType;
  epoch: number;
  zxid: Zxid;
  /** Start this many ms after time 0 (default: at 0). */
  startAtMs?: number;
  /** Configured but never started (a server that is down from the beginning). */
  neverStart?: boolean;
  /** Overrides `EnsembleOptions.learnerStub` for this server. */
  learnerStub?: boolean;
}

export interface EnsembleOptions {
  seed: number | string;
  network?: SimulatorOptions["network"];
  learnerStub?: boolean;
  faults?: Fault[];
}

export const nodeOf = (sid: number): string => `s${sid}`;

/** Voters 1..n with (epoch, counter) pairs; the helper most tests start from. */
export function voters(pairs: readonly [epoch: number, counter: number][]): ServerSpec[] {
  return pairs.map(([epoch, counter], i) => ({ sid: i + 1, epoch, zxid: makeZxid(epoch, counter) }));
}

/** The vote that should win among `specs` (voters only): highest (epoch, zxid, sid). */
export function expectedLeader(specs: readonly ServerSpec[]): number {
  const vs = specs.filter((s) => (s.role ?? "participant") === "participant");
  vs.sort((a, b) => a.epoch - b.epoch || (a.zxid < b.zxid ? -1 : a.zxid > b.zxid ? 1 : 0) || a.sid - b.sid);
  return vs[vs.length - 1]!.sid;
}

export interface Ensemble {
  sim: Simulator;
  qv: QuorumVerifier;
  specs: ServerSpec[];
  /** The live election of a node (for debugging only; checks read the trace). */
  processes: Map<number, ElectionPeer>;
}

export function buildEnsemble(specs: ServerSpec[], options: EnsembleOptions): Ensemble {
  const sim = new Simulator({ seed: options.seed, retainTrace: true, ...(options.network ? { network: options.network } : {}) });
  const qv = new QuorumVerifier(specs.map((s) => ({ sid: s.sid, host: nodeOf(s.sid), role: s.role ?? "participant" })));
  const processes = new Map<number, ElectionPeer>();
  for (const spec of specs) {
    sim.addNode(nodeOf(spec.sid), (ctx) => {
      const peer = new ElectionPeer(ctx, spec, qv, spec.learnerStub ?? options.learnerStub ?? false);
      processes.set(spec.sid, peer);
      return {};
    });
  }
  for (const spec of specs) {
    if (spec.neverStart) continue;
    const at = spec.startAtMs ?? 0;
    if (at === 0) sim.start(nodeOf(spec.sid));
    else sim.schedule(at * 1000, () => sim.start(nodeOf(spec.sid)));
  }
  if (options.faults) installFaults(sim, options.faults);
  return { sim, qv, specs, processes };
}

/** One simulated server: election plus (optionally) the learner stub described above. */
export class ElectionPeer {
  readonly fle: FastLeaderElection;
  private readonly learners = new Map<number, Endpoint>();
  /** Leader: when each learner was last heard from (local ms). */
  private readonly lastHeardMs = new Map<number, number>();
  private pingTimer: ReturnType<NodeContext["setTimerMs"]> | undefined;
  private readTimer: ReturnType<NodeContext["setTimerMs"]> | undefined;
  private initTimer: ReturnType<NodeContext["setTimerMs"]> | undefined;
  private leaderLink: Endpoint | undefined;
  private leading = false;
  /** The leader has had a quorum of voters connected (the stub's "discovery done"). */
  private established = false;

  constructor(
    private readonly ctx: NodeContext,
    readonly spec: ServerSpec,
    private readonly qv: QuorumVerifier,
    private readonly learnerStub: boolean,
  ) {
    const manager = new QuorumCnxManager(ctx, spec.sid, qv);
    this.fle = new FastLeaderElection({
      ctx,
      myid: spec.sid,
      qv,
      manager,
      getLastLoggedZxid: () => spec.zxid,
      getCurrentEpoch: () => spec.epoch,
      onElected: (vote, state) => this.onElected(vote, state),
    });
    this.fle.start();
    if (learnerStub) ctx.listen(QUORUM_PORT, (ep) => this.acceptLearner(ep));
    this.fle.lookForLeader();
  }

  private onElected(vote: Vote, state: ElectedState): void {
    if (!this.learnerStub) return;
    if (state === "LEADING") this.lead();
    else this.followLeader(vote.leader, 1);
  }

  private goLooking(): void {
    this.leading = false;
    this.established = false;
    this.ctx.cancelTimer(this.initTimer);
    this.ctx.cancelTimer(this.pingTimer);
    this.ctx.cancelTimer(this.readTimer);
    this.lastHeardMs.clear();
    for (const ep of this.learners.values()) ep.close();
    this.learners.clear();
    this.leaderLink?.close();
    this.leaderLink = undefined;
    if (!this.fle.electing) this.fle.lookForLeader();
  }

  // ---- leader side ----

  private lead(): void {
    this.leading = true;
    this.initTimer = this.ctx.setTimerMs(INIT_LIMIT_MS, () => {
      if (!this.hasQuorum()) this.goLooking();
    }, "stub.initLimit");
  }

  private hasQuorum(): boolean {
    return this.qv.containsQuorum(new Set([this.spec.sid, ...this.learners.keys()]));
  }

  /** Every tickTime/2: ping the learners; on every tick, check a quorum answered recently. */
  private ping(half: number): void {
    for (const ep of this.learners.values()) ep.send({ kind: "stub.ping" });
    if (half % 2 === 1) {
      const now = this.ctx.nowMs();
      const synced = new Set([this.spec.sid]);
      for (const [sid, at] of this.lastHeardMs) if (this.learners.has(sid) && now - at <= SYNC_LIMIT_MS) synced.add(sid);
      if (!this.qv.containsQuorum(synced)) {
        this.ctx.annotate("stub.not-enough-followers", { sid: this.spec.sid });
        this.goLooking();
        return;
      }
    }
    this.pingTimer = this.ctx.setTimerMs(TICK_TIME_MS / 2, () => this.ping(half + 1), "stub.ping");
  }

  private acceptLearner(ep: Endpoint) {
    if (!this.leading) ep.close();
    let sid: number | undefined;
    return {
      onMessage: (_e: Endpoint, m: unknown) => {
        const msg = m as { kind: string; sid: number };
        if (sid !== undefined) this.lastHeardMs.set(sid, this.ctx.nowMs());
        if (msg.kind !== "stub.learnerinfo" || !this.leading) return;
        sid = msg.sid;
        this.learners.get(sid)?.close();
        this.learners.set(sid, ep);
        ep.send({ kind: "stub.leaderinfo", sid: this.spec.sid });
        if (!this.established && this.hasQuorum()) {
          this.established = true;
          this.ctx.cancelTimer(this.initTimer);
          const now = this.ctx.nowMs();
          for (const learner of this.learners.keys()) this.lastHeardMs.set(learner, now);
          this.ping(0);
        }
      },
      onClose: () => {
        if (sid === undefined || this.learners.get(sid) !== ep) return;
        this.learners.delete(sid);
        if (this.leading && this.established && !this.hasQuorum()) this.goLooking();
      },
    };
  }

  // ---- learner side ----

  private followLeader(leader: number, attempt: number): void {
    let accepted = false;
    const ep = this.ctx.connect(nodeOf(leader), QUORUM_PORT, {
      onOpen: (e) => {
        e.send({ kind: "stub.learnerinfo", sid: this.spec.sid });
        this.armReadTimeout(ep);
      },
      onMessage: (e, m) => {
        const kind = (m as { kind: string }).kind;
        if (kind === "stub.leaderinfo") accepted = true;
        if (kind === "stub.ping") e.send({ kind: "stub.pong" });
        this.armReadTimeout(ep);
      },
      onClose: () => {
        if (this.leaderLink !== ep) return;
        this.leaderLink = undefined;
        if (this.fle.electing) return;
        if (accepted || attempt >= CONNECT_ATTEMPTS) this.goLooking();
        else this.ctx.setTimerMs(CONNECT_RETRY_MS, () => {
          if (!this.fle.electing && this.leaderLink === undefined && this.fle.currentVote.leader === leader) this.followLeader(leader, attempt + 1);
        }, "stub.connectRetry");
      },
    }, { timeoutUs: 5_000_000 });
    this.leaderLink = ep;
  }

  /** A learner whose leader is silent for syncLimit gives up on it (socket read timeout). */
  private armReadTimeout(ep: Endpoint): void {
    this.ctx.cancelTimer(this.readTimer);
    this.readTimer = this.ctx.setTimerMs(SYNC_LIMIT_MS, () => {
      if (this.leaderLink !== ep) return;
      this.ctx.annotate("stub.leader-silent", { sid: this.spec.sid });
      this.goLooking();
    }, "stub.readTimeout");
  }
}

// ---- reading the trace ------------------------------------------------------------------

export interface Decision {
  atUs: number;
  sid: number;
  leader: number;
  state: ElectedState;
  electionEpoch: number;
}

export function decisions(sim: Simulator): Decision[] {
  return sim.trace.events.filter((e) => e.kind === "fle.elected").map(toDecision);
}

function toDecision(e: TraceEvent): Decision {
  const f = e.fields as { sid: number; leader: number; state: ElectedState; electionEpoch: number };
  return { atUs: e.atUs, sid: f.sid, leader: f.leader, state: f.state, electionEpoch: f.electionEpoch };
}

/**
 * Where every server stands at the end, from the trace: its last decision, or "LOOKING" if
 * it has looked again (or never decided) since, or "down" if its node is down.
 */
export function finalStates(ens: Ensemble): Map<number, Decision | "LOOKING" | "down"> {
  const out = new Map<number, Decision | "LOOKING" | "down">();
  for (const s of ens.specs) out.set(s.sid, "LOOKING");
  for (const e of ens.sim.trace.events) {
    const sid = Number(e.node.slice(1));
    if (e.kind === "fle.elected") out.set(sid, toDecision(e));
    else if (e.kind === "fle.vote" && (e.fields as { state: string }).state === "LOOKING") out.set(sid, "LOOKING");
    else if (e.kind === "crash") out.set(sid, "down");
    else if (e.kind === "start" || e.kind === "restart") out.set(sid, "LOOKING");
  }
  return out;
}

/** The decided states at the end, or a description of who has not decided. */
export function settled(ens: Ensemble, sids: readonly number[]): Decision[] | string {
  const states = finalStates(ens);
  const out: Decision[] = [];
  for (const sid of sids) {
    const s = states.get(sid);
    if (s === undefined || typeof s === "string") return `sid ${sid} is ${String(s)}`;
    out.push(s);
  }
  return out;
}

/** Runs until every server in `sids` has a decision (or the time limit). */
export function runUntilDecided(ens: Ensemble, sids: readonly number[], limitMs: number): void {
  const want = new Set(sids);
  ens.sim.runSync({
    untilUs: limitMs * 1000,
    until: () => {
      for (const sid of want) {
        const p = ens.processes.get(sid);
        if (p === undefined || p.fle.peerState === "LOOKING") return false;
      }
      return true;
    },
  });
}

/** A human summary of the trace's decisions, for assertion messages. */
export function describeDecisions(sim: Simulator): string {
  return decisions(sim)
    .map((d) => `${(d.atUs / 1000).toFixed(1)}ms s${d.sid} ${d.state} leader=${d.leader} round=${d.electionEpoch}`)
    .join("\n");
}
