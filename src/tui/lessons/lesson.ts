/**
 * A lesson: one idea, a starting point (protocol, seed, setup actions), a goal the engine
 * checks from the trace, and a solution script that reaches it (plain-mode commands; the golden
 * transcripts of test/tui/ are these solutions run). The outcome's explanation is the goal
 * watch's text once reached, generated from what happened in the run; the goal box adds why a
 * real system cares and where the book tells it.
 *
 * A lesson marks its decisive steps with predictions: when one of the last step's events
 * matches, the app asks the learner what happens next (choices built from the frame: the
 * engine's real state), runs the engine ahead in a fork, and shows its answer.
 */
import type { TraceEvent, TraceKind } from "../../sim/trace.js";
import type { Action, Frame, GoalWatch } from "../../stepper/types.js";

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
  /** Why a real system cares (the goal box says it once the goal is reached). */
  why: string;
  /** Where the book tells it ("From Paxos to ZooKeeper", section and topic). */
  book: string;
  /** The invariants (checker names) the lesson is about: the goal box says whether they held. */
  invariants: readonly string[];
  /** Node fields (labels) a row keeps when it must leave some out: what the lesson is about. */
  keyFields?: readonly string[];
  /** The decisive steps where the learner is asked to predict what happens next. */
  predictions?: readonly Prediction[];
}

/** A question at a decisive step. */
export interface Question {
  /** Which prediction of the lesson asked it. */
  id: string;
  /** Virtual time when it was asked. */
  atUs: number;
  text: string;
  choices: readonly string[];
}

/** The engine's answer: the right choice, and what happened, in a sentence. */
export interface Answer {
  choice: number;
  because: string;
}

/**
 * A decisive step of a lesson and the question asked there. `ask` looks at one event of the
 * last step and the frame after it: undefined when this is not the moment. `answer` reads what
 * the engine did when it ran `aheadMs` on from there: every event, and the frame after.
 */
export interface Prediction {
  id: string;
  /** The event kinds that can raise the question (only these are offered to `ask`). */
  on: readonly string[];
  aheadMs: number;
  ask(event: TraceEvent, frame: Frame): Omit<Question, "id" | "atUs"> | undefined;
  answer(question: Question, events: readonly TraceEvent[], after: Frame): Answer;
}

/** A goal watch from an event handler and a status function over the handler's state. */
export function goalWatch<S, const K extends TraceKind>(kinds: readonly K[], state: S, onEvent: (s: S, e: TraceEvent<K>) => void, status: (s: S) => { reached: boolean; text: string }): () => GoalWatch {
  return () => {
    const s = structuredClone(state);
    // The session subscribes the watch to `kinds` only, so every event it gets is of K.
    return { kinds, onEvent: (e) => onEvent(s, e as TraceEvent<K>), status: () => status(s) };
  };
}
