/**
 * Runs the faults whose firing depends on the trace (fault-when.ts): armed at `atMs`, each step
 * waits for its trace event, then the fault's node references are resolved — from the trace
 * only: the events the steps matched, and the roles a `TraceWatch` keeps from the events that
 * give and end them — and the fault is applied; `forMs` later its undo is.
 *
 * Timing: a match fires (or arms the next step) right after the event that matched, before the
 * next event — the continuation of a resolved promise, as a script's `await` on the trace would
 * run — or `delayMs` later. Nothing here draws randomness or reads a live object, so the same
 * schedule on the same seed fires the same faults at the same instants.
 *
 * A fault is abandoned (nothing applied, nothing recorded) when a step does not match within its
 * `withinMs`, when its node is not up and it says `onlyIfUp` (up: no crash or pause in the trace
 * since the faults were installed, or a start/restart/resume after it), or when a node cannot be
 * resolved (a name this run has no node for, as in a swarm that built a smaller shape; no single
 * holder of a role; a field that names no node). Links from a node to itself are dropped; a link
 * fault left with an empty side is abandoned too.
 */
import type { Fault, FaultAction } from "./faults.js";
import { applyFault, undoOf } from "./faults.js";
import { parseRef, type RoleRule, type TraceStep } from "./fault-when.js";
import type { Simulator } from "./simulator.js";
import { fieldNamed, type TraceEvent, type TraceKind } from "./trace.js";
import { msToUs } from "./time.js";

/** How the layer above lets the trace name roles and node ids. */
export interface TraceRoles {
  roles: readonly RoleRule[];
  /** Event kinds whose `sid` field is their node's numeric id (for `$i.field` references). */
  idKinds: readonly TraceKind[];
}

export const NO_ROLES: TraceRoles = { roles: [], idKinds: [] };

/** A fault entry that needs this module: a trace condition, an undo, or a node reference. */
export function isTriggered(f: Fault): boolean {
  return f.when !== undefined || f.forMs !== undefined || f.onlyIfUp !== undefined || nodesOf(f).some((n) => n.startsWith("$"));
}

type NodeFault = Extract<FaultAction, { node: string }>;
/** A fault on one node: every kind with a `node` field (a new one is covered without a list to extend). */
const isNodeFault = (f: FaultAction): f is NodeFault => "node" in f;

function nodesOf(f: FaultAction): string[] {
  if (isNodeFault(f)) return [f.node];
  return f.kind === "partition" ? f.groups.flat() : [...(f.from ?? []), ...(f.to ?? [])];
}

/** The kernel's lifecycle events: a node goes down or pauses, and comes back. */
const LIFECYCLE_KINDS: readonly TraceKind[] = ["crash", "pause", "start", "restart", "resume"];

/** Roles, node ids and who is up, as the trace has shown them so far (one per simulator). */
class TraceWatch {
  private readonly holders = new Map<string, Set<string>>();
  private readonly nodeOfId = new Map<number, string>();
  /** Nodes the trace showed going down or pausing (and not back up) since the watch began. */
  private readonly notUp = new Map<string, "down" | "paused">();

  constructor(sim: Simulator, private readonly config: TraceRoles) {
    const kinds = new Set([...LIFECYCLE_KINDS, ...config.idKinds, ...config.roles.flatMap((r) => [...r.takenBy, ...r.endedBy])]);
    for (const r of config.roles) this.holders.set(r.role, new Set());
    sim.trace.subscribe((e) => this.onEvent(e), [...kinds]);
  }

  /** Up, unless the trace showed it crash or pause since the faults were installed (after the workload started its nodes). */
  isUp(node: string): boolean {
    return !this.notUp.has(node);
  }

  private onEvent(e: TraceEvent): void {
    if (e.kind === "crash" || e.kind === "pause") this.notUp.set(e.node, e.kind === "crash" ? "down" : "paused");
    else if (LIFECYCLE_KINDS.includes(e.kind)) this.notUp.delete(e.node);
    const sid = this.config.idKinds.includes(e.kind) ? fieldNamed(e, "sid") : undefined;
    if (typeof sid === "number") this.nodeOfId.set(sid, e.node);
    for (const r of this.config.roles) {
      const held = this.holders.get(r.role)!;
      if (r.endedBy.includes(e.kind)) held.delete(e.node);
      if (r.takenBy.includes(e.kind)) held.add(e.node);
    }
  }

  /** The one node holding `role`, if exactly one does. */
  holder(role: string): string | undefined {
    const held = this.holders.get(role);
    return held !== undefined && held.size === 1 ? [...held][0] : undefined;
  }

