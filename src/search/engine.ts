/**
 * The search: breadth-first, or depth-first with iterative deepening, over the choices of a
 * target's world (choices.ts) within its bounds, with
 * - state hashing (world-state.ts): a state reached again is not explored again unless this
 *   visit can do more than an earlier one (less depth used, fewer faults or reorders spent, a
 *   smaller sleep set);
 * - sleep sets (Godefroid): after exploring step t at a state, a later sibling t' carries t in
 *   its sleep set when t and t' are independent, and t is not taken again below t' until a
 *   dependent step wakes it — s·t'·t reaches the state s·t·t' already reached. Sleep sets prune
 *   transitions, never states: every state reachable within the bounds is visited (the
 *   soundness argument, docs/model-checking.md). Under a reorder bound they are off: the two
 *   orders of a commuting pair need not cost the same number of reorders.
 * - every live checker asked after every step (a violation stops that path: its state is not
 *   expanded); at the end of each path — the depth bound, or nothing left to run — the path is
 *   finished (hold, heal, converge: executor.ts) and every checker, liveness included, judges
 *   the whole run.
 *
 * The engine reads no clock of its own: the caller passes `now` (wall milliseconds, for the
 * time bound and the rate) and `shouldStop` (an interrupt), so a search is deterministic: the
 * same target and bounds explore the same states in the same order.
 */
import type { Violation } from "../check/checker.js";
import { UserInputError } from "../sim/errors.js";
import { FAULT_KINDS, NO_FAULTS, type FaultBudget, type SearchBounds } from "./bounds.js";
import { choicesAt, faultOf, independent, stepName, type Step } from "./choices.js";
import { Executor, type Live, type StartPoint } from "./executor.js";
import type { CheckTarget } from "./target.js";
import type { WorldState } from "./world-state.js";

export interface SearchOptions {
  bounds: SearchBounds;
  from: StartPoint;
  /** Stop at the first violation (else: go on, and report the first counterexample of each checker). */
  stopAtFirst: boolean;
  /** Wall-clock milliseconds (injected: the engine reads no clock). */
  now: () => number;
  shouldStop?: () => boolean;
  onProgress?: (p: Progress) => void;
  /** Sleep sets on (the default) or off: the tests compare the states each visits, the bench the cost. */
  sleepSets?: boolean;
  /** Symmetry reduction on (the default, where the target names interchangeable nodes) or off. */
  symmetry?: boolean;
  /** Judge by these checkers only (default: every checker of the world and its end checkers). */
  checkers?: readonly string[];
  /** Called with each distinct state's hash when it is first visited. */
  onState?: (hash: string) => void;
}

export interface Progress {
  /** Distinct states (in this iteration, for DFS). */
  unique: number;
  /** Steps executed (each a transition to a state, new or not). */
  transitions: number;
  frontier: number;
  depth: number;
  wallMs: number;
}

export interface Found {
  checker: string;
  message: string;
  path: Step[];
  /** Found when the path was finished (hold, heal, converge), not during its steps. */
  inTail: boolean;
  /** Distinct states explored when it was found (the search's "states to find"). */
  atUnique: number;
}

export type Outcome = "complete" | "states" | "time" | "interrupted" | "found";

export interface SearchResult {
  target: string;
  strategy: SearchBounds["strategy"];
  from: StartPoint;
  outcome: Outcome;
  unique: number;
  transitions: number;
  /** The deepest state reached. */
  depth: number;
  /** Paths finished (their ends judged). */
  ends: number;
  /** Worlds built: each a re-execution from the seed. */
  worldsBuilt: number;
  eventsRun: number;
  wallMs: number;
  found: Found[];
  /** Every checker that judged the paths. */
  checkers: string[];
}

interface SearchNode {
  path: Step[];
  depth: number;
  used: FaultBudget;
  reorders: number;
  /** Steps asleep here: taken elsewhere already, to a state reached that way. */
  sleep: Map<string, Step>;
  /** A revisit: only these steps, by canonical name (the others were explored from this state before). */
  only?: Set<string>;
}

