/**
 * SIGINT and SIGTERM treated alike by the long-running commands (explore, check, learn's
 * --save): a job scheduler's `kill`, `timeout` and a closed terminal stop a sweep just as Ctrl-C
 * does, and each command keeps what it has (docs/commands.md, the exit codes). One place for the
 * handlers' installation and the exit codes, for cli/ and tui/ alike (tui/ may not import cli/).
 */

/** The exit codes after SIGINT and SIGTERM (128 + the signal's number, as a shell reports them). */
export const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

export type StopSignal = "SIGINT" | "SIGTERM";

/** Calls `onSignal` on every SIGINT or SIGTERM until the returned function removes the handlers. */
export function onStopSignals(onSignal: (signal: StopSignal) => void): () => void {
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
