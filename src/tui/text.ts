/**
 * Text measured as a terminal shows it: a CJK character takes two columns (the book's phase
 * names: 广播), everything else here one. Lines are wrapped at spaces, never cut, so a sentence
 * that teaches is read whole; `fit` cuts (with "…") only what may be cut: a row of a list.
 */

/** Columns a code point takes: 2 for East Asian wide characters, 1 otherwise. */
function columnsOf(cp: number): number {
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}

/** The columns `s` takes in a terminal. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += columnsOf(ch.codePointAt(0)!);
  return w;
}

/** `s` cut to `width` columns, ending in "…" when it was longer. */
export function fit(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  let out = "";
  let w = 0;
  for (const ch of s) {
    const c = columnsOf(ch.codePointAt(0)!);
    if (w + c > width - 1) break;
    out += ch;
    w += c;
  }
  return `${out}…`;
}

/** `s` padded with spaces to `width` columns. */
export function padEnd(s: string, width: number): string {
  return s + " ".repeat(Math.max(0, width - displayWidth(s)));
}

/**
 * `text` in lines of at most `width` columns, broken at spaces (runs of spaces inside a line are
 * kept); the lines after the first start with `indent`. A single word longer than a line is
 * broken where it must be: nothing is lost.
 */
export function wrap(text: string, width: number, indent = ""): string[] {
  const lines: string[] = [];
  let line = "";
  let lineWidth = 0;
  let space = ""; // spaces seen after the line's last word, kept only if a word follows on this line
  const room = () => Math.max(1, width - (lines.length === 0 ? 0 : displayWidth(indent)));
  const push = () => {
    lines.push(lines.length === 0 ? line : `${indent}${line}`);
    line = "";
    lineWidth = 0;
    space = "";
  };
  for (const token of text.match(/ +|[^ ]+/g) ?? []) {
    if (token.startsWith(" ")) {
      if (line === "" && lines.length > 0) continue; // no spaces at the start of a continuation
      space += token;
      continue;
    }
    const w = displayWidth(token);
    if (lineWidth + space.length + w <= room()) {
      line += space + token;
      lineWidth += space.length + w;
      space = "";
      continue;
    }
    if (line !== "") push();
    let rest = token;
    while (displayWidth(rest) > room()) {
      const head = fit(rest, room() + 1).slice(0, -1); // fit's cut, without its "…"
      line = head;
      push();
      rest = rest.slice(head.length);
    }
    line = rest;
    lineWidth = displayWidth(rest);
  }
  if (line !== "" || lines.length === 0) push();
  return lines;
}

/**
 * A keys line: `hints` joined by " · ", leaving out the `spare` ones (in that order) until it fits
 * `width`, so no hint is cut in the middle; cut only if it still does not fit.
 */
export function hintsLine(hints: readonly string[], spare: readonly string[], width: number): string {
  const shown = [...hints];
  for (const s of spare) {
    if (displayWidth(shown.join(" · ")) <= width) break;
    shown.splice(shown.indexOf(s), 1);
  }
  return fit(shown.join(" · "), width);
}

/** Every line of `lines` wrapped to `width`, continuations indented by `indent` (what plain mode prints). */
export function wrapAll(lines: readonly string[], width: number, indent = "    "): string[] {
  return lines.flatMap((l) => (displayWidth(l) <= width ? [l] : wrap(l, width, `${leadingSpaces(l)}${indent}`)));
}

function leadingSpaces(s: string): string {
  return /^ */.exec(s)![0];
}
