/**
 * A frame as text: the sections of the screen (header, nodes, pending events, space-time strip,
 * narration, invariants, goal) as lines no wider than asked. Plain mode prints them; the ink
 * screen (screen-lines.ts) lays the same sections out in a terminal, so both modes draw the
 * same frames.
 *
 * Nothing a lesson needs is cut: the goal and the narration of the last step wrap; a node row
 * too wide for the terminal keeps the fields that matter first (the lesson's key fields, then
 * what the last step changed, then the adapter's order) and says how many it left out (+2);
 * plain mode wraps node rows instead.
 *
 * No meaning by colour alone: every state has a symbol (● up, ✖ down, ‖ paused; ✓ holds,
 * ✗ violated; ▸ a connection's head, · behind it, ✂ held by a cut, ⏸ parked; › this step,
 * ◆ a decisive event, * a field the last step changed, > the selected row).
 */
import type { Frame, NodeView, PendingEvent, RecentEvent } from "../stepper/types.js";
import { displayWidth, fit, padEnd, wrap } from "./text.js";

export { fit } from "./text.js";

const STATUS_MARK: Record<NodeView["status"], string> = { up: "●", down: "✖", paused: "‖" };
/** Width of the time column of the strip and the narration. */
const TIME_WIDTH = 9;

export function ms(us: number): string {
  return `${(us / 1000).toFixed(1)}ms`;
}

export function headerLine(f: Frame, width: number): string {
  const branch = f.branches > 1 ? ` · branch ${f.branch} of ${f.branches}` : "";
  const future = f.step < f.steps ? ` (of ${f.steps})` : "";
  return fit(`zksim learn ${f.protocol}${f.variant !== undefined ? ` [${f.variant}]` : ""} · seed ${f.seed} · step ${f.step}${f.step < 0 ? " (before the start)" : ""}${future}${branch} · t=${ms(f.nowUs)} · event ${f.lastEvent}`, width);
}

// ---- nodes --------------------------------------------------------------------------------

export interface NodeRowOptions {
  /** The lesson's key fields (labels): shown first when a row must leave fields out. */
  keyFields?: readonly string[];
  /** The frame before the last step: the fields it changed are marked "*". */
  before?: Frame;
  /** Continuation lines for what does not fit (plain mode, tall terminals); else one line per node. */
  wrap: boolean;
  /** The selected node: its row starts with ">" (a one-column gutter on every row). */
  selected?: number;
}

export interface NodeRow {
  /** Index in `frame.nodes`. */
  node: number;
  text: string;
}

/** Each node's row (or rows, wrapped): status, id, role, then its fields. */
export function nodeRows(f: Frame, width: number, o: NodeRowOptions): NodeRow[] {
  const idWidth = Math.max(...f.nodes.map((n) => n.id.length));
  const roleWidth = Math.max(...f.nodes.map((n) => n.role.length));
  const changed = changedFields(f, o.before);
  return f.nodes.flatMap((n, i) => {
    const gutter = o.selected === undefined ? "" : i === o.selected ? ">" : " ";
    const prefix = `${gutter}${STATUS_MARK[n.status]} ${n.id.padEnd(idWidth)} ${n.role.padEnd(roleWidth)}  `;
    const fields = n.fields.map(([k, v]) => ({ label: k, text: `${changed.has(fieldKey(n.id, k)) ? "*" : ""}${k} ${v}` }));
    const room = Math.max(10, width - displayWidth(prefix));
    const lines = o.wrap ? wrapFields(fields.map((x) => x.text), room) : [fitFields(fields, room, o.keyFields ?? [], (label) => changed.has(fieldKey(n.id, label)))];
    const indent = " ".repeat(displayWidth(prefix));
    return lines.map((l, j) => ({ node: i, text: `${j === 0 ? prefix : indent}${l}`.trimEnd() }));
  });
}

/** The node rows as text (plain mode, the compare panes): wrapped, nothing left out. */
export function nodeLines(f: Frame, width: number, o: Omit<NodeRowOptions, "wrap"> = {}): string[] {
  return nodeRows(f, width, { ...o, wrap: true }).map((r) => r.text);
}

