/**
 * A lesson: one idea, a starting point (protocol, seed, setup actions), a goal the engine
 * checks from the trace, and a solution script that reaches it (plain-mode commands; the golden
 * transcripts of test/tui/ are these solutions run). The outcome's explanation is the goal
 * watch's text once reached, generated from what happened in the run.
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { Action, GoalWatch } from "../../stepper/types.js";

export interface Lesson {
  protocol: string;
  name: string;
  title: string;
  /** The one idea, in a sentence. */
  idea: string;
  /** What to do, shown at the start. */
  intro: readonly string[];
  seed: number;
  variant?: string;
  setup: readonly Action[];
  goal: () => GoalWatch;
  /** Commands that reach the goal from the start (with the lesson's seed). */
  solution: string;
}

/** A goal watch from an event handler and a status function over the handler's state. */
export function goalWatch<S>(kinds: readonly string[], state: S, onEvent: (s: S, e: TraceEvent) => void, status: (s: S) => { reached: boolean; text: string }): () => GoalWatch {
  const set = new Set(kinds);
  return () => {
    const s = structuredClone(state);
    return { accepts: (k) => set.has(k), onEvent: (e) => onEvent(s, e), status: () => status(s) };
  };
}
