/** What a trace report says about its run, besides the events: the summary header. */
import type { RunResult } from "../types.js";

export type TraceReportMeta = Pick<RunResult, "scenario" | "seed" | "traceHash" | "verdict" | "events" | "virtualMs"> & { violations: readonly RunResult["violations"][number][] };
