/**
 * `run --trace FILE` (any extension but .html and .shiviz): streams the run's trace events to
 * FILE as JSON lines, buffered (real I/O: cli only).
 *
 * The file is opened before the run, so an unwritable path fails fast (exit 2). A write that
 * fails mid-run (a full disk: ENOSPC, EIO) does not stop the run: the writer stops writing,
 * remembers why, and `close` returns that reason, so the command still prints the verdict and
 * the replay line and then says the trace file is incomplete.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { traceEventToJsonLine, type TraceEvent } from "../sim/trace.js";
import { UserInputError } from "../sim/errors.js";
import { describeSystemError, isSystemError } from "./files.js";

/** Events buffered before a write. */
const FLUSH_EVERY_EVENTS = 4096;

export class TraceFileWriter {
  private readonly fd: number;
  private buffer: string[] = [];
  private written = 0;
  private failure: string | undefined;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, "w");
    } catch (err) {
      if (!isSystemError(err)) throw err;
      throw new UserInputError(`--trace: cannot write ${path}: ${describeSystemError(err)}`);
    }
  }

  write(e: TraceEvent): void {
    if (this.failure !== undefined) return;
    this.buffer.push(traceEventToJsonLine(e));
    if (this.buffer.length >= FLUSH_EVERY_EVENTS) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0 || this.failure !== undefined) return;
    const lines = this.buffer.length;
    try {
      const bytes = Buffer.from(this.buffer.join("\n") + "\n");
      for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at);
      this.written += lines;
    } catch (err) {
      if (!isSystemError(err)) throw err;
      this.failure = `--trace ${this.path}: writing failed after ${this.written} events (${describeSystemError(err)}); the file is incomplete`;
    }
    this.buffer = [];
  }

  /** Flushes and closes; returns why writing failed, if it did. */
  close(): string | undefined {
    this.flush();
    closeSync(this.fd);
    return this.failure;
  }
}
