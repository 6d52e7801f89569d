/**
 * The lessons menu as styled lines (pure): every lesson of the protocols on offer, grouped by
 * protocol, ✓ for the completed ones, free play last in each group; the selected row marked
 * ">" (and inverse); the list scrolls to keep the selection in view; below it, the selected
 * lesson's idea and steps, wrapped. The ink menu draws these lines, and so does the first frame
 * written before ink is loaded.
 */
import type { Lesson } from "./lessons/lesson.js";
import type { Styled } from "./screen-lines.js";
import { fit, wrap } from "./text.js";

/** One row of the menu: a lesson, or free play of a protocol. */
export interface MenuEntry {
  protocol: string;
  lesson: Lesson | undefined;
}

export interface MenuGroup {
  protocol: string;
  title: string;
  lessons: readonly Lesson[];
}

export function menuEntries(groups: readonly MenuGroup[]): MenuEntry[] {
  return groups.flatMap((g) => [...g.lessons.map((lesson) => ({ protocol: g.protocol, lesson })), { protocol: g.protocol, lesson: undefined }]);
}

export const lessonKey = (l: Lesson) => `${l.protocol}/${l.name}`;

export function menuLines(groups: readonly MenuGroup[], selected: number, completed: ReadonlySet<string>, rows: number, columns: number): Styled[] {
  const width = Math.max(80, columns);
  const entries = menuEntries(groups);
  const chosen = entries[selected];
  const about = chosen?.lesson !== undefined ? [chosen.lesson.idea, ...chosen.lesson.intro.map((l) => `• ${l}`)] : ["Step, crash, partition and write as you like; the invariants panel judges every step."];
  const aboutLines = about.flatMap((l) => wrap(l, width, "  "));
  const head: Styled[] = [
    { text: fit(groups.length === 1 ? `zksim learn — ${groups[0]!.title}` : "zksim learn — every protocol's lessons", width), color: "blue", bold: true },
    { text: fit("Choose a lesson: ↑↓ select · enter start · q quit (in a lesson: ? keys, L this menu)", width) },
  ];
  // The list: a header line per protocol, then its rows; a window around the selection.
  const list: { text: string; entry: number | undefined }[] = [];
  let n = 0;
  for (const g of groups) {
    if (groups.length > 1) list.push({ text: fit(`${g.protocol.toUpperCase()} — ${g.title}`, width), entry: undefined });
    for (const l of [...g.lessons, undefined]) {
      const done = l !== undefined && completed.has(lessonKey(l));
      const label = l === undefined ? "free play (no goal)" : `${l.title}  (${l.name})`;
      list.push({ text: fit(`${n === selected ? ">" : " "} ${done ? "✓" : " "} ${label}`, width), entry: n });
      n++;
    }
  }
  const room = Math.max(4, Math.max(23, rows - 1) - head.length - 1 - Math.min(aboutLines.length, 8));
  const at = list.findIndex((x) => x.entry === selected);
  const from = Math.max(0, Math.min(at - Math.floor(room / 2), list.length - room));
  const shown = list.slice(from, from + room);
  const out: Styled[] = [...head];
  shown.forEach((x, i) => {
    const more = (i === 0 && from > 0) || (i === shown.length - 1 && from + room < list.length);
    const text = more && x.entry !== selected ? fit(`${x.text.padEnd(60)}${i === 0 ? "  ↑ more" : "  ↓ more"}`, width) : x.text;
    out.push({ text, inverse: x.entry === selected, bold: x.entry === undefined });
  });
  out.push({ text: "" });
  aboutLines.slice(0, Math.max(23, rows - 1) - out.length).forEach((text, i) => out.push({ text, bold: i === 0 && chosen?.lesson !== undefined }));
  return out;
}
