/**
 * The main screen: header, nodes, pending events, space-time strip, narration, invariants,
 * goal and status line. A projection of the controller's `ViewState`: it draws the same lines
 * plain mode prints (frame-text.ts), with colour added — never colour alone.
 */
import { Box, Text } from "ink";
import type { ViewState } from "../controller.js";
import { SPEEDS } from "../controller.js";
import { fit, goalLines, headerLine, narrationLines, nodeLines, panelLines, pendingLines, stripLines, verdictLines } from "../frame-text.js";
import type { Layout } from "../layout.js";
import { Confirm } from "./overlays.js";

const ROLE_COLOR: Record<string, string> = { leader: "green", follower: "cyan", looking: "yellow", down: "red", client: "magenta" };

export function Screen({ view, lay }: { view: ViewState; lay: Layout }) {
  const f = view.frame;
  const half = lay.sideBySide ? Math.floor(lay.width / 2) - 1 : lay.width;
  const pending = pendingLines(f, half, lay.pending);
  const strip = stripLines(f, half, lay.strip);
  const lists = (
    <>
      <Box flexDirection="column" width={half}>
        <Text bold>PENDING ({f.pending.length}) — ↑↓ select · enter deliver/fire</Text>
        {pending.map((line, i) => (
          <Text key={i} inverse={i === view.selected && view.mode.kind === "normal"} color={line.includes("✂") ? "yellow" : undefined}>
            {line}
          </Text>
        ))}
      </Box>
      {lay.strip > 0 && (
        <Box flexDirection="column" width={half}>
          <Text bold>SPACE-TIME</Text>
          {strip.map((line, i) => (
            <Text key={i} dimColor={!line.startsWith("›") && i > 0}>
              {line}
            </Text>
          ))}
        </Box>
      )}
    </>
  );
  return (
    <Box flexDirection="column" width={lay.width}>
      <Text bold color="blue">
        {headerLine(f, lay.width)}
      </Text>
      {nodeLines(f, lay.width).map((line, i) => (
        <Text key={i} color={ROLE_COLOR[f.nodes[i]!.role]} inverse={i === view.node}>
          {line}
        </Text>
      ))}
      {panelLines(f, lay.width).map((line, i) => (
        <Text key={i} bold={i === 0}>
          {line}
        </Text>
      ))}
      {lay.sideBySide ? <Box flexDirection="row">{lists}</Box> : lists}
      {view.mode.kind === "confirm" ? (
        <Confirm label={view.mode.label} preview={view.mode.preview} width={lay.width} />
      ) : (
        <>
          <Text bold>NARRATION</Text>
          {narrationLines(f, lay.width, lay.narration).map((line, i) => (
            <Text key={i} dimColor={!line.startsWith("›")}>
              {line}
            </Text>
          ))}
        </>
      )}
      {verdictLines(f, lay.width).slice(0, 4).map((line, i) => (
        <Text key={i} color={line.startsWith("✗") || line.includes("✗") ? "red" : "green"}>
          {line}
        </Text>
      ))}
      {goalLines(f, lay.width).map((line, i) => (
        <Text key={i} color={f.goal?.reached === true ? "green" : "yellow"}>
          {line}
        </Text>
      ))}
      <StatusLine view={view} width={lay.width} />
    </Box>
  );
}

function StatusLine({ view, width }: { view: ViewState; width: number }) {
  const mode = view.mode;
  if (mode.kind === "command") return <Text>{fit(`:${mode.text}▏  (enter run · esc cancel)`, width)}</Text>;
  const state = view.running ? `▶ running ×${SPEEDS[view.speed]}` : "‖ paused";
  return (
    <>
      <Text>{fit(view.message, width)}</Text>
      <Text dimColor>{fit(`${state} · space run · → step · ← back · c crash · : command · ? help · q quit`, width)}</Text>
    </>
  );
}
