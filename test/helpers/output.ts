/**
 * Output as it arrives — a child process's stdout, or the lines of serve's `out` callback — and
 * a wait for what it must come to contain: `until` resolves on the very chunk or line that
 * brings it (no polling, no fixed sleep). Bounded: a hang fails naming what was awaited, with
 * the output so far.
 */
import type { Readable } from "node:stream";

export class OutputWatch {
  text = "";
  private readonly waiters = new Set<() => void>();

  /** Appends a chunk of text. */
  readonly push = (chunk: string): void => {
    this.text += chunk;
    for (const wake of [...this.waiters]) wake();
  };

  /** Appends one line (serve's `out` callback). */
  readonly line = (line: string): void => this.push(`${line}\n`);

  /** The complete lines so far. */
  get lines(): string[] {
    return this.text.split("\n").slice(0, -1);
  }

  /** Collects a readable stream's text. */
  static of(stream: Readable): OutputWatch {
    const watch = new OutputWatch();
    stream.setEncoding("utf8").on("data", watch.push);
    return watch;
  }

  /** Resolves once the output (from offset `from` on) contains `needle`. */
  until(needle: string | RegExp, { from = 0, timeoutMs = 15_000 }: { from?: number; timeoutMs?: number } = {}): Promise<void> {
    const found = () => {
      const text = this.text.slice(from);
      return typeof needle === "string" ? text.includes(needle) : needle.test(text);
    };
    if (found()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const wake = () => {
        if (!found()) return;
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`timed out waiting for ${String(needle)} in the output:\n${this.text}`));
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }
}
