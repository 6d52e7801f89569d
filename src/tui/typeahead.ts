/**
 * Keys typed while `zksim learn` starts belong to the app: from the process's first moment the
 * terminal is put in raw mode (nothing typed is echoed, so the screen does not shift), the
 * keys are kept, and handed to the app when it is ready to read them. Ctrl-C meanwhile still
 * quits. Imported by bin/zksim.js before anything else: this module imports nothing.
 *
 * Only for the interactive app: a terminal on both ends, `learn` without --plain, --script,
 * --lessons or --help, and a terminal that can draw (TERM is not "dumb").
 */

const NOT_INTERACTIVE = new Set(["--plain", "--script", "--lessons", "--help", "-h"]);

export function wantsApp(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (argv[0] !== "learn" || env.TERM === "dumb") return false;
  if (argv.some((a) => NOT_INTERACTIVE.has(a.split("=")[0]!))) return false;
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

let held: Buffer[] | undefined;
let onData: ((chunk: Buffer) => void) | undefined;

/** Raw mode now, keys kept (ctrl-c quits); does nothing unless the app is wanted. */
export function holdTypeahead(argv: readonly string[]): void {
  if (!wantsApp(argv) || held !== undefined) return;
  held = [];
  process.stdin.setRawMode(true);
  onData = (chunk: Buffer) => {
    if (chunk.includes(3)) process.exit(130); // ctrl-c before the app could read it
    held!.push(chunk);
  };
  process.stdin.on("data", onData);
}

/**
 * Gives the kept keys back to stdin (the app reads them first) and stops keeping them. Resolves
 * once stdin has really stopped reading: Node stops a paused stdin one tick later, which would
 * otherwise stop the app's reading too and let the process end.
 */
export async function releaseTypeahead(): Promise<void> {
  if (held === undefined || onData === undefined) return;
  process.stdin.off("data", onData);
  process.stdin.pause();
  const keys = Buffer.concat(held);
  held = undefined;
  onData = undefined;
  if (keys.length > 0) process.stdin.unshift(keys);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The terminal back to line mode (the run turned out not to be interactive, or failed before the app). */
export async function dropTypeahead(): Promise<void> {
  await releaseTypeahead();
  if (process.stdin.isTTY === true && process.stdin.isRaw) process.stdin.setRawMode(false);
}