function fieldKey(node: string, label: string): string {
  return `${node}\u0000${label}`;
}

/** The fields whose value the step from `before` to `f` changed (or that appeared). */
function changedFields(f: Frame, before: Frame | undefined): Set<string> {
  const out = new Set<string>();
  if (before === undefined) return out;
  const was = new Map<string, string>();
  for (const n of before.nodes) for (const [k, v] of n.fields) was.set(fieldKey(n.id, k), v);
  const known = new Set(before.nodes.map((n) => n.id));
  for (const n of f.nodes) {
    if (!known.has(n.id)) continue;
    for (const [k, v] of n.fields) if (was.get(fieldKey(n.id, k)) !== v) out.add(fieldKey(n.id, k));
  }
  return out;
}

/** Fields in display order over as many lines of `room` columns as they need. */
function wrapFields(texts: readonly string[], room: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const t of texts) {
    if (line !== "" && displayWidth(line) + 2 + displayWidth(t) <= room) {
      line += `  ${t}`;
      continue;
    }
    if (line !== "") lines.push(line);
    const parts = displayWidth(t) <= room ? [t] : wrap(t, room, "  ");
    lines.push(...parts.slice(0, -1));
    line = parts[parts.length - 1]!;
  }
  lines.push(line);
  return lines;
}

/**
 * One line of `room` columns: the fields that fit, chosen by priority (the lesson's key fields,
 * then the changed ones, then the adapter's order) and shown in display order, with "+N" for
 * the N left out.
 */
function fitFields(fields: readonly { label: string; text: string }[], room: number, keyFields: readonly string[], isChanged: (label: string) => boolean): string {
  const rank = (label: string, i: number) => {
    const key = keyFields.indexOf(label);
    if (key >= 0) return key;
    return (isChanged(label) ? 1_000 : 2_000) + i;
  };
  const order = fields.map((x, i) => ({ ...x, i, rank: rank(x.label, i), w: displayWidth(x.text) })).sort((a, b) => a.rank - b.rank);
  const total = order.reduce((s, x) => s + x.w, 0) + 2 * Math.max(0, fields.length - 1);
  if (total <= room) return fields.map((x) => x.text).join("  ");
  const budget = room - 4; // "  +N"
  const chosen = new Set<number>();
  let used = 0;
  for (const x of order) {
    const cost = (chosen.size === 0 ? 0 : 2) + x.w;
    if (used + cost <= budget) {
      chosen.add(x.i);
      used += cost;
    } else if (chosen.size === 0) {
      return `${fit(x.text, budget)}  +${fields.length - 1}`;
    }
  }
  const shown = fields.filter((_, i) => chosen.has(i)).map((x) => x.text);
  return `${shown.join("  ")}  +${fields.length - chosen.size}`;
}

/** The protocol's own pane: its title, then its lines (nothing when the adapter has none). */
export function panelLines(f: Frame, width: number): string[] {
  if (f.panel === undefined) return [];
  return [fit(f.panel.title, width), ...f.panel.lines.map((l) => fit(l, width))];
}

// ---- pending events -----------------------------------------------------------------------

function pendingMark(p: PendingEvent): string {
  if (p.state === "held") return "✂";
  if (p.state === "parked") return "⏸";
  if (p.kind === "message" && p.channel === "connection") return p.head ? "▸" : "·";
  return "▸";
}

/** One pending event as a row, numbered as commands refer to it. */
export function pendingRow(f: Frame, i: number, width: number, selected?: number): string {
  const p = f.pending[i]!;
  const gutter = selected === undefined ? "" : i === selected ? ">" : " ";
  const when = p.atUs === Infinity ? (p.state === "held" ? "held by a cut" : "parked: node paused") : `in ${ms(p.atUs - f.nowUs)}`;
  const what = p.kind === "message" ? `${padEnd(p.book, 10)} ${`${p.from}→${p.to}`.padEnd(7)} ${p.detail}` : `timer      ${p.node.padEnd(7)} ${p.book}`;
  return fit(`${gutter}${String(i + 1).padStart(2)} ${pendingMark(p)} ${p.ref.padEnd(5)} ${what}  ${when}`, width);
}

