/**
 * The coverage report of a property run: what its generated cases reached, summed over the
 * cases (not the shrinking runs) — the fault kinds drawn, the client operations issued per
 * operation with their outcomes, the session events, the leader changes and the user's own
 * labels, with the labels the user declared that no case reached named. In the spirit of
 * fast-check's `statistics` and Jepsen's per-operation summaries: a property that passed
 * without ever expiring a session has not shown that the code survives an expiry.
 *
 * Pure data and its text form; what fills it from a run's trace is api/coverage.ts.
 */

/** One run's tallies. */
export interface RunCoverage {
  /** The fault kinds the case drew (one entry per disruption). */
  faults: readonly string[];
  /** Client operations by name: how they ended (`pending`: no answer by the run's end). */
  ops: Readonly<Record<string, OpOutcomes>>;
  disconnects: number;
  /** Distinct sessions the servers expired. */
  expiries: number;
  /** Requests refused with SESSIONMOVED. */
  moved: number;
  /** Leaders established after the first. */
  leaderChanges: number;
  /** The user's labels the run reached (`world.label`). */
  labels: readonly string[];
}

export interface OpOutcomes {
  ok: number;
  fail: number;
  unknown: number;
  pending: number;
}

/** The report: per kind of thing, the total and the number of cases that saw it at least once. */
export interface CoverageReport {
  /** Generated cases run (shrinking runs are not counted). */
  runs: number;
  faults: Record<string, { runs: number; total: number }>;
  ops: Record<string, OpOutcomes & { runs: number }>;
  sessions: { disconnects: Tally; expiries: Tally; moved: Tally };
  leaderChanges: Tally;
  /** Label → cases that reached it. */
  labels: Record<string, number>;
  /** Labels the script declared that no case reached. */
  neverReached: string[];
}

export interface Tally {
  runs: number;
  total: number;
}

/** Sums runs into a report; `declared` are the labels the script says it can reach. */
export class CoverageAccumulator {
  private readonly report: CoverageReport;

  constructor(private readonly declared: readonly string[] = []) {
    const tally = (): Tally => ({ runs: 0, total: 0 });
    this.report = { runs: 0, faults: {}, ops: {}, sessions: { disconnects: tally(), expiries: tally(), moved: tally() }, leaderChanges: tally(), labels: {}, neverReached: [] };
  }

  add(run: RunCoverage): void {
    const r = this.report;
    r.runs++;
    for (const [kind, n] of countsOf(run.faults)) {
      const f = (r.faults[kind] ??= { runs: 0, total: 0 });
      f.runs++;
      f.total += n;
    }
    for (const [op, o] of Object.entries(run.ops)) {
      const sum = (r.ops[op] ??= { runs: 0, ok: 0, fail: 0, unknown: 0, pending: 0 });
      sum.runs++;
      sum.ok += o.ok;
      sum.fail += o.fail;
      sum.unknown += o.unknown;
      sum.pending += o.pending;
    }
    addTally(r.sessions.disconnects, run.disconnects);
    addTally(r.sessions.expiries, run.expiries);
    addTally(r.sessions.moved, run.moved);
    addTally(r.leaderChanges, run.leaderChanges);
    for (const label of new Set(run.labels)) r.labels[label] = (r.labels[label] ?? 0) + 1;
  }

  /** The report so far (a copy, keys sorted). */
  result(): CoverageReport {
    const r = this.report;
    const sorted = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return {
      ...structuredClone(r),
      faults: structuredClone(sorted(r.faults)),
      ops: structuredClone(sorted(r.ops)),
      labels: { ...sorted(r.labels) },
      neverReached: this.declared.filter((l) => r.labels[l] === undefined),
    };
  }
}

function addTally(t: Tally, n: number): void {
  if (n > 0) t.runs++;
  t.total += n;
}

function countsOf(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(i, (m.get(i) ?? 0) + 1);
  return m;
}

/** The report as a few lines of text (what a property run prints). */
export function formatCoverage(r: CoverageReport, title = "coverage"): string {
  const pct = (n: number) => `${Math.round((100 * n) / Math.max(1, r.runs))}%`;
  const tally = (t: Tally, what: string) => `${t.total} ${what} (in ${pct(t.runs)} of cases)`;
  const faults = Object.entries(r.faults).map(([k, f]) => `${k} ${f.total} (${pct(f.runs)})`);
  const ops = Object.entries(r.ops).map(([op, o]) => `${op} ${o.ok} ok / ${o.fail} fail / ${o.unknown} unknown${o.pending > 0 ? ` / ${o.pending} unanswered` : ""}`);
  const labels = Object.entries(r.labels).map(([l, n]) => `${l} ${pct(n)}`);
  return [
    `${title}: ${r.runs} generated case${r.runs === 1 ? "" : "s"}`,
    `  faults drawn:   ${faults.length > 0 ? faults.join(", ") : "none"}`,
    `  operations:     ${ops.length > 0 ? ops.join("; ") : "none"}`,
    `  sessions:       ${tally(r.sessions.disconnects, "disconnects")}, ${tally(r.sessions.expiries, "expiries")}, ${tally(r.sessions.moved, "moved")}`,
    `  leader changes: ${r.leaderChanges.total} (in ${pct(r.leaderChanges.runs)} of cases)`,
    `  labels:         ${labels.length > 0 ? labels.join(", ") : "none"}`,
    ...(r.neverReached.length > 0 ? [`  NEVER REACHED:  ${r.neverReached.join(", ")} (no generated case got there: the property says nothing about them)`] : []),
  ].join("\n");
}
