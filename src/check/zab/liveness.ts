/**
 * Liveness after the faults end: within `budgetMs` of the last fault (crash, restart, a start
 * after a crash or after the run began, partition, heal, pause, resume, clog, unclog) the
 * ensemble has a leader and every server that is up is serving.
 *
 * Conservative on purpose (a liveness checker that cries wolf gets switched off): within the
 * window (last fault, last fault + budget]
 * - a leader exists: some `zab.leader.established` happened in the window, or a majority of the
 *   voters that are up were in phase BROADCAST at some instant of the window (a leader that
 *   survived the faults need not re-establish itself);
 * - every server that is up (not crashed, not paused) was in phase BROADCAST at some instant of
 *   the window — already there when the last fault happened, or arriving later.
 * - every client request finishes (any outcome: a reply, CONNECTIONLOSS, SESSIONEXPIRED) within
 *   `budgetMs` of the later of the window's start and its invocation, unless its client node
 *   crashed first (its requests die with it); a request is judged only if the run went on that
 *   long after it.
 * With no fault at all, the window starts at the first event. Nothing is judged unless the run
 * went on for at least `budgetMs` after the window opened. A failure carries a "why stuck"
 * report: each server's last role, phase, epoch and when, which are down or paused, and which
 * links are still cut.
 *
 * Servers are the nodes that announced a ZAB state or phase; voters are those never OBSERVING.
 *
 * One stuck server is explained, not a violation: a server whose acceptedEpoch is above the
 * epoch of the leader serving at the run's end. It accepted a newer epoch from a would-be leader
 * that then failed, while the others established a lower one without it; ZooKeeper 3.8 refuses
 * it for as long as that leader leads (Learner.registerWithLeader: "Leaders epoch … is less than
 * accepted epoch"; Leader.getEpochToPropose no longer raises an established epoch), and it
 * rejoins only after the next leader change. Such a server is reported as an unknown verdict
 * (`unknowns()`: counted, named, not a failure); the rest of the window is judged as usual.
 *
 * Bounded state: only the window after the last fault is judged, so at each fault the checker
 * forgets the requests that finished before it, every server's phase changes but the last, and
 * the establishments before it.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { NODE_AND_LINK_FAULT_KINDS } from "../../sim/trace-schema.js";
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type UnknownVerdict, type Violation } from "../checker.js";
import { at, ServerNames } from "./zab-event.js";
import { intField, optionalStringField, reportMalformed, stringField } from "../event-reader.js";
import { CutLinks } from "../cut-links.js";

/**
 * The ZAB annotations it reads: not the per-txn ones (propose, log, ack, commit, deliver). Every
 * server announces its phase whenever it starts looking for a leader, so these name them all.
 */
const ZAB_KINDS = ["zab.state", "zab.phase", "zab.leader.established", "zab.recovered", "zab.epoch.accepted"] as const;
type ZabKind = (typeof ZAB_KINDS)[number];
const ZAB_KIND_SET: ReadonlySet<string> = new Set(ZAB_KINDS);
const FAULT_KIND_SET: ReadonlySet<string> = new Set(NODE_AND_LINK_FAULT_KINDS);

const KINDS = [...ZAB_KINDS, ...NODE_AND_LINK_FAULT_KINDS, "start", "client.invoke", "client.complete"] as const;
type Kind = KindsOf<typeof KINDS>;

interface Mark {
  index: number;
  atUs: number;
}

interface ServerView {
  state: string | undefined;
  stateAt: Mark | undefined;
  phase: string | undefined;
  epoch: number | undefined;
  phaseAt: Mark | undefined;
  /** The highest acceptedEpoch it announced (at recovery, or when it accepted one). */
  acceptedEpoch: number;
  observer: boolean;
  /** Every phase change, with "DOWN" at a crash, to know the phase at any instant. */
  phases: { mark: Mark; phase: string }[];
}

interface NodeStatus {
  status: "up" | "down" | "paused";
  since: Mark;
}

interface ClientRequest {
  node: string;
  /** What it was, for the report ("c3 setData /x", `whatOf`): put together only there. */
  client: string;
  op: string;
  path: string | undefined;
  invokedIndex: number;
  invokedAtUs: number;
  doneUs: number | undefined;
}

function whatOf(r: ClientRequest): string {
  return `${r.client} ${r.op} ${r.path ?? ""}`.trim();
}

export class LivenessChecker implements Checker<Kind> {
  readonly name = "zab.liveness";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly gaps: UnknownVerdict[] = [];
  private readonly budgetUs: number;
  private readonly names = new ServerNames();
  private readonly servers = new Map<string, ServerView>();
  private readonly nodes = new Map<string, NodeStatus>();
  private readonly cut = new CutLinks();
  private readonly crashed = new Set<string>();
  private readonly established: Mark[] = [];
  /** Client requests by client, then opId: when invoked and finished; dropped when their node crashes. */
  private readonly requests = new Map<string, Map<number, ClientRequest>>();
  private lastFault: TraceEvent | undefined;
  private first: TraceEvent | undefined;