/**
 * At most `rows` pending events, the selected one always among them (the window follows it),
 * with a line for the ones left out when there is room for it.
 */
export function pendingLines(f: Frame, width: number, rows: number, selected?: number): string[] {
  if (f.pending.length === 0) return ["   nothing pending"];
  const from = selected === undefined ? 0 : Math.max(0, Math.min(selected - rows + 1, f.pending.length - rows));
  const lines: string[] = [];
  for (let i = from; i < Math.min(f.pending.length, from + rows); i++) lines.push(pendingRow(f, i, width, selected));
  return lines;
}

/** "PENDING (9)", or "PENDING (9, rows 1–4)" when not all fit. */
export function pendingTitle(f: Frame, rows: number, selected?: number): string {
  const n = f.pending.length;
  if (n <= rows) return `PENDING (${n})`;
  const from = selected === undefined ? 0 : Math.max(0, Math.min(selected - rows + 1, n - rows));
  return `PENDING (${n}, rows ${from + 1}–${from + rows})`;
}

// ---- space-time strip ---------------------------------------------------------------------

export interface StripOptions {
  /** Draw the clients' traffic too (their requests and replies). */
  clients: boolean;
  /** Show the strip up to this trace index (scrolled back in time); undefined: up to now. */
  until?: number;
}

const COL_WIDTH = 4;

/** The strip's title line: "SPACE-TIME" over the time column (and its space), then one column per node. */
export function stripTitle(f: Frame, width: number): string {
  return fit(`${padEnd("SPACE-TIME", TIME_WIDTH + 2)}${f.nodes.map((n) => n.id.padEnd(COL_WIDTH)).join("")}`, width);
}

/**
 * The space-time strip: one column per node, one row per recent delivery, loss, hold or
 * lifecycle event, the newest at the bottom; an arrow runs from sender (●) to receiver (▶ or
 * ◀ delivered, ✗ lost — to a crashed or cut receiver too —, ✂ held by a cut), labelled with the
 * book's name. Background traffic (heartbeats) is never drawn, clients' only on request.
 */
export function stripLines(f: Frame, width: number, rows: number, o: StripOptions = { clients: false }): string[] {
  if (rows <= 0) return [];
  const cols = f.nodes.map((n) => n.id);
  const events = f.recent.filter((r) => (o.until === undefined || r.event.index <= o.until) && stripWorthy(r, o.clients)).slice(-rows);
  return events.map((r) => fit(stripRow(r, cols, f.stepFrom), width));
}

function stripWorthy(r: RecentEvent, clients: boolean): boolean {
  const k = r.event.kind;
  if (k === "deliver" || k === "drop" || k === "hold") return r.book !== undefined ? r.traffic === "protocol" || (clients && r.traffic === "client") : clients && r.traffic === "client";
  return k === "crash" || k === "restart" || (k === "start" && r.event.atUs > 0) || k === "pause" || k === "resume";
}

function stripRow(r: RecentEvent, cols: string[], stepFrom: number): string {
  const e = r.event;
  const line = cols.map(() => [..."│".padEnd(COL_WIDTH)]);
  const at = (node: string) => cols.indexOf(node);
  let label: string;
  if (e.kind === "deliver" || e.kind === "drop" || e.kind === "hold") {
    const from = at(e.peer ?? "");
    const to = at(e.node);
    const lo = Math.min(from, to);
    const hi = Math.max(from, to);
    if (from >= 0 && to >= 0) {
      for (let c = lo; c <= hi; c++) for (let k = c === lo ? 1 : 0; k < COL_WIDTH && !(c === hi && k > 0); k++) line[c]![k] = "─";
      line[from]![0] = "●";
      line[to]![0] = e.kind === "deliver" ? (to > from ? "▶" : "◀") : e.kind === "hold" ? "✂" : "✗";
    }
    const name = r.book ?? (e.kind === "drop" ? "a message" : (e.detail ?? "?"));
    label = `${name}${e.kind === "drop" ? ` lost${e.detail === "receiver-down" ? " (receiver down)" : e.detail === "partition" ? " (cut)" : ""}` : e.kind === "hold" ? " held" : ""}`;
  } else {
    const c = at(e.node);
    if (c >= 0) line[c]![0] = e.kind === "crash" ? "✖" : e.kind === "pause" ? "‖" : "●";
    label = e.kind;
  }
  const mark = e.index >= stepFrom ? "›" : " ";
  return `${mark}${ms(e.atUs).padStart(TIME_WIDTH)} ${line.map((l) => l.join("")).join("")} ${label}`;
}

