// Reading the worker's output, judging one mutant, and the summary (JSON and a table) of a
// mechanical mutation run. Pure functions: the unit test feeds them worker output by hand.
//
// Statuses: killed (a run failed with a checker its baseline did not fail with, or the process
// died: an internal error is what a user of `zksim run` would see too), timed-out (the process
// outlived its limit: a hang counts as found), survived (every run that reaches the mutant
// passed as at baseline; neverInfected: runs reach its code but none gives its expression another
// value, so none was run), no-coverage (no run of its budget reaches its code).
// score = (killed + timed-out) / (all − equivalent); no-coverage counts against it.

/** The JSON lines a worker printed (a torn last line from a killed worker is dropped). */
export function parseWorkerOutput(stdout) {
  const lines = [];
  for (const text of stdout.split("\n")) {
    if (text.trim() === "") continue;
    try {
      lines.push(JSON.parse(text));
    } catch {
      // the tail of a worker killed in mid-line
    }
  }
  return lines;
}

/** { status, killedBy?, runsDone } of one mutant's worker outcome. */
export function verdictOf(outcome, runs, expectedFailures, name) {
  const done = outcome.lines.filter((l) => l.i !== undefined);
  for (const l of done) {
    const expected = new Set(expectedFailures[l.i] ?? []);
    const fresh = l.checkers.filter((c) => !expected.has(c));
    if (fresh.length > 0) {
      const why = `${fresh.slice(0, 3).join(", ")}${fresh.length > 3 ? ` (+${fresh.length - 3})` : ""}${l.message ? `: ${l.message.slice(0, 160)}` : ""}`;
      return { status: "killed", killedBy: { run: name(runs[l.i]), why }, runsDone: done.length };
    }
  }
  if (outcome.timedOut) return { status: "timed-out", killedBy: { run: done.length < runs.length ? name(runs[done.length]) : "(after the last run)", why: `no answer within ${Math.round(outcome.wallMs / 1000)} s` }, runsDone: done.length };
  if (outcome.code !== 0 || done.length < runs.length) {
    const first = outcome.stderr.split("\n").find((l) => l.trim() !== "" && !l.startsWith("(node:")) ?? "";
    return { status: "killed", killedBy: { run: done.length < runs.length ? name(runs[done.length]) : "(process exit)", why: `process died (exit ${outcome.code ?? outcome.signal}): ${first.slice(0, 160)}` }, runsDone: done.length };
  }
  return { status: "survived", runsDone: done.length };
}

export const STATUSES = ["killed", "timed-out", "survived", "no-coverage"];

/** The summary of a run's results; `equivalent` maps a mutant key to the reason it is equivalent. */
export function summarize(results, meta, equivalent = {}) {
  const marked = results.map((r) => (equivalent[r.key] !== undefined ? { ...r, equivalent: equivalent[r.key] } : r));
  const counted = marked.filter((r) => r.equivalent === undefined);
  const count = (rs, s) => rs.filter((r) => r.status === s).length;
  const totals = Object.fromEntries(STATUSES.map((s) => [s, count(counted, s)]));
  const found = totals.killed + totals["timed-out"];
  const byArea = {};
  for (const r of counted) {
    byArea[r.area] ??= Object.fromEntries(STATUSES.map((s) => [s, 0]));
    byArea[r.area][r.status]++;
  }
  const byOperator = {};
  for (const r of counted) {
    byOperator[r.operator] ??= Object.fromEntries(STATUSES.map((s) => [s, 0]));
    byOperator[r.operator][r.status]++;
  }
  return {
    ...meta,
    mutants: marked,
    ...totals,
    equivalent: marked.length - counted.length,
    neverInfected: counted.filter((r) => r.status === "survived" && r.neverInfected === true).length,
    gone: meta.gone?.length ?? 0,
    score: counted.length === 0 ? 1 : Number((found / counted.length).toFixed(4)),
    coveredScore: counted.length - totals["no-coverage"] === 0 ? 1 : Number((found / (counted.length - totals["no-coverage"])).toFixed(4)),
    byArea,
    byOperator,
  };
}

/**
 * The latest verdict of each mutant over several results, `lists` oldest first (a report's
 * mutants, a journal's entries in the order written): a later result of the same key replaces an
 * earlier one. Only positions up to `upto` (all when undefined) and not in `gone`; in sample order.
 */
export function latestVerdicts(lists, { upto, gone = new Set() } = {}) {
  const byKey = new Map();
  for (const list of lists) for (const r of list) if (r.key !== undefined) byKey.set(r.key, r);
  return [...byKey.values()].filter((r) => (upto === undefined || r.n <= upto) && !gone.has(r.key)).sort((a, b) => a.n - b.n);
}

/** The summary as a Markdown table by area, then by operator, then the score line. */
export function table(summary) {
  const rows = (title, groups) => {
    const out = [`| ${title} | killed | timed out | survived | no coverage | score |`, "|---|---|---|---|---|---|"];
    for (const [name, c] of Object.entries(groups).sort()) {
      const all = STATUSES.reduce((s, k) => s + c[k], 0);
      out.push(`| ${name} | ${c.killed} | ${c["timed-out"]} | ${c.survived} | ${c["no-coverage"]} | ${all === 0 ? "–" : `${(((c.killed + c["timed-out"]) / all) * 100).toFixed(0)} %`} |`);
    }
    return out.join("\n");
  };
  const n = summary.mutants.length - summary.equivalent;
  return [
    rows("area", summary.byArea),
    "",
    rows("operator", summary.byOperator),
    "",
    `score: ${summary.killed + summary["timed-out"]} of ${n} found (${(summary.score * 100).toFixed(1)} %): ${summary.killed} killed, ${summary["timed-out"]} timed out, ${summary.survived} survived, ${summary["no-coverage"]} no coverage` +
      `${summary.neverInfected > 0 ? ` (${summary.neverInfected} of the survivors reached but never infected: no run gives their expression another value)` : ""}` +
      `${summary.equivalent > 0 ? `; ${summary.equivalent} equivalent, not counted` : ""}${summary.gone > 0 ? `; ${summary.gone} of the sample gone from the sources` : ""}` +
      `; of the mutants some run reaches: ${(summary.coveredScore * 100).toFixed(1)} %`,
  ].join("\n");
}