interface Visit {
  depth: number;
  used: FaultBudget;
  reorders: number;
  sleep: Set<string>;
}

class Stop extends Error {
  constructor(readonly outcome: Outcome) {
    super(outcome);
  }
}

export async function search(target: CheckTarget, options: SearchOptions): Promise<SearchResult> {
  return new Search(target, options).run();
}

class Search {
  private readonly exec: Executor;
  private readonly bounds: SearchBounds;
  private readonly withOrder: boolean;
  private readonly sleepSets: boolean;
  private visited = new Map<string, Visit[]>();
  private transitions = 0;
  private deepest = 0;
  private ends = 0;
  private frontier = 0;
  private readonly found: Found[] = [];
  private readonly t0: number;
  private lastProgress = 0;

  constructor(
    private readonly target: CheckTarget,
    private readonly options: SearchOptions,
  ) {
    this.exec = new Executor(target, options.from, options.symmetry !== false);
    this.bounds = options.bounds;
    this.withOrder = this.bounds.reorders !== undefined;
    this.sleepSets = options.sleepSets !== false && !this.withOrder;
    this.t0 = options.now();
  }

  async run(): Promise<SearchResult> {
    let outcome: Outcome = "complete";
    const probe = await this.exec.fresh();
    const all = [...probe.world.liveCheckers, ...probe.endCheckers].map((c) => c.name);
    const unknown = (this.options.checkers ?? []).filter((c) => !all.includes(c));
    if (unknown.length > 0) throw new UserInputError(`check ${this.target.name}: no checker ${unknown.join(", ")} in this world (checkers: ${all.join(", ")})`);
    const checkers = this.options.checkers !== undefined ? all.filter((c) => this.options.checkers!.includes(c)) : all;
    try {
      if (this.bounds.strategy === "bfs") await this.bfs();
      else await this.iterativeDeepening();
    } catch (err) {
      if (!(err instanceof Stop)) throw err;
      outcome = err.outcome;
    }
    return {
      target: this.target.name,
      strategy: this.bounds.strategy,
      from: this.options.from,
      outcome,
      unique: this.visited.size,
      transitions: this.transitions,
      depth: this.deepest,
      ends: this.ends,
      worldsBuilt: this.exec.worldsBuilt,
      eventsRun: this.exec.eventsRun,
      wallMs: this.options.now() - this.t0,
      found: this.found,
      checkers,
    };
  }

  // ---- strategies ------------------------------------------------------------------------

  private async bfs(): Promise<void> {
    const queue: (SearchNode | undefined)[] = [];
    const root = await this.root(this.bounds.depth);
    if (root === undefined) return;
    queue.push(root.node);
    for (let head = 0; head < queue.length; head++) {
      this.frontier = queue.length - head;
      const node = queue[head]!;
      queue[head] = undefined; // let the path go
      const live = await this.exec.replay(node.path);
      await this.expand(node, live, this.exec.observe(live, this.withOrder), this.bounds.depth, async (child) => {
        queue.push(child);
      });
    }
  }

  /**
   * Depth-first within a depth limit that grows: 1, 2, 3, … up to 8, then doubling (16, 32, …)
   * and the bound last — so a shallow counterexample is found at its own depth, a deep search
   * costs at most about twice its last iteration, and each iteration is one live world
   * stepped down a path and re-executed only on backtrack.
   */
  private async iterativeDeepening(): Promise<void> {
    for (const limit of depthLimits(this.bounds.depth)) {
      this.visited = new Map();
      const deepestBefore = this.deepest;
      this.deepest = 0;
      const root = await this.root(limit);
      if (root === undefined) return;
      await this.dfs(root.node, root.live, root.obs, limit);
      if (this.deepest < limit) return; // nothing reaches this deep: the space is explored
      this.deepest = Math.max(this.deepest, deepestBefore);
    }
  }

