/**
 * How many rows each section gets in a terminal of `rows` × `columns`: never more than
 * rows − 1 in all (a full-height frame flickers on ink 6.8), at least an 80×24 screen's worth.
 *
 * Fixed: the header, the invariants (and up to three violations), the goal (wrapped, never
 * cut) and the two status lines. Then the nodes: one row each, or wrapped onto continuation
 * lines when the terminal is tall enough to keep every section at a useful size. Then the
 * protocol's own pane, shown whole. What is left goes to the pending list, the space-time strip
 * and the narration (each a title line and rows), or — while a box is up (the lesson, the goal
 * reached, a question) — to the box, above a shortened pending list. Taller terminals give
 * every section more rows; wide ones (≥ 140 columns) put the pending list and the strip side
 * by side. Where the protocol's pane leaves the sections less than their minimum (80×24 with
 * five or six nodes), the pane takes the strip's place (strip 0: not drawn).
 */
export interface LayoutInput {
  rows: number;
  columns: number;
  /** Node rows, one line each. */
  nodes: number;
  /** Node rows wrapped, nothing left out. */
  nodesWrapped: number;
  /** Lines of the protocol's own pane, its title included (0: none). */
  panel: number;
  violations: number;
  /** Lines the goal takes, wrapped (0: no lesson). */
  goal: number;
  /** Lines of the box shown, its title included (0: none). */
  box: number;
}

export interface Layout {
  width: number;
  height: number;
  /** Node rows wrapped onto continuation lines. */
  wrapNodes: boolean;
  /** Rows of each section, its title line not counted (0: not drawn). */
  pending: number;
  strip: number;
  narration: number;
  /** Lines of the box (title included). */
  box: number;
  sideBySide: boolean;
  panel: number;
}

/** Rows the three sections need at least: 2 each, and their titles. */
const SECTIONS_MIN = 9;
/** Rows the sections keep before node rows may wrap. */
const SECTIONS_BEFORE_WRAP = 17;

export function layout(i: LayoutInput): Layout {
  const height = Math.max(23, i.rows - 1);
  const width = Math.max(80, i.columns);
  const sideBySide = width >= 140;
  const fixed = 1 + 1 + Math.min(i.violations, 3) + i.goal + 2;
  const roomFlat = height - fixed - i.nodes - i.panel;
  const wrapNodes = i.nodesWrapped > i.nodes && roomFlat - (i.nodesWrapped - i.nodes) >= SECTIONS_BEFORE_WRAP;
  const room = wrapNodes ? roomFlat - (i.nodesWrapped - i.nodes) : roomFlat;
  const base = { width, height, wrapNodes, sideBySide, panel: i.panel };
  if (i.box > 0) {
    const box = Math.max(3, Math.min(i.box, room - 2));
    return { ...base, box, pending: Math.max(1, room - box - 1), strip: 0, narration: 0 };
  }
  if (sideBySide) {
    const free = Math.max(6, room);
    const narration = Math.max(2, Math.floor(free * 0.4) - 1);
    const top = free - narration - 1;
    return { ...base, box: 0, pending: top - 1, strip: top - 1, narration };
  }
  if (room < SECTIONS_MIN) {
    // The protocol's pane (or many nodes) took the strip's room: pending and narration share the rest.
    const rest = Math.max(4, room - 2);
    const pending = Math.max(1, Math.floor(rest / 2));
    return { ...base, box: 0, pending, strip: 0, narration: Math.max(1, rest - pending) };
  }
  const extra = room - SECTIONS_MIN;
  const strip = 2 + Math.floor(extra * 0.3);
  const pending = 2 + Math.floor(extra * 0.25);
  return { ...base, box: 0, pending, strip, narration: room - 3 - pending - strip };
}