// ---- narration ----------------------------------------------------------------------------

/** One narration line to show: an event's, or the engine's word on a violation or the goal. */
export interface NarrationEntry {
  /** The trace index it belongs to (a violation or the goal: the event where it happened). */
  index: number;
  atUs: number;
  text: string;
  decisive: boolean;
  /** Identical lines in a row, shown once ("× 7"). */
  count: number;
}

/**
 * The narration of the recent events up to trace index `until` (all when undefined), oldest
 * first: identical lines in a row collapsed into one ("×7"); a violation and the goal reached
 * told where they happened, as decisive lines.
 */
export function narrationEntries(f: Frame, until?: number): NarrationEntry[] {
  const out: NarrationEntry[] = [];
  const notes = engineNotes(f);
  const push = (e: Omit<NarrationEntry, "count">) => {
    const last = out[out.length - 1];
    if (last !== undefined && last.text === e.text) {
      last.count++;
      last.index = e.index;
      last.atUs = e.atUs;
      return;
    }
    out.push({ ...e, count: 1 });
  };
  let n = 0;
  for (const r of f.recent) {
    const i = r.event.index;
    if (until !== undefined && i > until) break;
    while (n < notes.length && notes[n]!.index < i) push(notes[n++]!);
    if (r.narration !== undefined) push({ index: i, atUs: r.event.atUs, text: r.narration, decisive: r.decisive });
  }
  while (n < notes.length && (until === undefined || notes[n]!.index <= until)) push(notes[n++]!);
  return out;
}

/** The violations and the goal reached, at the events where they happened (among the recent ones). */
function engineNotes(f: Frame): Omit<NarrationEntry, "count">[] {
  const first = f.recent[0]?.event.index ?? Infinity;
  const atUs = (index: number) => f.recent.find((r) => r.event.index >= index)?.event.atUs ?? f.nowUs;
  const notes: Omit<NarrationEntry, "count">[] = [];
  for (const v of f.verdicts) {
    if (v.ok || v.eventIndex === undefined || v.eventIndex < first) continue;
    notes.push({ index: v.eventIndex, atUs: atUs(v.eventIndex), text: `✗ ${v.checker} breaks here (event ${v.eventIndex}): ${v.message ?? ""}`, decisive: true });
  }
  const g = f.goal;
  if (g?.reached === true && g.reachedAt !== undefined && g.reachedAt >= first) notes.push({ index: g.reachedAt, atUs: atUs(g.reachedAt), text: "✓ GOAL REACHED here", decisive: true });
  return notes.sort((a, b) => a.index - b.index);
}

function entryPrefix(e: NarrationEntry, stepFrom: number): string {
  return `${e.index >= stepFrom ? "›" : " "}${e.decisive ? "◆" : " "}${ms(e.atUs).padStart(TIME_WIDTH)} `;
}

function entryText(e: NarrationEntry): string {
  return e.count > 1 ? `${e.text} ×${e.count}` : e.text;
}

const NARRATION_INDENT = " ".repeat(TIME_WIDTH + 3);

/** An entry wrapped whole (what the last step did, what plain mode prints). */
export function entryLines(e: NarrationEntry, width: number, stepFrom: number): string[] {
  return wrap(`${entryPrefix(e, stepFrom)}${entryText(e)}`, width, NARRATION_INDENT);
}