  private async dfs(node: SearchNode, live: Live, obs: WorldState, limit: number): Promise<void> {
    this.frontier = node.depth;
    await this.expand(node, live, obs, limit, async (child, childLive, childObs) => {
      await this.dfs(child, childLive, childObs, limit);
    });
  }

  // ---- one state -------------------------------------------------------------------------

  /** The start state: judged, remembered; undefined when it already violates or ends there. */
  private async root(limit: number): Promise<{ node: SearchNode; live: Live; obs: WorldState } | undefined> {
    const live = await this.exec.fresh();
    const node: SearchNode = { path: [], depth: 0, used: { ...NO_FAULTS }, reorders: 0, sleep: new Map() };
    const obs = this.exec.observe(live, this.withOrder);
    this.visited.set(obs.hash, [{ depth: 0, used: node.used, reorders: 0, sleep: new Set() }]);
    this.options.onState?.(obs.hash);
    if (this.judge(node, live, false)) return undefined;
    if (await this.endIfLeaf(node, live, obs, limit)) return undefined;
    return { node, live, obs };
  }

  /**
   * Takes each choice of a state not asleep (and, on a revisit, only those the earlier visit
   * left asleep), judging each new state; `onChild` gets the ones to explore further.
   */
  private async expand(node: SearchNode, live: Live, obs: WorldState, limit: number, onChild: (child: SearchNode, live: Live, obs: WorldState) => Promise<void>): Promise<void> {
    const steps = this.choices(node, live, obs);
    const only = node.only;
    const explored: Step[] = [];
    let spare: Live | undefined = live;
    for (const step of steps) {
      const name = stepName(step);
      if (node.sleep.has(name)) continue;
      if (only !== undefined && !only.has(canonicalName(name, obs))) continue; // explored from here before
      const childLive = spare ?? (await this.exec.replay(node.path));
      spare = undefined;
      await this.exec.apply(childLive, step);
      const child = this.childOf(node, step, explored);
      explored.push(step);
      this.tick();
      if (this.judge(child, childLive, false)) continue;
      const childObs = this.exec.observe(childLive, this.withOrder);
      if (!this.firstVisit(childObs, child)) continue;
      if (await this.endIfLeaf(child, childLive, childObs, limit)) continue;
      await onChild(child, childLive, childObs);
    }
  }

  private childOf(node: SearchNode, step: Step, explored: readonly Step[]): SearchNode {
    const used = { ...node.used };
    const fault = faultOf(step);
    if (fault !== undefined) used[fault]++;
    const sleep = new Map<string, Step>();
    if (this.sleepSets) {
      const clock = this.target.clockSensitive;
      for (const [name, z] of node.sleep) if (independent(z, step, clock)) sleep.set(name, z);
      for (const z of explored) if (independent(z, step, clock)) sleep.set(stepName(z), z);
    }
    const reorder = step.kind === "event" && !step.natural ? 1 : 0;
    const depth = node.depth + 1;
    this.deepest = Math.max(this.deepest, depth);
    return { path: [...node.path, step], depth, used, reorders: node.reorders + reorder, sleep };
  }

  private choices(node: SearchNode, live: Live, obs: WorldState): Step[] {
    const sim = live.world.sim;
    const left = { ...this.bounds.faults };
    for (const k of FAULT_KINDS) left[k] -= node.used[k];
    const ids = sim.nodeIds;
    const steps = choicesAt({
      events: obs.events,
      nowUs: sim.nowUs,
      left,
      faultable: this.target.faultable,
      status: (n) => sim.node(n).status,
      down: live.down,
      anyCut: ids.some((a) => ids.some((b) => a !== b && sim.network.isCut(a, b))),
      request: this.exec.nextRequest(live),
    });
    const reordersLeft = this.bounds.reorders === undefined || node.reorders < this.bounds.reorders;
    return reordersLeft ? steps : steps.filter((s) => s.kind !== "event" || s.natural);
  }

