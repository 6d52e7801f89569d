/**
 * One run with its `--trace FILE` drawn or streamed (`zksim run`, and `zksim replay` of a replay
 * file): in the CLI's thread for a built-in scenario, in the user-code worker for a user's script
 * (cli/user-case-tasks.ts), so the trace never has to cross threads event by event.
 *
 * Outputs never cost the verdict: a trace that cannot be written is returned as a `lost` line
 * (the caller prints it on stderr and exits 2 for a pass), never thrown after the run.
 */
import type { TraceEvent } from "../sim/trace.js";
import { runScenario } from "../scenario/run.js";
import type { RunOptions, RunResult, Scenario } from "../scenario/types.js";
import type { TraceReportMeta } from "../scenario/report/index.js";
import { OutputError } from "./files.js";
import { openTraceReport } from "./report/trace-report.js";
import { TraceFileWriter } from "./trace-file.js";

/** A run's outcome and what became of its trace (plain data: it crosses from the worker). */
export interface Traced<R> {
  result: R;
  /** Wall-clock ms the run took (the trace's writing excluded). */
  wallMs: number;
  /** A note on a capped report (`diagram shows the first … events`), for stderr. */
  reportNote?: string;
  /** What could not be written, one line each. */
  lost: string[];
}

export type TracedRun = Traced<RunResult>;

/** What a traced run is given: where its events go, when `--trace` was asked for. */
export type TraceSink = { onTraceEvent?: (e: TraceEvent) => void };

/**
 * Runs `run`, sending its events to `tracePath` when given (an HTML space-time diagram, a ShiViz
 * log, else JSON lines); `meta(result)` heads the report.
 */
export async function traced<R>(tracePath: string | undefined, run: (sink: TraceSink) => Promise<R>, meta: (result: R) => TraceReportMeta): Promise<Traced<R>> {
  const report = tracePath !== undefined ? openTraceReport(tracePath) : undefined;
  const writer = tracePath !== undefined && report === undefined ? new TraceFileWriter(tracePath) : undefined;
  const onTraceEvent = report !== undefined ? (e: TraceEvent) => report.add(e) : writer !== undefined ? (e: TraceEvent) => writer.write(e) : undefined;
  const started = performance.now();
  let result: R;
  let traceFailure: string | undefined;
  try {
    result = await run(onTraceEvent !== undefined ? { onTraceEvent } : {});
  } finally {
    traceFailure = writer?.close();
  }
  const wallMs = Math.round(performance.now() - started);
  const lost: string[] = traceFailure !== undefined ? [traceFailure] : [];
  let reportNote: string | undefined;
  if (report !== undefined) {
    try {
      reportNote = report.finish(meta(result));
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      lost.push(`--trace: ${err.message}`);
    }
  }
  return { result, wallMs, lost, ...(reportNote !== undefined ? { reportNote } : {}) };
}

/** Runs `scenario` with `options`, sending its events to `tracePath` when given. */
export function runTraced(scenario: Scenario, options: RunOptions, tracePath: string | undefined): Promise<TracedRun> {
  return traced(tracePath, (sink) => runScenario(scenario, { ...options, ...sink }), (r) => r);
}