  /** The node a field value names: a node name, or an id some node announced. */
  nodeNamed(value: unknown, sim: Simulator): string | undefined {
    if (typeof value === "string" && sim.hasNode(value)) return value;
    return typeof value === "number" ? this.nodeOfId.get(value) : undefined;
  }
}

const watches = new WeakMap<Simulator, TraceWatch>();

/** Arms `fault` at its time (the trace watch starts now, so roles taken before then count). */
export function installTriggeredFault(sim: Simulator, fault: Fault, roles: TraceRoles): void {
  let watch = watches.get(sim);
  if (watch === undefined) watches.set(sim, (watch = new TraceWatch(sim, roles)));
  const w = watch;
  sim.schedule(msToUs(fault.atMs), () => new FaultTrigger(sim, fault, w).armStep(0));
}

class FaultTrigger {
  private readonly matched: TraceEvent[] = [];

  constructor(
    private readonly sim: Simulator,
    private readonly fault: Fault,
    private readonly watch: TraceWatch,
  ) {}

  armStep(i: number): void {
    const steps = this.fault.when ?? [];
    if (i === steps.length) return this.fire();
    const step = steps[i]!;
    const node = step.node === undefined ? undefined : this.resolve(step.node);
    if (node === null) return;
    let seen = 0;
    let done = false;
    const unsubscribe = this.sim.trace.subscribeNamed(
      (e) => {
        if (done || (node !== undefined && e.node !== node) || !fieldsMatch(e, step) || (step.detail !== undefined && e.detail !== step.detail)) return;
        if (++seen < (step.count ?? 1)) return;
        done = true;
        unsubscribe();
        this.matched[i] = e;
        this.after(step.delayMs ?? 0, () => this.armStep(i + 1));
      },
      [step.after],
    );
    if (step.withinMs !== undefined) {
      this.sim.schedule(this.sim.nowUs + msToUs(step.withinMs), () => {
        if (done) return;
        done = true;
        unsubscribe();
      });
    }
  }

  /** Runs `then` right after the current event (delay 0) or `delayMs` later. */
  private after(delayMs: number, then: () => void): void {
    if (delayMs > 0) {
      this.sim.schedule(this.sim.nowUs + msToUs(delayMs), then);
      return;
    }
    const d = this.sim.deferred<void>();
    void d.promise.then(then);
    d.resolve();
  }

  private fire(): void {
    const action = this.concrete(this.fault);
    if (action === undefined) return;
    if (this.fault.onlyIfUp === true && "node" in action && !this.watch.isUp(action.node)) return;
    applyFault(this.sim, action);
    const forMs = this.fault.forMs;
    if (forMs !== undefined) this.sim.schedule(this.sim.nowUs + msToUs(forMs), () => undoOf(action).forEach((u) => applyFault(this.sim, u)));
  }

  /** A node reference now: the node, or null when it cannot be resolved. */
  private resolve(text: string): string | null {
    const ref = parseRef(text);
    switch (ref.kind) {
      case "node":
        return this.sim.hasNode(ref.name) ? ref.name : null;
      case "role":
        return this.watch.holder(ref.role) ?? null;
      case "step": {
        const e = this.matched[ref.step]!;
        if (ref.field === undefined) return e.node;
        return this.watch.nodeNamed(fieldNamed(e, ref.field), this.sim) ?? null;
      }
    }
  }

  /** The action with every reference resolved (undefined: abandoned). */
  private concrete(f: Fault): FaultAction | undefined {
    const { atMs: _at, when: _when, forMs: _for, onlyIfUp: _up, ...action } = f;
    const one = (n: string) => this.resolve(n);
    const list = (ns: readonly string[]) => {
      const out = ns.map(one);
      return out.includes(null) ? undefined : [...new Set(out as string[])];
    };
    if (isNodeFault(action)) {
      const node = one(action.node);
      return node === null ? undefined : { ...action, node };
    }
    if (action.kind === "partition") {
      const groups = action.groups.map(list);
      return groups.includes(undefined) ? undefined : { ...action, groups: groups as string[][] };
    }
    if (action.from === undefined || action.to === undefined) return action;
    const from = list(action.from);
    const to = list(action.to)?.filter((n) => !from?.includes(n));
    if (from === undefined || to === undefined || from.length === 0 || to.length === 0) return undefined;
    return { ...action, from, to } as FaultAction;
  }
}

function fieldsMatch(e: TraceEvent, step: TraceStep): boolean {
  if (step.fields === undefined) return true;
  for (const k in step.fields) if (fieldNamed(e, k) !== step.fields[k]) return false;
  return true;
}