  constructor(readonly budgetMs = 40_000) {
    if (!(budgetMs > 0) || !Number.isFinite(budgetMs)) throw new RangeError(`LivenessChecker: budgetMs must be a positive number of milliseconds, got ${budgetMs}`);
    this.budgetUs = Math.round(budgetMs * 1000);
  }

  onEvent(e: TraceEvent<Kind>): void {
    this.first ??= e;
    if (this.isFault(e)) {
      this.lastFault = e;
      this.forgetBefore(e);
    }
    try {
      if (isZab(e)) this.onZab(e);
      else if (e.kind === "client.invoke" || e.kind === "client.complete") this.onClient(e);
      else this.onKernel(e);
    } catch (err) {
      reportMalformed(this.log, e, err);
    }
  }

  /** What no window starting at fault `e` reads: requests done by then, older phases and establishments. */
  private forgetBefore(e: TraceEvent): void {
    for (const ops of this.requests.values()) for (const [opId, r] of ops) if (r.doneUs !== undefined && r.doneUs <= e.atUs) ops.delete(opId);
    for (const v of this.servers.values()) if (v.phases.length > 1) v.phases.splice(0, v.phases.length - 1);
    this.established.length = 0;
  }

  private isFault(e: TraceEvent): boolean {
    if (FAULT_KIND_SET.has(e.kind)) return true;
    return e.kind === "start" && (this.crashed.has(e.node) || e.atUs > this.first!.atUs);
  }

  private onKernel(e: TraceEvent): void {
    const mark = { index: e.index, atUs: e.atUs };
    switch (e.kind) {
      case "crash":
        for (const ops of this.requests.values()) for (const [opId, r] of ops) if (r.node === e.node && r.doneUs === undefined) ops.delete(opId);
        this.crashed.add(e.node);
        this.nodes.set(e.node, { status: "down", since: mark });
        this.servers.get(e.node)?.phases.push({ mark, phase: "DOWN" });
        return;
      case "start":
      case "restart":
      case "resume":
        this.nodes.set(e.node, { status: "up", since: mark });
        return;
      case "pause":
        this.nodes.set(e.node, { status: "paused", since: mark });
        return;
      case "partition":
      case "heal":
        this.cut.apply(e);
        return;
    }
  }

  private onZab(e: TraceEvent<ZabKind>): void {
    this.names.learn(e);
    const v = this.server(e.node);
    const mark = { index: e.index, atUs: e.atUs };
    if (e.kind === "zab.state") {
      v.state = stringField(e, "state");
      v.stateAt = mark;
      if (v.state === "OBSERVING") v.observer = true;
    } else if (e.kind === "zab.phase") {
      const phase = stringField(e, "phase");
      v.epoch = intField(e, "epoch");
      v.phase = phase;
      v.phaseAt = mark;
      v.phases.push({ mark, phase: v.phase });
    } else if (e.kind === "zab.leader.established") {
      this.established.push(mark);
    } else if (e.kind === "zab.recovered") {
      v.acceptedEpoch = Math.max(v.acceptedEpoch, intField(e, "acceptedEpoch"));
    } else if (e.kind === "zab.epoch.accepted") {
      v.acceptedEpoch = Math.max(v.acceptedEpoch, intField(e, "epoch"));
    }
  }

  private onClient(e: TraceEvent<"client.invoke" | "client.complete">): void {
    const client = stringField(e, "client");
    const opId = intField(e, "opId");
    if (e.kind === "client.invoke") {
      let ops = this.requests.get(client);
      if (ops === undefined) this.requests.set(client, (ops = new Map()));
      const op = stringField(e, "op");
      const path = optionalStringField(e, "path");
      ops.set(opId, { node: e.node, client, op, path, invokedIndex: e.index, invokedAtUs: e.atUs, doneUs: undefined });
      return;
    }
    const r = this.requests.get(client)?.get(opId);
    if (r !== undefined) r.doneUs = e.atUs;
  }

  /** Requests that did not finish within the budget of the later of `from` and their invocation. */
  private unfinished(from: TraceEvent, end: RunEnd): string[] {
    const late: ClientRequest[] = [];
    for (const ops of this.requests.values()) for (const r of ops.values()) {
      if (r.doneUs !== undefined && r.doneUs <= from.atUs) continue;
      const deadlineUs = Math.max(from.atUs, r.invokedAtUs) + this.budgetUs;
      if (deadlineUs > end.atUs || (r.doneUs !== undefined && r.doneUs <= deadlineUs)) continue;
      late.push(r);
    }
    // In invocation order, whichever client invoked them.
    return late
      .sort((a, b) => a.invokedIndex - b.invokedIndex)
      .map((r) => `${whatOf(r)} (invoked ${at({ index: r.invokedIndex, atUs: r.invokedAtUs })}, ${r.doneUs === undefined ? "never finished" : `finished at ${r.doneUs / 1000}ms`})`);
  }

