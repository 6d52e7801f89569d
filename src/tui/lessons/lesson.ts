/**
 * A lesson: one idea, a starting point (protocol, seed, setup actions), a goal the engine
 * checks from the trace, and a solution script that reaches it (plain-mode commands; the golden
 * transcripts of test/tui/ are these solutions run). The outcome's explanation is the goal
 * watch's text once reached, generated from what happened in the run.
 */
import type { TraceEvent, TraceKind } from "../../sim/trace.js";
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
export function goalWatch<S, const K extends TraceKind>(kinds: readonly K[], state: S, onEvent: (s: S, e: TraceEvent<K>) => void, status: (s: S) => { reached: boolean; text: string }): () => GoalWatch {
  return () => {
    const s = structuredClone(state);
    // The session subscribes the watch to `kinds` only, so every event it gets is of K.
    return { kinds, onEvent: (e) => onEvent(s, e as TraceEvent<K>), status: () => status(s) };
  };
}