export interface NarrationView {
  lines: string[];
  /** The last decisive line scrolled out of view, shown first. */
  pinned: boolean;
  /** The trace index of the newest entry shown (the strip is drawn up to it); undefined: none. */
  until: number | undefined;
  /** Entries in all (how far back the learner can scroll). */
  entries: number;
}

/**
 * The narration in `rows` lines, ending `scroll` entries before the newest: the entries of the
 * last step and the one at the bottom whole (wrapped), older ones a line each; when the last
 * decisive entry is above the window, it is pinned on the first line.
 */
export function narrationView(f: Frame, width: number, rows: number, scroll = 0, until?: number): NarrationView {
  const entries = narrationEntries(f, until);
  const end = Math.max(0, entries.length - scroll);
  const lines: string[] = [];
  let i = end - 1;
  for (; i >= 0; i--) {
    const e = entries[i]!;
    const whole = i === end - 1 || e.index >= f.stepFrom;
    const mine = whole ? entryLines(e, width, f.stepFrom) : [fit(`${entryPrefix(e, f.stepFrom)}${entryText(e)}`, width)];
    if (lines.length + mine.length > rows) {
      if (lines.length === 0) lines.unshift(...mine.slice(0, rows)); // a long entry alone: its start
      break;
    }
    lines.unshift(...mine);
  }
  const firstShown = i + 1;
  const view = { until: entries[end - 1]?.index, entries: entries.length };
  const pinnedEntry = entries.slice(0, firstShown).reverse().find((e) => e.decisive);
  if (pinnedEntry === undefined || rows < 2) return { ...view, lines, pinned: false };
  if (lines.length >= rows) lines.shift();
  lines.unshift(fit(`${entryPrefix(pinnedEntry, f.stepFrom)}${entryText(pinnedEntry)}`, width));
  return { ...view, lines, pinned: true };
}

/** Narration of the events since the last step began: what plain mode prints after a command. */
export function newNarration(f: Frame, width: number): string[] {
  return narrationEntries(f)
    .filter((e) => e.index >= f.stepFrom)
    .flatMap((e) => wrap(`  ${entryPrefix(e, Infinity).slice(1)}${entryText(e)}`, width, `  ${NARRATION_INDENT}`));
}

// ---- invariants and goal ------------------------------------------------------------------

export function verdictLines(f: Frame, width: number, wrapped = false): string[] {
  const bad = f.verdicts.filter((v) => !v.ok);
  const good = f.verdicts.length - bad.length;
  const head = `✓ ${good} of ${f.verdicts.length} invariants hold${bad.length === 0 ? "" : `; ✗ ${bad.length} violated`}`;
  const lines = [fit(head, width)];
  for (const v of bad) {
    const line = `✗ ${v.checker} (event ${v.eventIndex}): ${v.message}`;
    lines.push(...(wrapped ? wrap(line, width, "    ") : [fit(line, width)]));
  }
  return lines;
}

/** The lesson's goal, wrapped: never cut. */
export function goalLines(f: Frame, width: number): string[] {
  if (f.goal === undefined) return [];
  return wrap(`${f.goal.reached ? "✓ GOAL REACHED" : "○ GOAL"}: ${f.goal.text}`, width, "  ");
}

export interface FrameTextOptions {
  before?: Frame;
  keyFields?: readonly string[];
}

/** The whole frame as plain text (plain mode's `show`, golden transcripts, docs): every line wrapped, nothing cut that teaches. */
export function frameText(f: Frame, width = 100, o: FrameTextOptions = {}): string[] {
  const entries = narrationEntries(f).slice(-8);
  return [
    headerLine(f, width),
    "NODES",
    ...nodeLines(f, width, o),
    ...panelLines(f, width),
    pendingTitle(f, 12),
    ...pendingLines(f, width, 12),
    ...(f.pending.length > 12 ? [`   … ${f.pending.length - 12} more (later ones)`] : []),
    stripTitle(f, width),
    ...stripLines(f, width, 8),
    "NARRATION",
    ...entries.flatMap((e) => entryLines(e, width, f.stepFrom)),
    "INVARIANTS",
    ...verdictLines(f, width, true),
    ...goalLines(f, width),
  ];
}