  finish(end?: RunEnd): Violation[] {
    const from = this.lastFault ?? this.first;
    if (from === undefined || end === undefined || end.atUs - from.atUs < this.budgetUs) return this.log.violations;
    const deadlineUs = from.atUs + this.budgetUs;
    const up = [...this.servers.keys()].filter((n) => (this.nodes.get(n)?.status ?? "up") === "up");
    const serving = new Set(up.filter((n) => this.broadcastDuring(this.servers.get(n)!, from, deadlineUs)));
    const problems: string[] = [];
    if (!this.leaderDuring(from, deadlineUs, up, serving)) {
      const voters = [...this.servers.entries()].filter(([, v]) => !v.observer).length;
      const upVoters = up.filter((n) => !this.servers.get(n)!.observer && serving.has(n)).length;
      problems.push(
        `no leader was established (no zab.leader.established, and only ${upVoters} of ${voters} voters were in BROADCAST; a majority is ${majority(voters)})`,
      );
    }
    const leaderEpoch = this.servingLeaderEpoch(up);
    const refused = up.filter((n) => !serving.has(n) && leaderEpoch !== undefined && this.servers.get(n)!.acceptedEpoch > leaderEpoch);
    if (refused.length > 0) {
      const who = refused.map((n) => `${this.names.label(n)} (acceptedEpoch ${this.servers.get(n)!.acceptedEpoch})`).join(", ");
      this.gaps.push({
        checker: this.name,
        reason: `explained liveness gap: ${who} never reached BROADCAST because its acceptedEpoch is above the serving leader's epoch ${leaderEpoch}; ZooKeeper 3.8 refuses it until the leader changes (Learner.registerWithLeader)`,
        fromMs: from.atUs / 1000,
        toMs: end.atUs / 1000,
      });
    }
    const stuck = up.filter((n) => !serving.has(n) && !refused.includes(n));
    if (stuck.length > 0) problems.push(`${stuck.map((n) => this.names.label(n)).join(", ")} never reached phase BROADCAST`);
    const late = this.unfinished(from, end);
    if (late.length > 0) problems.push(`${late.length} client request(s) did not finish in time: ${late.slice(0, 5).join(", ")}${late.length > 5 ? ", …" : ""}`);
    if (problems.length > 0) {
      const fault = this.lastFault === undefined ? "the start of the run" : `the last fault (${this.lastFault.kind}${this.lastFault.node ? ` of ${this.lastFault.node}` : ""} ${at(this.lastFault)})`;
      this.log.add(
        end,
        `Liveness violated: within ${this.budgetMs} ms of ${fault}, ${problems.join("; and ")}; the run went on to ${end.atUs / 1000}ms. Why stuck: ${this.whyStuck()}`,
      );
    }
    return this.log.violations;
  }

  /** The epoch of the one leader in BROADCAST among `up` at the end, if exactly one is. */
  private servingLeaderEpoch(up: string[]): number | undefined {
    const leaders = up.map((n) => this.servers.get(n)!).filter((v) => v.state === "LEADING" && v.phase === "BROADCAST");
    return leaders.length === 1 ? leaders[0]!.epoch : undefined;
  }

  unknowns(): UnknownVerdict[] {
    return this.gaps;
  }

  private leaderDuring(from: TraceEvent, deadlineUs: number, up: string[], serving: Set<string>): boolean {
    if (this.established.some((m) => m.index > from.index && m.atUs <= deadlineUs)) return true;
    const voters = [...this.servers.values()].filter((v) => !v.observer).length;
    const servingVoters = up.filter((n) => serving.has(n) && !this.servers.get(n)!.observer).length;
    return voters > 0 && servingVoters >= majority(voters);
  }

  /** Whether the server was in BROADCAST at some instant of (from, deadline]. */
  private broadcastDuring(v: ServerView, from: TraceEvent, deadlineUs: number): boolean {
    let before: string | undefined;
    for (const p of v.phases) {
      if (p.mark.index <= from.index) before = p.phase;
      else if (p.mark.atUs <= deadlineUs && p.phase === "BROADCAST") return true;
    }
    return before === "BROADCAST";
  }

  private whyStuck(): string {
    const parts: string[] = [];
    for (const [node, v] of this.servers) {
      const status = this.nodes.get(node);
      const label = this.names.label(node);
      if (status !== undefined && status.status !== "up") {
        parts.push(`${label}: ${status.status} since ${status.since.atUs / 1000}ms`);
        continue;
      }
      const role = v.state === undefined ? "no role yet" : `${v.state} since ${v.stateAt!.atUs / 1000}ms`;
      const phase = v.phase === undefined ? "no phase yet" : `phase ${v.phase} (epoch ${v.epoch}) since ${v.phaseAt!.atUs / 1000}ms`;
      parts.push(`${label}: ${role}, ${phase}`);
    }
    const links = this.cut.list();
    parts.push(links.length === 0 ? "no links cut" : `links cut: ${links.join(", ")}`);
    return parts.join("; ");
  }

  private server(node: string): ServerView {
    let v = this.servers.get(node);
    if (v === undefined) {
      v = { state: undefined, stateAt: undefined, phase: undefined, epoch: undefined, phaseAt: undefined, acceptedEpoch: 0, observer: false, phases: [] };
      this.servers.set(node, v);
    }
    return v;
  }
}

function isZab(e: TraceEvent): e is TraceEvent<ZabKind> {
  return ZAB_KIND_SET.has(e.kind);
}

function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}
