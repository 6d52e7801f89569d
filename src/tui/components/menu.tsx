/**
 * The lessons menu: every lesson of the protocol with ✓ for the completed ones, the selected
 * one's idea and steps, and free play. ↑↓ choose, enter starts, q quits.
 */
import { useRef, useState } from "react";
import { Box, Text, useInput } from "ink";
import type { Lesson } from "../lessons/lesson.js";
import { fit } from "../frame-text.js";

export interface MenuProps {
  title: string;
  lessons: readonly Lesson[];
  completed: ReadonlySet<string>;
  width: number;
  onPick: (lesson: Lesson | undefined) => void;
  onQuit: () => void;
}

export function Menu({ title, lessons, completed, width, onPick, onQuit }: MenuProps) {
  const [selected, setSelected] = useState(0);
  // The key handler reads the ref: keys typed before a re-render must see the latest selection.
  const at = useRef(0);
  const rows = [...lessons.map((l) => ({ label: l.title, lesson: l as Lesson | undefined })), { label: "free play (no goal)", lesson: undefined }];
  const move = (delta: number) => {
    at.current = Math.max(0, Math.min(rows.length - 1, at.current + delta));
    setSelected(at.current);
  };
  useInput((input, key) => {
    if (input === "q" || (key.ctrl && input === "c")) return onQuit();
    if (key.upArrow) move(-1);
    if (key.downArrow) move(1);
    if (key.return) onPick(rows[at.current]!.lesson);
  });
  const chosen = rows[selected]!.lesson;
  return (
    <Box flexDirection="column" width={width}>
      <Text bold color="blue">
        {fit(`zksim learn — ${title}`, width)}
      </Text>
      <Text>{fit("Choose a lesson: ↑↓ select · enter start · q quit (in a lesson, ? shows the keys, L comes back here)", width)}</Text>
      <Text> </Text>
      {rows.map((r, i) => {
        const done = r.lesson !== undefined && completed.has(`${r.lesson.protocol}/${r.lesson.name}`);
        return (
          <Text key={i} inverse={i === selected}>
            {fit(`${done ? "✓" : " "} ${r.label}${r.lesson !== undefined ? `  (${r.lesson.name})` : ""}`, width)}
          </Text>
        );
      })}
      <Text> </Text>
      {chosen !== undefined ? (
        <>
          <Text bold>{fit(chosen.idea, width)}</Text>
          {chosen.intro.map((line, i) => (
            <Text key={i}>{fit(`• ${line}`, width)}</Text>
          ))}
        </>
      ) : (
        <Text>{fit("Step, crash, partition and write as you like; the invariants panel judges every step.", width)}</Text>
      )}
    </Box>
  );
}
