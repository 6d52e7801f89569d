/**
 * The choices at a state — which pending event runs next, or which fault strikes now — and when
 * two of them commute (the independence relation behind the sleep sets, docs/model-checking.md).
 *
 * A step is data; `actionOf` turns it into the stepper's action, so a path is a list of stepper
 * interventions and a counterexample is a learn session (counterexample.ts).
 *
 * Independence (`footprint`): two steps commute when neither changes a node the other reads or
 * changes — a node's handler reads and writes only its own state and sends messages, and a send
 * only appends to a stream whose head another node may be taking; a delivery also reads its
 * sender's incarnation (a crashed sender's message is dropped) and the link (a cut drops it or
 * holds it). When the world reads the clock (`clockSensitive`), two events commute only if
 * neither moves the clock (both were due already), since the second would otherwise run at
 * another time. Timers are dependent on everything (whether one may fire depends on what else
 * is pending), and so are world events and heals.
 */
import { unreachable } from "../sim/errors.js";
import type { Action } from "../stepper/types.js";
import type { FaultBudget, FaultKind } from "./bounds.js";
import type { KeyedEvent } from "./world-state.js";

export type Step =
  /** `natural`: the kernel's own next event; `early`: a timer fired while other events are pending (a timeout fault). */
  | { kind: "event"; key: string; ref: string; owner: string; sender?: string; overdue: boolean; natural: boolean; timer: boolean; early: boolean }
  | { kind: "loss" | "duplicate"; key: string; msg: number; owner: string; sender: string }
  | { kind: "crash" | "restart" | "partition"; node: string }
  | { kind: "heal" }
  /** The target's `index`-th client request (they are made in order, each once). */
  | { kind: "request"; index: number; action: Action };

/** The fault kind a step spends, if any (heals are free: the end heals anyway). */
export function faultOf(step: Step): FaultKind | undefined {
  switch (step.kind) {
    case "event":
      return step.early ? "timeout" : undefined;
    case "heal":
    case "request":
      return undefined;
    default:
      return step.kind;
  }
}

export function actionOf(step: Step): Action {
  switch (step.kind) {
    case "event":
      return { kind: "next", ref: step.ref };
    case "loss":
      return { kind: "drop", msg: step.msg };
    case "duplicate":
      return { kind: "duplicate", msg: step.msg };
    case "crash":
    case "restart":
      return { kind: "fault", fault: { kind: step.kind, node: step.node } };
    case "partition":
      return { kind: "fault", fault: { kind: "partition", groups: [[step.node]] } };
    case "heal":
      return { kind: "fault", fault: { kind: "heal" } };
    case "request":
      return step.action;
    default:
      return unreachable(step);
  }
}

/** A name for the step that is the same in equal states (sleep sets hold these). */
export function stepName(step: Step): string {
  switch (step.kind) {
    case "event":
      return `E ${step.key}`;
    case "loss":
    case "duplicate":
      return `${step.kind} ${step.key}`;
    case "crash":
    case "restart":
    case "partition":
      return `${step.kind} ${step.node}`;
    case "heal":
      return "heal";
    case "request":
      return `request ${step.index}`;
  }
}

/** One line for a summary or a progress report: `m4 msg co>p3 dgram prepare`, `crash co`. */
export function describeStep(step: Step): string {
  if (step.kind === "event") return `${step.ref} ${step.key.split("|").slice(0, 4).join(" ")}`;
  if (step.kind === "loss" || step.kind === "duplicate") return `${step.kind} m${step.msg}`;
  if (step.kind === "request" && step.action.kind === "client") return `request ${step.action.client} ${step.action.op}${"path" in step.action ? ` ${step.action.path}` : ""}`;
  return stepName(step);
}

export function independent(a: Step, b: Step, clockSensitive: boolean): boolean {
  const fa = footprint(a);
  const fb = footprint(b);
  if (fa === "all" || fb === "all") return false;
  if (fa.writes.some((n) => fb.writes.includes(n) || fb.reads.includes(n)) || fb.writes.some((n) => fa.reads.includes(n))) return false;
  if (!clockSensitive || a.kind !== "event" || b.kind !== "event") return true; // only events move the clock
  return a.overdue && b.overdue;
}