  /** Asks the live checkers; a violation is recorded (first per checker) and ends the path. */
  private judge(node: SearchNode, live: Live, inTail: boolean, found?: readonly Violation[]): boolean {
    const only = this.options.checkers;
    const violations = (found ?? this.exec.violations(live)).filter((v) => only === undefined || only.includes(v.checker));
    if (violations.length === 0) return false;
    for (const v of violations) {
      if (this.found.some((f) => f.checker === v.checker)) continue;
      this.found.push({ checker: v.checker, message: v.message, path: node.path, inTail, atUnique: this.visited.size });
      if (this.options.stopAtFirst) throw new Stop("found");
    }
    return true;
  }

  /** A leaf (the depth bound, or nothing left to choose): finish the path and judge it whole. */
  private async endIfLeaf(node: SearchNode, live: Live, obs: WorldState, limit: number): Promise<boolean> {
    if (node.depth < limit && this.choices(node, live, obs).length > 0) return false;
    this.ends++;
    const violations = await this.exec.finish(live, this.bounds.holdMs, this.bounds.convergeMs);
    this.judge(node, live, true, violations);
    return true;
  }

  // ---- the visited table -------------------------------------------------------------------

  /**
   * Whether this visit must explore: a new state; or one every earlier visit could do less
   * from (more depth or budget spent); or one an earlier visit with as much budget left reached
   * with a larger sleep set — then only the steps that visit left asleep (`node.only`).
   */
  private firstVisit(obs: WorldState, node: SearchNode): boolean {
    const hash = obs.hash;
    const visits = this.visited.get(hash);
    const sleep = new Set([...node.sleep.keys()].map((name) => canonicalName(name, obs)));
    const mine: Visit = { depth: node.depth, used: node.used, reorders: node.reorders, sleep };
    if (visits === undefined) {
      this.visited.set(hash, [mine]);
      this.options.onState?.(hash);
      if (this.bounds.maxStates !== undefined && this.visited.size >= this.bounds.maxStates) throw new Stop("states");
      return true;
    }
    const covering = visits.filter((v) => this.dominates(v, node));
    if (covering.some((v) => subset(v.sleep, sleep))) return false;
    const v = covering[0];
    if (v === undefined) {
      visits.push(mine);
      return true;
    }
    // Godefroid's state caching with sleep sets: take what that visit left asleep and this one
    // does not; both visits' sleep sets shrink to what they share.
    node.only = new Set([...v.sleep].filter((name) => !sleep.has(name)));
    v.sleep = new Set([...v.sleep].filter((name) => sleep.has(name)));
    for (const [name] of node.sleep) if (!v.sleep.has(canonicalName(name, obs))) node.sleep.delete(name);
    return true;
  }

  private dominates(v: Visit, node: SearchNode): boolean {
    if (v.depth > node.depth || v.reorders > node.reorders) return false;
    return FAULT_KINDS.every((k) => v.used[k] <= node.used[k]);
  }

  private tick(): void {
    this.transitions++;
    if (this.options.shouldStop?.() === true) throw new Stop("interrupted");
    const now = this.options.now();
    if (this.bounds.maxTimeMs !== undefined && now - this.t0 >= this.bounds.maxTimeMs) throw new Stop("time");
    if (this.options.onProgress !== undefined && (this.transitions & 63) === 0 && now - this.lastProgress >= 200) {
      this.lastProgress = now;
      this.options.onProgress({ unique: this.visited.size, transitions: this.transitions, frontier: this.frontier, depth: this.deepest, wallMs: now - this.t0 });
    }
  }
}

/** A step's name as the state's symmetric representative names it (sleep sets are compared that way). */
function canonicalName(name: string, obs: WorldState): string {
  const space = name.indexOf(" ");
  const kind = name.slice(0, space);
  return kind === "E" || kind === "loss" || kind === "duplicate" ? `${kind} ${obs.canonical(name.slice(space + 1))}` : name;
}

/** 1…8, then doubling, then the bound. */
export function depthLimits(bound: number): number[] {
  const out: number[] = [];
  for (let d = 1; d < bound; d = d < 8 ? d + 1 : d * 2) out.push(d);
  out.push(bound);
  return out;
}

function subset(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
