/**
 * Keys to intents, as a pure function of the key, the mode and the box shown (testable without
 * a terminal). The same list is the `?` help screen, so the help never disagrees with the keys.
 */
import type { Mode } from "./controller.js";
import type { Box } from "./boxes.js";

export type Intent =
  | { kind: "quit" | "menu" | "help" | "close" | "tick" | "toggle-run" | "step" | "back" | "next-node" | "activate" | "heal" | "write" | "branch" | "save" | "command-start" | "command-submit" | "confirm" | "clients" | "close-box" }
  | { kind: "speed" | "select" | "scroll"; delta: number }
  | { kind: "answer"; choice: number }
  | { kind: "pending"; verb: "drop" | "delay" | "duplicate" }
  | { kind: "fault"; verb: "crash" | "restart" | "pause" | "isolate" }
  | { kind: "command-edit"; text: string; backspace: boolean };

/** What ink's useInput reports about a key (the subset we read). */
export interface KeyInfo {
  leftArrow?: boolean;
  rightArrow?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  tab?: boolean;
}

export const KEY_HELP: readonly [string, string][] = [
  ["space", "run / pause (a run stops at a question)"],
  ["+ / -", "faster / slower"],
  ["→ or s", "step one event forward"],
  ["← or b", "step one event back (re-executes from the seed)"],
  ["↑ / ↓", "select a pending event (> marks it)"],
  ["enter", "deliver the selected message next / fire the selected timer; with a box up: close it"],
  ["x / l / u", "drop / delay 100 ms / duplicate the selected message"],
  ["tab", "select the next node (> marks it)"],
  ["c / r / p / i", "crash / restart / pause-resume / isolate the node (previewed: y to apply)"],
  ["h", "heal every link"],
  ["w", "c1 writes a new znode (2PC/3PC: starts a transaction)"],
  ["[ / ] or PgUp/PgDn", "narration (and strip) back / forward in time; in a box: scroll it"],
  ["t", "the strip draws the clients' traffic too (again: leaves it out)"],
  ["1 … 9", "answer a question (PREDICT box); esc skips it"],
  ["B", "switch to the next branch"],
  ["S", "save the session (zksim learn --open FILE re-opens it)"],
  [":", "type a command (step 5, run 2s, cut s3 <-> s1,s2, write c1 /a 1, …)"],
  ["L", "the lessons menu"],
  ["?", "this help (↑↓ scroll)"],
  ["q", "quit"],
];

/**
 * A terminal may hand several keys over in one chunk (typing fast, pasting, a busy event
 * loop): split a chunk with no escape sequence into single keys, with Enter, Backspace and Tab
 * recognised, so each is read in the mode the key before it left.
 */
export function splitKeys(input: string, key: KeyInfo): [string, KeyInfo][] {
  if (input.length <= 1 || input.includes("\u001B")) return [[input, key]];
  return [...input].map((ch): [string, KeyInfo] => {
    if (ch === "\r" || ch === "\n") return ["", { return: true }];
    if (ch === "\u007F" || ch === "\b") return ["", { backspace: true }];
    if (ch === "\t") return ["", { tab: true }];
    return [ch, {}];
  });
}

export function keyIntent(input: string, key: KeyInfo, mode: Mode, box?: Box): Intent | undefined {
  if (mode.kind === "command") {
    if (key.return) return { kind: "command-submit" };
    if (key.escape) return { kind: "close" };
    if (key.backspace || key.delete) return { kind: "command-edit", text: "", backspace: true };
    if (input !== "" && !key.ctrl) return { kind: "command-edit", text: input, backspace: false };
    return undefined;
  }
  if (input === "q" || (key.ctrl && input === "c")) return { kind: "quit" };
  if (mode.kind === "help") {
    if (key.upArrow || key.pageUp) return { kind: "scroll", delta: key.pageUp ? -10 : -1 };
    if (key.downArrow || key.pageDown) return { kind: "scroll", delta: key.pageDown ? 10 : 1 };
    return input === "?" || key.escape ? { kind: "close" } : undefined;
  }
  if (mode.kind === "confirm") {
    if (input === "y" || key.return) return { kind: "confirm" };
    if (input === "n" || key.escape) return { kind: "close" };
    return undefined;
  }
  if (box !== undefined) {
    if (key.return || key.escape) return box.kind === "predict" && box.picked === undefined && key.return ? undefined : { kind: "close-box" };
    if (box.kind === "predict" && box.picked === undefined && /^[1-9]$/.test(input)) return { kind: "answer", choice: Number(input) - 1 };
  }
  if (key.rightArrow) return { kind: "step" };
  if (key.leftArrow) return { kind: "back" };
  if (key.upArrow) return { kind: "select", delta: -1 };
  if (key.downArrow) return { kind: "select", delta: 1 };
  if (key.pageUp) return { kind: "scroll", delta: -5 };
  if (key.pageDown) return { kind: "scroll", delta: 5 };
  if (key.return) return { kind: "activate" };
  if (key.tab) return { kind: "next-node" };
  return LETTERS[input];
}

const LETTERS: Record<string, Intent> = {
  "?": { kind: "help" },
  " ": { kind: "toggle-run" },
  "+": { kind: "speed", delta: 1 },
  "=": { kind: "speed", delta: 1 },
  "-": { kind: "speed", delta: -1 },
  s: { kind: "step" },
  b: { kind: "back" },
  x: { kind: "pending", verb: "drop" },
  l: { kind: "pending", verb: "delay" },
  u: { kind: "pending", verb: "duplicate" },
  c: { kind: "fault", verb: "crash" },
  r: { kind: "fault", verb: "restart" },
  p: { kind: "fault", verb: "pause" },
  i: { kind: "fault", verb: "isolate" },
  h: { kind: "heal" },
  w: { kind: "write" },
  "[": { kind: "scroll", delta: -1 },
  "]": { kind: "scroll", delta: 1 },
  t: { kind: "clients" },
  B: { kind: "branch" },
  S: { kind: "save" },
  L: { kind: "menu" },
  ":": { kind: "command-start" },
};
