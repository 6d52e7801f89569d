/** The help screen (the key table itself) and the what-if confirmation. */
import { Box, Text } from "ink";
import { KEY_HELP } from "../keys.js";
import { COMMAND_HELP } from "../commands.js";
import { fit } from "../frame-text.js";

export function Help({ width, rows, lesson }: { width: number; rows: number; lesson: readonly string[] }) {
  // The keys always fit (80×24); the lesson's steps when there is room, else its idea alone.
  const head = rows - 3 >= lesson.length + KEY_HELP.length ? lesson : lesson.slice(0, 1);
  const lines = [...head, ...KEY_HELP.map(([k, what]) => `${k.padEnd(14)} ${what}`), "", "COMMANDS (after :)", ...COMMAND_HELP].slice(0, Math.max(5, rows - 3));
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>KEYS — ? or esc closes</Text>
      {lines.map((l, i) => (
        <Text key={i}>{fit(l, width)}</Text>
      ))}
    </Box>
  );
}

export function Confirm({ label, preview, width }: { label: string; preview: string[] | undefined; width: number }) {
  return (
    <Box flexDirection="column" width={width} borderStyle="single">
      <Text bold>{fit(`WHAT IF: ${label} now?`, width - 2)}</Text>
      {preview === undefined ? (
        <Text dimColor>running the fork ahead…</Text>
      ) : (
        preview.map((l, i) => (
          <Text key={i} color={l.startsWith("✗") ? "red" : l.startsWith("✓") ? "green" : undefined}>
            {fit(l, width - 2)}
          </Text>
        ))
      )}
      <Text>y / enter: apply · n / esc: cancel</Text>
    </Box>
  );
}
