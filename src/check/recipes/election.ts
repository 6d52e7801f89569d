/**
 * `recipe.election`: leader election, from `recipe.election` annotations and session facts.
 * - Single leader: leadership runs from `elected` to the first of `resigned` / `lost` /
 *   `suspended` (a disconnected leader must stop acting) by that session, the session's end
 *   or its node's crash; a second live leader inside that span is a violation.
 * - A leader that stops acting: once its client lost its connection (Disconnected) or was told
 *   its session expired, an `elected` claim must end (`suspended` / `lost`) within 1 s
 *   (claims.ts) — the latch suspends on Disconnected.
 * - A leader again after the faults: at the end of a run quiet for `stallMs`, live
 *   candidates with no leader and no election activity for `stallMs` are a violation.
 * The logic is shared with the lock's mutual exclusion (exclusive.ts).
 */
import { ExclusiveRoleChecker, type ExclusiveRoleSpec } from "./exclusive.js";

export const ELECTION: ExclusiveRoleSpec = {
  name: "recipe.election",
  kind: "recipe.election",
  key: "election",
  role: "leading",
  grant: ["elected"],
  end: ["resigned", "lost", "suspended"],
  wait: ["candidate", "suspended"],
  unwait: ["withdrawn", "lost", "resigned"],
  tokens: false,
  endsOnDisconnect: true,
};

export class ElectionChecker extends ExclusiveRoleChecker {
  constructor(stallMs?: number) {
    super(ELECTION, stallMs);
  }
}
