/**
 * The main screen as styled lines: a pure projection of the controller's `ViewState` at a
 * terminal size. The ink `Screen` draws these lines, and so does the first frame written
 * before ink is loaded (fast-start.ts), so both are the same screen.
 *
 * Top to bottom: header; nodes (the selected one marked ">", changed fields "*"); the
 * protocol's pane; then either the pending list, the space-time strip and the narration, or a
 * box (the lesson's start, the goal reached, a question, a what-if preview) above a shortened
 * pending list; the invariants; the goal (wrapped); what the last action did; the keys, with
 * what Enter does now. Colour is added, never alone: every state also has a character.
 */
import type { Lesson } from "./lessons/lesson.js";
import type { ViewState } from "./controller.js";
import { SPEEDS } from "./controller.js";
import { goalBoxLines, lessonBoxLines, predictBoxLines } from "./boxes.js";
import { goalLines, headerLine, narrationView, nodeRows, panelLines, pendingLines, pendingTitle, stripLines, stripTitle, verdictLines } from "./frame-text.js";
import { layout, type Layout } from "./layout.js";
import { KEY_HELP } from "./keys.js";
import { COMMAND_HELP } from "./commands.js";
import { fit, hintsLine, padEnd, wrap } from "./text.js";

export interface Styled {
  text: string;
  color?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
}

export interface Size {
  rows: number;
  columns: number;
}

const ROLE_COLOR: Record<string, string> = { leader: "green", follower: "cyan", looking: "yellow", down: "red", client: "magenta" };

/** The lines of the box shown (or of the what-if preview), before the layout cuts them. */
function boxLines(view: ViewState, lesson: Lesson | undefined, width: number): string[] {
  const mode = view.mode;
  if (mode.kind === "confirm") return [`WHAT IF: ${mode.label} now?`, ...(mode.preview === undefined ? ["running the fork ahead…"] : mode.preview.flatMap((l) => wrap(l, width, "  "))), "y / enter: apply · n / esc: cancel"];
  const box = view.box;
  if (box === undefined) return [];
  if (box.kind === "lesson") return lesson === undefined ? [] : lessonBoxLines(lesson, width);
  if (box.kind === "goal") return goalBoxLines(lesson, view.frame, view.predictions, width);
  return predictBoxLines(box, view.predictions, width);
}

/** What Enter does now, for the keys line. */
export function enterHint(view: ViewState): string {
  if (view.mode.kind === "confirm") return "enter: apply";
  const box = view.box;
  if (box?.kind === "predict" && box.picked === undefined) return `1–${box.question.choices.length}: answer · esc: skip`;
  if (box !== undefined) return "enter: close the box";
  const p = view.frame.pending[view.selected];
  if (p === undefined) return "enter: —";
  return p.kind === "timer" ? `enter: fire ${p.ref}` : `enter: deliver ${p.ref}`;
}

export function screenLines(view: ViewState, size: Size, lesson: Lesson | undefined): Styled[] {
  const f = view.frame;
  const width = Math.max(80, size.columns);
  const rowOptions = { ...(view.before !== undefined ? { before: view.before } : {}), ...(lesson?.keyFields !== undefined ? { keyFields: lesson.keyFields } : {}), selected: view.node };
  const flat = nodeRows(f, width, { ...rowOptions, wrap: false });
  const wrapped = nodeRows(f, width, { ...rowOptions, wrap: true });
  const panel = panelLines(f, width);
  const goal = view.box?.kind === "goal" ? [fit("✓ GOAL REACHED — the box above says what it means", width)] : goalLines(f, width);
  const box = boxLines(view, lesson, width);
  const violations = f.verdicts.filter((v) => !v.ok).length;
  const lay = layout({ rows: size.rows, columns: size.columns, nodes: flat.length, nodesWrapped: wrapped.length, panel: panel.length, violations, goal: goal.length, box: box.length });
  const out: Styled[] = [{ text: headerLine(f, width), color: "blue", bold: true }];
  for (const r of lay.wrapNodes ? wrapped : flat) out.push({ text: r.text, color: ROLE_COLOR[f.nodes[r.node]!.role], inverse: r.node === view.node });
  panel.forEach((text, i) => out.push({ text, bold: i === 0 }));
  if (box.length > 0) out.push(...boxSection(box, lay, view.scroll, width), ...pendingSection(view, lay, width));
  else out.push(...sections(view, lay, width));
  for (const text of verdictLines(f, width).slice(0, 4)) out.push({ text, color: text.includes("✗") ? "red" : "green" });
  for (const text of goal) out.push({ text, color: f.goal?.reached === true ? "green" : "yellow" });
  out.push(...statusLines(view, width));
  return out;
}

