/** The help screen: the lesson's idea and steps, the keys and the commands, scrolling when they do not fit. */
import { helpLines, type Size } from "../screen-lines.js";
import { Lines } from "./screen.js";

export function Help({ size, lesson, scroll }: { size: Size; lesson: readonly string[]; scroll: number }) {
  return <Lines lines={helpLines(lesson, scroll, size)} width={Math.max(80, size.columns)} />;
}
