/**
 * The book's ZAB phase of a `zab.phase` annotation, for the reports (the trace keeps
 * ZooKeeper's `ZabState`). Each quorum message's book name is zab-book-terms.ts's reading
 * (zk/server/quorum), shared with the teaching stepper.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ZAB_STATE_BOOK_PHASE, type BookPhaseName } from "../../zk/server/quorum/zab-vocabulary.js";

/** The book's phase of a `zab.phase` annotation (ZooKeeper's `ZabState` in its `phase` field). */
export function bookPhaseOf(e: TraceEvent): BookPhaseName | undefined {
  return e.kind === "zab.phase" ? ZAB_STATE_BOOK_PHASE[e.fields.phase] : undefined;
}
