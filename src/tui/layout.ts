/**
 * How many rows each section gets in a terminal of `rows` × `columns`: never more than
 * rows − 1 in all (a full-height frame flickers on ink 6.8), at least an 80×24 screen's worth,
 * and the extra space, when there is more, to the pending list, the strip and the narration.
 * Wide terminals (≥ 140 columns) put the pending list and the strip side by side. A protocol's
 * own pane (`panelWanted` lines with its title) is shown whole; where that leaves the other
 * sections less than their minimum (80×24 with five or six nodes), the pane takes the
 * space-time strip's place (strip 0: not drawn).
 */
export interface Layout {
  width: number;
  nodes: number;
  pending: number;
  strip: number;
  narration: number;
  sideBySide: boolean;
  /** Lines of the protocol's own pane, its title included (0: none). */
  panel: number;
}

/** Lines outside the sections: header, 3 section titles, invariants, goal, 2 status lines. */
const FIXED = 8;
/** The fewest lines the pending list, the strip and the narration need (with their extra lines). */
const SECTIONS_MIN = 8;

export function layout(rows: number, columns: number, nodeCount: number, violations: number, panelWanted = 0): Layout {
  const height = Math.max(23, rows - 1);
  const width = Math.max(80, columns);
  const sideBySide = width >= 140;
  const nodes = nodeCount;
  const room = height - FIXED - nodes - Math.min(violations, 3);
  const panel = panelWanted;
  if (panel > 0 && !sideBySide && room - panel < SECTIONS_MIN) {
    const rest = room + 1 - panel; // the strip's title line is free too
    const pending = Math.max(2, Math.floor((rest - 1) / 2)); // − 1: the "… more" line
    return { width, nodes, pending, strip: 0, narration: Math.max(1, rest - pending - 1), sideBySide, panel };
  }
  const free = Math.max(6, room - panel);
  if (sideBySide) {
    const narration = Math.max(3, Math.floor(free * 0.4));
    const top = free - narration;
    return { width, nodes, pending: top, strip: top - 1, narration, sideBySide, panel };
  }
  const pending = Math.max(2, Math.floor(free * 0.4));
  const strip = Math.max(2, Math.floor(free * 0.3) - 1);
  const narration = Math.max(2, free - pending - strip - 2);
  return { width, nodes, pending, strip, narration, sideBySide, panel };
}
