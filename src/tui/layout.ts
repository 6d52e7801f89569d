/**
 * How many rows each section gets in a terminal of `rows` × `columns`: never more than
 * rows − 1 in all (a full-height frame flickers on ink 6.8), at least an 80×24 screen's worth,
 * and the extra space, when there is more, to the pending list, the strip and the narration.
 * Wide terminals (≥ 140 columns) put the pending list and the strip side by side.
 */
export interface Layout {
  width: number;
  nodes: number;
  pending: number;
  strip: number;
  narration: number;
  sideBySide: boolean;
}

/** Lines outside the sections: header, 3 section titles, invariants, goal, 2 status lines. */
const FIXED = 8;

export function layout(rows: number, columns: number, nodeCount: number, violations: number): Layout {
  const height = Math.max(23, rows - 1);
  const width = Math.max(80, columns);
  const sideBySide = width >= 140;
  const nodes = nodeCount;
  const free = Math.max(6, height - FIXED - nodes - Math.min(violations, 3));
  if (sideBySide) {
    const narration = Math.max(3, Math.floor(free * 0.4));
    const top = free - narration;
    return { width, nodes, pending: top, strip: top - 1, narration, sideBySide };
  }
  const pending = Math.max(2, Math.floor(free * 0.4));
  const strip = Math.max(2, Math.floor(free * 0.3) - 1);
  const narration = Math.max(2, free - pending - strip - 2);
  return { width, nodes, pending, strip, narration, sideBySide };
}
