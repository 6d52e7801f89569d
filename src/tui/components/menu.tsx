/**
 * The lessons menu (menu-lines.ts draws it): every lesson on offer with ✓ for the completed
 * ones, free play per protocol. ↑↓ choose, enter starts, q quits.
 */
import { useRef, useState } from "react";
import { useInput } from "ink";
import { menuEntries, menuLines, type MenuEntry, type MenuGroup } from "../menu-lines.js";
import type { Size } from "../screen-lines.js";
import { Lines } from "./screen.js";

export interface MenuProps {
  groups: readonly MenuGroup[];
  completed: ReadonlySet<string>;
  size: Size;
  onPick: (entry: MenuEntry) => void;
  onQuit: () => void;
}

export function Menu({ groups, completed, size, onPick, onQuit }: MenuProps) {
  const [selected, setSelected] = useState(0);
  // The key handler reads the ref: keys typed before a re-render must see the latest selection.
  const at = useRef(0);
  const entries = menuEntries(groups);
  const move = (delta: number) => {
    at.current = Math.max(0, Math.min(entries.length - 1, at.current + delta));
    setSelected(at.current);
  };
  useInput((input, key) => {
    if (input === "q" || (key.ctrl && input === "c")) return onQuit();
    if (key.upArrow) move(-1);
    if (key.downArrow) move(1);
    if (key.pageUp) move(-10);
    if (key.pageDown) move(10);
    if (key.return) onPick(entries[at.current]!);
  });
  return <Lines lines={menuLines(groups, selected, completed, size.rows, size.columns)} width={Math.max(80, size.columns)} />;
}