/**
 * The nodes a step changes (their state, incarnation or links) and the nodes whose state
 * decides what it does: a delivery changes its receiver and reads its sender's incarnation and
 * the link between them; a crash changes its node (a message sent to it just before or just after
 * is lost alike: bound to the incarnation that is gone, or sent to a node that is down); a cut
 * changes its node's links (a datagram sent across it just before or after is dropped alike);
 * a loss or duplication acts on its message (named by receiver) and is offered only while its
 * sender has not crashed. "all": a restart (a message sent to the node before it is lost, one
 * sent after is not), a heal, timers (whether one may fire depends on everything pending) and
 * world events.
 */
function footprint(step: Step): { writes: string[]; reads: string[] } | "all" {
  switch (step.kind) {
    case "event":
      return step.timer || step.owner === "" ? "all" : { writes: [step.owner], reads: step.sender !== undefined ? [step.sender] : [] };
    case "loss":
    case "duplicate":
      return { writes: [step.owner], reads: [step.sender] };
    case "crash":
    case "partition":
      return { writes: [step.node], reads: [] };
    case "restart":
    case "heal":
    case "request":
      return "all";
  }
}

export interface ChoiceContext {
  events: readonly KeyedEvent[];
  nowUs: number;
  /** Budget left, per kind. */
  left: FaultBudget;
  /** Nodes the search may crash or cut off. */
  faultable: readonly string[];
  status: (node: string) => "up" | "down" | "paused";
  /** Nodes the search crashed that are down now (the ones a restart may bring back). */
  down: ReadonlySet<string>;
  anyCut: boolean;
  /** The next client request the search may make now, if any. */
  request?: { index: number; action: Action };
}

/**
 * Every choice at a state, events first in the kernel's order (the first is the kernel's own
 * next: `natural`), then the faults. Events with equal keys are one choice (the first of them).
 * A timer is a free choice when it is the kernel's next or nothing but timers is pending; else
 * firing it is a `timeout` fault.
 */
export function choicesAt(c: ChoiceContext): Step[] {
  const steps: Step[] = [];
  const seen = new Set<string>();
  const quiet = c.events.every((e) => !e.runnable || isTimer(e));
  let first = true;
  for (const e of c.events) {
    if (!e.runnable || seen.has(e.key)) continue;
    const timer = isTimer(e);
    const early = timer && !first && !quiet;
    if (early && c.left.timeout <= 0) {
      first = false;
      continue;
    }
    seen.add(e.key);
    const sender = e.what.kind === "message" ? e.what.message.from : undefined;
    steps.push({ kind: "event", key: e.key, ref: e.ref, owner: e.owner, ...(sender !== undefined ? { sender } : {}), overdue: e.atUs <= c.nowUs, natural: first, timer, early });
    first = false;
  }
  for (const e of c.events) {
    if (!e.runnable || e.what.kind !== "message" || e.what.message.channel !== "datagram" || e.what.message.senderCrashed) continue;
    for (const kind of ["loss", "duplicate"] as const) {
      const name = `${kind} ${e.key}`;
      if (c.left[kind] > 0 && !seen.has(name)) {
        seen.add(name);
        steps.push({ kind, key: e.key, msg: e.what.message.id, owner: e.owner, sender: e.what.message.from });
      }
    }
  }
  for (const node of c.faultable) {
    const status = c.status(node);
    if (status === "up" && c.left.crash > 0) steps.push({ kind: "crash", node });
    if (status === "down" && c.down.has(node) && c.left.restart > 0) steps.push({ kind: "restart", node });
    if (status !== "down" && c.left.partition > 0) steps.push({ kind: "partition", node });
  }
  if (c.anyCut) steps.push({ kind: "heal" });
  if (c.request !== undefined) steps.push({ kind: "request", ...c.request });
  return steps;
}

/** A timer, or another event a node scheduled for later (a connect timeout). */
function isTimer(e: KeyedEvent): boolean {
  return e.what.kind === "timer" || e.what.kind === "node-event";
}
