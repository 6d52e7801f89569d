/**
 * A frame as text: the sections of the screen (header, nodes, pending events, space-time strip,
 * narration, invariants, goal) as lines no wider than asked. Plain mode prints them; the ink
 * components show the same lines in their boxes, so both modes draw the same frames.
 *
 * No meaning by colour alone: every state has a symbol (● up, ✖ down, ‖ paused; ✓ holds,
 * ✗ violated; ▸ a connection's head, · behind it, ✂ held by a cut, ⏸ parked; › this step).
 */
import type { Frame, NodeView, PendingEvent, RecentEvent } from "../stepper/types.js";

const STATUS_MARK: Record<NodeView["status"], string> = { up: "●", down: "✖", paused: "‖" };

export function fit(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

export function ms(us: number): string {
  return `${(us / 1000).toFixed(1)}ms`;
}

export function headerLine(f: Frame, width: number): string {
  const branch = f.branches > 1 ? ` · branch ${f.branch} of ${f.branches}` : "";
  const future = f.step < f.steps ? ` (of ${f.steps})` : "";
  return fit(`zksim learn ${f.protocol}${f.variant !== undefined ? ` [${f.variant}]` : ""} · seed ${f.seed} · step ${f.step}${f.step < 0 ? " (before the start)" : ""}${future}${branch} · t=${ms(f.nowUs)} · event ${f.position}`, width);
}

export function nodeLines(f: Frame, width: number): string[] {
  const idWidth = Math.max(...f.nodes.map((n) => n.id.length));
  const roleWidth = Math.max(...f.nodes.map((n) => n.role.length));
  return f.nodes.map((n) => {
    const fields = n.fields.map(([k, v]) => `${k} ${v}`).join("  ");
    return fit(`${STATUS_MARK[n.status]} ${n.id.padEnd(idWidth)} ${n.role.padEnd(roleWidth)}  ${fields}`, width);
  });
}

/** The protocol's own pane: its title, then its lines (nothing when the adapter has none). */
export function panelLines(f: Frame, width: number): string[] {
  if (f.panel === undefined) return [];
  return [fit(f.panel.title, width), ...f.panel.lines.map((l) => fit(l, width))];
}

function pendingMark(p: PendingEvent): string {
  if (p.state === "held") return "✂";
  if (p.state === "parked") return "⏸";
  if (p.kind === "message" && p.channel === "connection") return p.head ? "▸" : "·";
  return "▸";
}

/** Pending events, one a line, numbered as commands refer to them; at most `rows` lines. */
export function pendingLines(f: Frame, width: number, rows: number): string[] {
  const lines: string[] = [];
  const shown = f.pending.slice(0, rows);
  shown.forEach((p, i) => {
    const when = p.atUs === Infinity ? (p.state === "held" ? "held by a cut" : "parked: node paused") : `in ${ms(p.atUs - f.nowUs)}`;
    const what = p.kind === "message" ? `${p.book.padEnd(10)} ${`${p.from}→${p.to}`.padEnd(7)} ${p.detail}` : `timer      ${p.node.padEnd(7)} ${p.book}`;
    lines.push(fit(`${String(i + 1).padStart(2)} ${pendingMark(p)} ${p.ref.padEnd(5)} ${what}  ${when}`, width));
  });
  if (f.pending.length > rows) lines.push(fit(`   … ${f.pending.length - rows} more (later ones)`, width));
  if (f.pending.length === 0) lines.push("   nothing pending");
  return lines;
}

/** Node columns for the strip: the nodes of the frame, in order. */
function columns(f: Frame): string[] {
  return f.nodes.map((n) => n.id);
}

/**
 * The space-time strip: one column per node, one row per recent delivery, drop or fault, the
 * newest at the bottom; an arrow runs from sender (●) to receiver (▶ or ◀), labelled with the
 * book's name.
 */
export function stripLines(f: Frame, width: number, rows: number): string[] {
  const cols = columns(f);
  const colWidth = 4;
  const head = `${"".padStart(10)}${cols.map((c) => c.padEnd(colWidth)).join("")}`;
  const events = f.recent.filter((r) => stripWorthy(r)).slice(-rows);
  const lines = events.map((r) => stripRow(r, cols, colWidth, f.stepFrom));
  return [fit(head, width), ...lines.map((l) => fit(l, width))];
}

function stripWorthy(r: RecentEvent): boolean {
  const k = r.event.kind;
  if (k === "deliver" || k === "drop" || k === "hold") return r.book !== undefined && r.narration !== undefined;
  return k === "crash" || k === "restart" || k === "start" || k === "pause" || k === "resume";
}

function stripRow(r: RecentEvent, cols: string[], colWidth: number, stepFrom: number): string {
  const e = r.event;
  const cells = cols.map(() => "│".padEnd(colWidth));
  const line = cells.map((c) => [...c]);
  const at = (node: string) => cols.indexOf(node);
  let label: string;
  if (e.kind === "deliver" || e.kind === "drop" || e.kind === "hold") {
    const from = at(e.peer ?? "");
    const to = at(e.node);
    const lo = Math.min(from, to);
    const hi = Math.max(from, to);
    if (from >= 0 && to >= 0) {
      for (let c = lo; c <= hi; c++) for (let k = c === lo ? 1 : 0; k < colWidth && !(c === hi && k > 0); k++) line[c]![k] = "─";
      line[from]![0] = "●";
      line[to]![0] = e.kind === "deliver" ? (to > from ? "▶" : "◀") : e.kind === "hold" ? "✂" : "✗";
    }
    label = `${r.book ?? e.detail}${e.kind === "drop" ? " lost" : e.kind === "hold" ? " held" : ""}`;
  } else {
    const c = at(e.node);
    if (c >= 0) line[c]![0] = e.kind === "crash" ? "✖" : e.kind === "pause" ? "‖" : "●";
    label = e.kind;
  }
  const mark = e.index >= stepFrom ? "›" : " ";
  return `${mark}${ms(e.atUs).padStart(9)}${line.map((l) => l.join("")).join("")} ${label}`;
}

/** The narration of the recent events, newest last; the last step's lines marked "›". */
export function narrationLines(f: Frame, width: number, rows: number): string[] {
  const lines = f.recent.filter((r) => r.narration !== undefined).slice(-rows);
  return lines.map((r) => fit(`${r.event.index >= f.stepFrom ? "›" : " "} ${ms(r.event.atUs).padStart(9)} ${r.narration}`, width));
}

export function verdictLines(f: Frame, width: number): string[] {
  const bad = f.verdicts.filter((v) => !v.ok);
  const good = f.verdicts.length - bad.length;
  const lines = [fit(`✓ ${good} of ${f.verdicts.length} invariants hold${bad.length === 0 ? "" : `; ✗ ${bad.length} violated`}`, width)];
  for (const v of bad) lines.push(fit(`✗ ${v.checker} (event ${v.eventIndex}): ${v.message}`, width));
  return lines;
}

export function goalLines(f: Frame, width: number): string[] {
  if (f.goal === undefined) return [];
  return [fit(`${f.goal.reached ? "✓ GOAL REACHED" : "○ GOAL"}: ${f.goal.text}`, width)];
}

/** The whole frame as plain text (plain mode's `show`, golden transcripts, docs). */
export function frameText(f: Frame, width = 100): string[] {
  return [
    headerLine(f, width),
    "NODES",
    ...nodeLines(f, width),
    ...panelLines(f, width),
    `PENDING (${f.pending.length})`,
    ...pendingLines(f, width, 12),
    "SPACE-TIME",
    ...stripLines(f, width, 8),
    "NARRATION",
    ...narrationLines(f, width, 8),
    "INVARIANTS",
    ...verdictLines(f, width),
    ...goalLines(f, width),
  ];
}

/** Narration of the events since the last step began: what plain mode prints after a command. */
export function newNarration(f: Frame, width: number): string[] {
  return f.recent.filter((r) => r.narration !== undefined && r.event.index >= f.stepFrom).map((r) => fit(`  ${ms(r.event.atUs).padStart(9)} ${r.narration}`, width));
}
