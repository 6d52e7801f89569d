/**
 * `run --trace FILE.html` and `--trace FILE.shiviz`: collects the run's trace events and, when
 * the run is over, writes the rendered report (real I/O: cli only). Any other extension is
 * not a report: `openTraceReport` returns undefined and the caller streams JSON lines.
 *
 * The file is created before the run, so an unwritable path fails fast (exit 2), and only the
 * events the report can use are kept: the diagram's prefix, or the ShiViz log's capped lines.
 * The diagram's prefix ends at its last drawn message or at HTML_MAX_EVENTS events, whichever
 * comes first (a long run with few messages, timers and annotations only, stays bounded too).
 */
import { closeSync, openSync } from "node:fs";
import { extname } from "node:path";
import { UserInputError } from "../../sim/errors.js";
import type { TraceEvent } from "../../sim/trace.js";
import { OutputError, describeSystemError, isSystemError, writeOutputFile } from "../files.js";
import { TraceFileWriter } from "../trace-file.js";
import { renderShiviz, renderSpaceTimeHtml, shivizIncludes, SHIVIZ_MAX_EVENTS, SPACE_TIME_MAX_MESSAGES, type TraceReportMeta } from "../../scenario/report/index.js";

export type TraceReportFormat = "html" | "shiviz";

/** At most this many events go into the HTML diagram (about 100 MB of event objects at most). */
export const HTML_MAX_EVENTS = 200_000;

export function traceReportFormat(path: string): TraceReportFormat | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === ".html" || ext === ".htm") return "html";
  if (ext === ".shiviz") return "shiviz";
  return undefined;
}

export interface TraceReport {
  readonly path: string;
  add(e: TraceEvent): void;
  /**
   * Renders and writes the file; returns a note for the user when the report was capped. A
   * failed write (a full disk) throws OutputError.
   */
  finish(meta: TraceReportMeta): string | undefined;
}

export function openTraceReport(path: string): TraceReport | undefined {
  const format = traceReportFormat(path);
  if (format === undefined) return undefined;
  try {
    closeSync(openSync(path, "w"));
  } catch (err) {
    if (!isSystemError(err)) throw err;
    throw new UserInputError(`--trace: cannot write ${path}: ${describeSystemError(err)}`);
  }
  return format === "html" ? new HtmlReport(path) : new ShivizReport(path);
}

class HtmlReport implements TraceReport {
  private readonly events: TraceEvent[] = [];
  private delivered = 0;
  private full = false;

  constructor(readonly path: string) {}

  add(e: TraceEvent): void {
    if (this.full) return;
    this.events.push(e);
    if ((e.kind === "deliver" && ++this.delivered === SPACE_TIME_MAX_MESSAGES) || this.events.length === HTML_MAX_EVENTS) this.full = true;
  }

  finish(meta: TraceReportMeta): string | undefined {
    writeOutputFile(this.path, renderSpaceTimeHtml(this.events, meta), "--trace report");
    if (!this.full || this.events.length >= meta.events) return undefined;
    return this.delivered === SPACE_TIME_MAX_MESSAGES ? `diagram shows the first ${SPACE_TIME_MAX_MESSAGES} delivered messages` : `diagram shows the first ${HTML_MAX_EVENTS} events`;
  }
}

class ShivizReport implements TraceReport {
  private readonly events: TraceEvent[] = [];

  constructor(readonly path: string) {}

  add(e: TraceEvent): void {
    // One more than the cap, so that the renderer can tell the log was cut.
    if (this.events.length <= SHIVIZ_MAX_EVENTS && shivizIncludes(e)) this.events.push(e);
  }

  finish(_meta: TraceReportMeta): string | undefined {
    const log = renderShiviz(this.events);
    writeOutputFile(this.path, log.text, "--trace report");
    return log.truncated ? `ShiViz log cut at its first ${log.written} events (timers left out)` : undefined;
  }
}

/** Where `--trace FILE` sends a run's events: a report (.html, .shiviz) or JSON lines. */
export interface TraceSink {
  add(e: TraceEvent): void;
  /** Writes what is left; returns the lines for stderr (a capped report, a failed write). */
  finish(meta: TraceReportMeta): string[];
}

/** The sink `--trace path` names; an unwritable path is a UserInputError before the run. */
export function openTraceSink(path: string): TraceSink {
  const report = openTraceReport(path);
  if (report !== undefined) {
    return {
      add: (e) => report.add(e),
      finish(meta) {
        try {
          const note = report.finish(meta);
          return note === undefined ? [] : [`--trace ${path}: ${note}`];
        } catch (err) {
          if (!(err instanceof OutputError)) throw err;
          return [`--trace: ${err.message}`];
        }
      },
    };
  }
  const writer = new TraceFileWriter(path);
  return {
    add: (e) => writer.write(e),
    finish() {
      const failure = writer.close();
      return failure === undefined ? [] : [failure];
    },
  };
}
