/**
 * Gates for checkers that read some kinds only while a rare state holds (`Checker.gate`,
 * checker.ts): the dispatcher follows the state here as the trace is recorded and hands the
 * gated kinds to the checker only while it holds. Each gate keeps its own copy of the state (the
 * checker follows the same events later, in its batch).
 */
import type { TraceEvent } from "../sim/trace.js";
import type { TraceKind } from "../sim/trace-schema.js";
import type { CheckerGate } from "./checker.js";
import { CutLinks } from "./cut-links.js";

/** What moves `PausedGate`: a node's pause, and what ends it (its resume, or its crash). */
const PAUSE_KINDS = ["pause", "resume", "crash"] as const;

/** Open while some node is paused (between its `pause` and its `resume` or `crash`). */
export class PausedGate<K extends TraceKind> implements CheckerGate<K | (typeof PAUSE_KINDS)[number]> {
  readonly by = PAUSE_KINDS;
  private readonly paused = new Set<string>();

  /** `kinds`: the checker's kinds read only while some node is paused. */
  constructor(readonly kinds: readonly K[]) {}

  observe(e: TraceEvent): boolean {
    if (e.kind === "pause") this.paused.add(e.node);
    else this.paused.delete(e.node);
    return this.paused.size > 0;
  }
}

/** What moves `CutGate`: the links a partition cuts and a heal mends. */
const CUT_KINDS = ["partition", "heal"] as const;

/** Open while some link is cut (`CutLinks`); for good once a partition or heal could not be read. */
export class CutGate<K extends TraceKind> implements CheckerGate<K | (typeof CUT_KINDS)[number]> {
  readonly by = CUT_KINDS;
  private readonly cut = new CutLinks();
  private unreadable = false;

  /** `kinds`: the checker's kinds read only while some link is cut. */
  constructor(readonly kinds: readonly K[]) {}

  observe(e: TraceEvent<(typeof CUT_KINDS)[number]>): boolean {
    if (this.unreadable) return true;
    try {
      this.cut.apply(e);
    } catch {
      this.unreadable = true;
    }
    return this.unreadable || this.cut.size > 0;
  }
}
