/**
 * The what-if preview: before an action is applied, run it in a fork (the same seed and
 * interventions re-executed, then the action, then `aheadMs` of virtual time) and say what it
 * would do — which invariants it breaks, and the adapter's own reading of the change (a log
 * truncated, a leader replaced, a committed txn lost or kept). Deterministic like everything
 * else: the same position and action always preview the same way.
 */
import type { Session } from "./session.js";
import type { Action, Frame } from "./types.js";

export const PREVIEW_AHEAD_MS = 5_000;

export async function whatIf(session: Session, action: Action, aheadMs = PREVIEW_AHEAD_MS): Promise<string[]> {
  const { before, after } = await session.preview(action, aheadMs);
  const lines = verdictChanges(before, after);
  lines.push(...(session.adapter.threats?.(before, after) ?? []));
  if (!lines.some((l) => l.startsWith("✗"))) lines.push(`✓ within ${aheadMs / 1000} s no invariant breaks`);
  return lines;
}

function verdictChanges(before: Frame, after: Frame): string[] {
  const was = new Map(before.verdicts.map((v) => [v.checker, v.ok]));
  return after.verdicts.filter((v) => !v.ok && was.get(v.checker) !== false).map((v) => `✗ ${v.checker} would break: ${v.message ?? ""}`);
}
