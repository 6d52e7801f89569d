/**
 * client.history-fields: the client history carries what the other checkers judge
 * (docs/trace.md, "The client history").
 *
 * The history checkers judge what the history records and pass over what it leaves out: a
 * getChildren result recorded as a bare count gives `client.linearizability` no names to judge,
 * and a closed handle that does not say why gives the recipe checkers no expiry to act on. So
 * this checker demands those fields where the history promises them:
 *
 * - **names**: a list of names (getChildren, getChildren2, getEphemerals, a multi's getChildren)
 *   is recorded as its names (`children`) when it has at most `LISTED_NAMES_MAX` of them; only a
 *   longer one may be a bare `count`.
 * - **causes**: a handle that becomes CLOSED or AUTH_FAILED says why (`cause`: "closed",
 *   "expired", "authFailed"): those states end the handle, and whoever reads the history must
 *   know whether its session ended or its user closed it.
 *
 * State: none. Per event O(1): a field or two of each `client.complete` and `client.state`
 * (a multi: each of its results).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type Violation } from "../checker.js";
import { guarded, optionalObjectField, optionalStringField, stringField, type Untrusted } from "../event-reader.js";

/** The longest list of names the client history records as names (`childrenFields`), not as a count. */
export const LISTED_NAMES_MAX = 32;

/** The handle states that end it, each with the cause it must name. */
const FINAL_STATES: ReadonlySet<string> = new Set(["CLOSED", "AUTH_FAILED"]);

const KINDS = ["client.complete", "client.state"] as const;
type Kind = KindsOf<typeof KINDS>;

export class HistoryFieldsChecker implements Checker<Kind> {
  readonly name = "client.history-fields";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);

  onEvent(e: TraceEvent<Kind>): void {
    guarded(this.log, e, this, this.read);
  }

  private read(e: TraceEvent<Kind>): void {
    if (e.kind === "client.state") {
      const state = stringField(e, "state");
      if (FINAL_STATES.has(state) && optionalStringField(e, "cause") === undefined) {
        this.log.add(e, `${stringField(e, "client")}'s handle (session ${stringField(e, "session")}) became ${state} without a cause: the history does not say whether its session ended or it was closed`);
      }
      return;
    }
    const result = optionalObjectField(e, "result");
    if (result === undefined) return;
    this.judgeNames(e, result, "");
    const results = result.results;
    if (Array.isArray(results)) for (let i = 0; i < results.length; i++) this.judgeNames(e, results[i] as Untrusted | null, ` (multi result ${i})`);
  }

  private judgeNames(e: TraceEvent<"client.complete">, result: Untrusted | null, where: string): void {
    if (result === null || typeof result !== "object") return;
    const count = result.count;
    if (typeof count !== "number" || count > LISTED_NAMES_MAX) return;
    this.log.add(e, `${stringField(e, "client")}'s op ${String(e.fields.opId)}${where} recorded ${count} names as a bare count (at most ${LISTED_NAMES_MAX} are recorded by name): the checkers cannot judge the names`);
  }

  finish(): Violation[] {
    return this.log.violations;
  }
}
