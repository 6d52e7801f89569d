/**
 * How much of a run its checkers judged (`RunResult.judged`). A PASS says "no checker found a
 * violation in what it judged"; this says how much that was:
 *
 * - each checker that read at least one event (or an alarm, `Checker.alarm`, whose silence is its
 *   pass) watched the whole run, `virtualMs` of it, less
 *   the stretches it reported it could not judge (`unknowns()`: a search budget ran out, the
 *   state it needed was lost), merged so that overlapping stretches count once;
 * - a checker that read no event at all (none of its kinds occurred: a reconfig checker in a run
 *   without reconfiguration, a lock checker whose clients never got a session) judged nothing
 *   and is named apart (`idle`): its silence is not a pass.
 *
 * `fraction` is the judged checker-time over the checker-time of the checkers that read
 * something (1 when nothing was unjudged, or when no checker read anything: then `idle` says
 * so). `zksim run --strict` and `explore --strict` turn any unjudged stretch or idle checker
 * into a failure (`strictFailure`).
 */
import type { Checker, UnknownVerdict } from "../check/checker.js";

export interface JudgedSummary {
  /** The checkers the run had. */
  checkers: number;
  /** Checkers that read no event: they judged nothing. */
  idle: string[];
  /** Virtual ms the reading checkers watched, summed over them. */
  checkerMs: number;
  /** Of those, the ms they reported unjudged (each checker's stretches merged). */
  unjudgedMs: number;
  /** (checkerMs − unjudgedMs) / checkerMs; 1 when checkerMs is 0. */
  fraction: number;
}

/** The run's judged summary, from its checkers, the trace's counts by kind and its unknowns. */
export function judgedSummary(checkers: readonly Pick<Checker, "name" | "kinds" | "alarm">[], counts: Readonly<Record<string, number>>, unknown: readonly UnknownVerdict[], virtualMs: number): JudgedSummary {
  const reading = checkers.filter((c) => c.alarm === true || c.kinds.some((k) => (counts[k] ?? 0) > 0));
  const idle = checkers.filter((c) => !reading.includes(c)).map((c) => c.name);
  const checkerMs = reading.length * virtualMs;
  const unjudgedMs = reading.reduce((sum, c) => sum + mergedLength(unknown.filter((u) => u.checker === c.name), virtualMs), 0);
  const fraction = checkerMs === 0 ? 1 : Math.max(0, (checkerMs - unjudgedMs) / checkerMs);
  return { checkers: checkers.length, idle, checkerMs, unjudgedMs, fraction };
}

/** The length of the union of the stretches, each clamped to [0, endMs]. */
function mergedLength(stretches: readonly UnknownVerdict[], endMs: number): number {
  const spans = stretches
    .map((u) => [Math.max(0, Math.min(u.fromMs, endMs)), Math.max(0, Math.min(u.toMs, endMs))] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let cursor = 0;
  for (const [from, to] of spans) {
    const start = Math.max(from, cursor);
    if (to > start) total += to - start;
    cursor = Math.max(cursor, to);
  }
  return total;
}

/** "judged 98.1% (linearizability: 687 of 700 s unjudged); idle: a, b" — the verdict line's suffix. */
export function describeJudged(j: JudgedSummary): string {
  const parts = [`judged ${formatFraction(j.fraction)} of ${j.checkers - j.idle.length} checker${j.checkers - j.idle.length === 1 ? "" : "s"}' time`];
  if (j.idle.length > 0) parts.push(`${j.idle.length} checker${j.idle.length === 1 ? "" : "s"} read nothing (${j.idle.join(", ")})`);
  return parts.join("; ");
}

/** 100% only when nothing was unjudged; never rounds a gap up to 100%. */
export function formatFraction(fraction: number): string {
  if (fraction >= 1) return "100%";
  const pct = Math.floor(fraction * 1000) / 10;
  return `${pct.toFixed(1)}%`;
}

/**
 * Why a run fails under `--strict`, or undefined when it judged everything: one sentence
 * naming the unjudged stretches and the idle checkers.
 */
export function strictFailure(j: JudgedSummary, unknown: readonly UnknownVerdict[]): string | undefined {
  const reasons: string[] = [];
  if (unknown.length > 0) {
    const byChecker = [...new Set(unknown.map((u) => u.checker))];
    reasons.push(`${unknown.length} stretch${unknown.length === 1 ? "" : "es"} not judged (${byChecker.join(", ")}; ${formatMs(j.unjudgedMs)} of ${formatMs(j.checkerMs)} checker-time)`);
  }
  if (j.idle.length > 0) reasons.push(`checker${j.idle.length === 1 ? "" : "s"} that read no event: ${j.idle.join(", ")}`);
  return reasons.length === 0 ? undefined : `--strict: ${reasons.join("; ")}`;
}

function formatMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
