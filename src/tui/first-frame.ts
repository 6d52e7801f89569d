/**
 * The first frame, drawn before ink is loaded: loading ink and React costs more CPU than
 * everything else `zksim learn` does to start, so the learner's first screen is written here,
 * from the same lines the ink screen draws (screen-lines.ts, menu-lines.ts), with plain ANSI
 * styles. When ink is ready, the cursor goes back to the frame's first line and ink draws over
 * the same text.
 *
 * Colour follows the usual conventions: none with NO_COLOR set (non-empty), FORCE_COLOR=0, or
 * TERM=dumb; every state has a character, so nothing is lost without it.
 */
import type { Styled } from "./screen-lines.js";

const COLORS: Record<string, number> = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 };

/** Whether the environment lets us colour (NO_COLOR, FORCE_COLOR=0, TERM=dumb say no). */
export function colourWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR === "0" || env.FORCE_COLOR === "false") return false;
  return env.TERM !== "dumb";
}

/** One line with its styles as ANSI SGR codes (none without colour). */
export function ansiLine(l: Styled, colour: boolean): string {
  if (!colour) return l.text;
  const codes = [l.bold === true ? 1 : 0, l.dim === true ? 2 : 0, l.inverse === true ? 7 : 0, l.color !== undefined ? (COLORS[l.color] ?? 0) : 0].filter((c) => c !== 0);
  return codes.length === 0 ? l.text : `\u001B[${codes.join(";")}m${l.text}\u001B[0m`;
}

/** Writes the frame (cursor hidden, as ink keeps it); returns how many lines it took. */
export function drawFirstFrame(lines: readonly Styled[], out: NodeJS.WriteStream = process.stdout, colour = colourWanted()): number {
  out.write(`\u001B[?25l${lines.map((l) => `${ansiLine(l, colour)}\u001B[K`).join("\n")}\n`);
  return lines.length;
}

/** The cursor back to the first line of a frame of `lines` lines, the rest of the screen cleared below it: ink draws from there. */
export function rewindFirstFrame(lines: number, out: NodeJS.WriteStream = process.stdout): void {
  if (lines > 0) out.write(`\u001B[${lines}A\r\u001B[J`);
}