function boxSection(box: string[], lay: Layout, scroll: number, width: number): Styled[] {
  const from = Math.max(0, Math.min(scroll, box.length - lay.box));
  const shown = box.slice(from, from + lay.box);
  if (from + lay.box < box.length) shown[shown.length - 1] = fit(`… ${box.length - from - lay.box + 1} more line(s): ] or PgDn`, width);
  return shown.map((text, i) => ({ text, bold: i === 0 && from === 0, color: text.startsWith("✗") ? "red" : text.startsWith("✓") ? "green" : undefined }));
}

function pendingSection(view: ViewState, lay: Layout, width: number): Styled[] {
  const f = view.frame;
  const marked = view.mode.kind === "normal" && view.box === undefined ? view.selected : undefined;
  const lines = pendingLines(f, width, lay.pending, view.selected);
  return [
    { text: fit(`${pendingTitle(f, lay.pending, view.selected)} · ↑↓ select`, width), bold: true },
    ...lines.map((text) => ({ text, inverse: marked !== undefined && text.startsWith(">"), color: text.includes("✂") ? "yellow" : undefined })),
  ];
}

/** The pending list, the strip and the narration (side by side on wide terminals). */
function sections(view: ViewState, lay: Layout, width: number): Styled[] {
  const f = view.frame;
  const half = lay.sideBySide ? Math.floor((width - 2) / 2) : width;
  const narration = narrationView(f, width, lay.narration, view.scroll);
  const until = view.scroll > 0 ? narration.until : undefined;
  const pending = pendingSection(view, lay, half);
  const strip: Styled[] =
    lay.strip > 0
      ? [{ text: stripTitle(f, half), bold: true }, ...stripLines(f, half, lay.strip, { clients: view.clients, ...(until !== undefined ? { until } : {}) }).map((text) => ({ text, dim: !text.startsWith("›") }))]
      : [];
  const top: Styled[] = [];
  if (lay.sideBySide) {
    const n = Math.max(pending.length, strip.length);
    for (let i = 0; i < n; i++) {
      const left = pending[i];
      top.push({ text: `${padEnd(left?.text ?? "", half)}  ${strip[i]?.text ?? ""}`, bold: i === 0, inverse: false });
    }
  } else top.push(...pending, ...strip);
  const title = `NARRATION${view.scroll > 0 ? ` — ${view.scroll} back ([ older · ] newer)` : " ([ older)"}${narration.pinned ? " · ◆ on top: the last decisive event" : ""}`;
  return [...top, { text: fit(title, width), bold: true }, ...narration.lines.map((text) => ({ text, dim: !/^(›|.◆)/.test(text) }))];
}

function statusLines(view: ViewState, width: number): Styled[] {
  const mode = view.mode;
  if (mode.kind === "command") return [{ text: fit(`:${mode.text}▏  (enter run · esc cancel)`, width) }, { text: fit("a command: step 5 · run 2s · crash s3 · cut s3 s1,s2 · write c1 /a 1 · help", width), dim: true }];
  const state = view.running ? `▶ running ×${SPEEDS[view.speed]}` : "‖ paused";
  return [
    { text: fit(view.message, width) },
    { text: hintsLine([state, enterHint(view), "space run", "→← step", ": command", "? help", "q quit"], [": command", "→← step", "space run"], width), dim: true },
  ];
}

/** The help screen: the lesson's idea and steps, the keys and the commands, scrolled to `scroll`. */
export function helpLines(lessonLines: readonly string[], scroll: number, size: Size): Styled[] {
  const width = Math.max(80, size.columns);
  const body = [...lessonLines.flatMap((l) => wrap(l, width, "  ")), ...KEY_HELP.map(([k, what]) => fit(`${padEnd(k, 19)} ${what}`, width)), "", "COMMANDS (after :)", ...COMMAND_HELP.map((l) => fit(l, width))];
  const room = Math.max(5, Math.max(23, size.rows - 1) - 1);
  const from = Math.max(0, Math.min(scroll, body.length - room));
  const more = body.length > room ? ` (lines ${from + 1}–${Math.min(body.length, from + room)} of ${body.length}: ↑↓ PgUp PgDn scroll)` : "";
  return [{ text: fit(`KEYS — ? or esc closes${more}`, width), bold: true }, ...body.slice(from, from + room).map((text) => ({ text }))];
}
