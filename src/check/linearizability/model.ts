/**
 * The contract between the linearizability search and a sequential specification.
 *
 * A model is a pure state machine over immutable states. The search never inspects a state:
 * it asks the model to step, to name the state canonically (equal keys ⇔ states that no
 * future operation can tell apart: Lowe's memoisation relies on it) and to explain a
 * rejection in words for the report.
 *
 * Operations reach the model already normalised by the checker: `outcome` is "ok" (took
 * effect, result as recorded), "fail" (a state error the model must reproduce: a read of the
 * state) or "unknown" (apply whatever the state makes of it; the caller also considers "never
 * happened"). Ops with no effect are filtered out before.
 */
import type { Operation } from "../history/history.js";

/** An independent slice of a history: ops that may interact, and ops settled before them all. */
export interface Partition {
  /** Short human label, e.g. the paths involved. */
  label: string;
  ops: Operation[];
  /**
   * Definite ok operations outside this partition whose effect some op of it observes, and
   * which every such observer follows in real time: they are applied, in order, to the
   * initial state before the search (they are checked in their own partition).
   */
  preamble: Operation[];
}

/** A write of `session`, or (`ends`) the op that ends it (see `SequentialModel.sessionFence`). */
export interface SessionFence {
  session: string;
  ends: boolean;
}

export interface SequentialModel<S> {
  readonly name: string;
  init(): S;
  /**
   * Optional: `init()` with `preamble` applied in order by `step`, or undefined when an op of it
   * cannot apply. For models that memoise it: partitions of one history share preambles.
   */
  initAfter?(preamble: readonly Operation[]): S | undefined;
  /** The successor state, or undefined when the op's recorded outcome cannot happen in `state`. */
  step(state: S, op: Operation): S | undefined;
  /** Canonical key: equal keys ⇔ equivalent states. */
  key(state: S): string;
  /**
   * Optional: a fresh key function as exact as `key` (equal keys ⇔ equivalent states) among
   * the states it is given, and shorter, for a search that must keep exact keys of many states
   * (a window enumerating its end states). Keys of two such functions are not comparable.
   */
  exactKeyer?(): (state: S) => string;
  /**
   * Optional: a key specialised to one partition, free to ignore what none of its ops can
   * observe. `exact: false` may hash (equal states ⇒ equal keys; rare collisions allowed):
   * the checker uses it only to find linearizations, and re-verifies any failure with an
   * exact key, so a collision cannot produce a false violation.
   */
  keyFor?(partition: Partition, exact: boolean): (state: S) => string;
  /**
   * Optional: a signature per op of the partition such that two ops with equal signatures
   * have the same effect on every state, as far as the partition's key can tell (say, two
   * creates of a queue item whose data nobody reads). Among pending indeterminate ops with
   * equal signatures the search tries one: the others are interchangeable with it.
   */
  signatureFor?(partition: Partition): (op: Operation) => string;
  /**
   * Optional: an operation whose recorded result no state the history can reach would give
   * (a read of data that no operation ever wrote), and why, in one sentence. Such an op
   * refutes linearizability whatever the order, so the checker looks for one before it
   * searches: the search would have to try every order to find that none works.
   */
  unexplained?(ops: readonly Operation[]): { op: Operation; why: string } | undefined;
  /**
   * Optional: ops with the same key run in the order they were submitted (ZooKeeper's FIFO
   * client order, docs/zookeeper.md §6). The search never places an op before an earlier-submitted op
   * of its key that is definite, and an indeterminate op skipped past never takes effect
   * later. Undefined: the op is ordered only by real time.
   */
  submissionOrderKey?(op: Operation): string | undefined;
  /**
   * Optional: the session whose writes `op` is one of, or (`ends`) that it ends. The search
   * places no write of a session after an op that ends it (and an end only after every definite
   * write of its session). Undefined: the op is fenced by nothing.
   */
  sessionFence?(op: Operation): SessionFence | undefined;
  /** The parts of `state` that `op` looks at, for reports. */
  describe(state: S, op: Operation): string;
  /** Why `step(state, op)` is undefined, in one sentence. */
  explain(state: S, op: Operation): string;
  /**
   * Splits a history into independently checkable partitions (P-compositionality). Optional:
   * without it the whole history is one partition. May add synthetic operations (e.g. a
   * session end) with fresh ids.
   */
  partition?(ops: readonly Operation[]): Partition[];
}
