/**
 * A one-line progress bar for a seed sweep, redrawn in place with `\r` at most ten times a
 * second. Only for a terminal: the command shows it when stdout is a TTY and not in --json
 * mode. The stream is injected so that a test can render it to a string.
 */
import { performance } from "node:perf_hooks";

export interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
}

const MIN_REDRAW_MS = 100;
const BAR_WIDTH = 30;

export class ProgressBar {
  private done = 0;
  private failures = 0;
  private lastDrawMs = -Infinity;
  private readonly startedMs = performance.now();

  constructor(
    private readonly out: ProgressStream,
    private readonly total: number,
  ) {}

  tick(failed: boolean): void {
    this.done++;
    if (failed) this.failures++;
    const now = performance.now();
    if (now - this.lastDrawMs < MIN_REDRAW_MS && this.done < this.total) return;
    this.lastDrawMs = now;
    this.out.write(`\r${this.line(now)}\x1b[K`);
  }

  /** Erases the bar so that the report starts on a clean line. */
  clear(): void {
    this.out.write("\r\x1b[K");
  }

  line(nowMs: number): string {
    const filled = this.total === 0 ? BAR_WIDTH : Math.round((this.done / this.total) * BAR_WIDTH);
    const perSec = this.done / Math.max((nowMs - this.startedMs) / 1000, 1e-3);
    const text = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${this.done}/${this.total} seeds, ${this.failures} failing, ${perSec.toFixed(1)} seeds/s`;
    const cols = this.out.columns || 80; // 0 on a terminal that reports no size
    return text.length < cols ? text : text.slice(0, Math.max(cols - 1, 0));
  }
}
