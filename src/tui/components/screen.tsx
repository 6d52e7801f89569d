/**
 * The main screen: the styled lines of screen-lines.ts, one <Text> each. A projection of the
 * controller's `ViewState`; the same lines are the first frame drawn before ink is loaded.
 */
import { Box, Text } from "ink";
import type { ViewState } from "../controller.js";
import type { Lesson } from "../lessons/lesson.js";
import { screenLines, type Size, type Styled } from "../screen-lines.js";

export function Lines({ lines, width }: { lines: readonly Styled[]; width: number }) {
  return (
    <Box flexDirection="column" width={width}>
      {lines.map((l, i) => (
        <Text key={i} {...(l.color !== undefined ? { color: l.color } : {})} bold={l.bold === true} dimColor={l.dim === true} inverse={l.inverse === true}>
          {l.text}
        </Text>
      ))}
    </Box>
  );
}

export function Screen({ view, size, lesson }: { view: ViewState; size: Size; lesson: Lesson | undefined }) {
  return <Lines lines={screenLines(view, size, lesson)} width={Math.max(80, size.columns)} />;
}
