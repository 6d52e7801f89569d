/**
 * The compare screen of `zksim learn compare 2pc 3pc`: the two runs' panes (header, nodes,
 * narration, invariants, where the participants stand), stacked in an 80-column terminal and
 * side by side from 160 columns; one status line and the keys. A projection of the compare
 * controller; `q` always quits and ink restores the terminal.
 */
import { useSyncExternalStore } from "react";
import { Box, render, Text } from "ink";
import { fit } from "../frame-text.js";
import { useDriven, useTerminalSize } from "../use-screen.js";
import type { CompareSession } from "./compare-session.js";
import { CompareController, type CompareView } from "./compare-controller.js";
import { COMPARE_HELP, paneLines } from "./compare-text.js";
import { hintsLine, wrap } from "../text.js";

/** Columns between the two panes side by side. */
const GAP = 3;
const KEYS = "→ step both · ← back · space run · tab node · c crash · r restart · i isolate · h heal · w txn · : command · q quit";
/** The keys the bottom line leaves out first when it is narrow (? lists them all). */
const SPARE_KEYS = ["w txn", "h heal", "i isolate", "r restart", "tab node", ": command", "space run", "← back"];

export function CompareScreen({ view, rows, columns }: { view: CompareView; rows: number; columns: number }) {
  const width = Math.max(80, columns);
  const sideBySide = width >= 160;
  // Side by side, the panes keep a gap of GAP columns between them at every width.
  const paneWidth = sideBySide ? Math.floor((width - GAP) / 2) : width;
  const nodes = view.frames[0].nodes.length;
  // A pane: header, nodes, narration, the invariants' tally, the standing; 2 lines are the status.
  const narration = Math.max(1, sideBySide ? rows - 2 - nodes - 3 : Math.floor((rows - 2) / 2) - nodes - 3);
  if (view.mode.kind === "help") {
    return (
      <Box flexDirection="column" width={width}>
        <Text bold>KEYS — ? or esc closes</Text>
        {[...wrap(KEYS, width, "  "), "", ...COMPARE_HELP.flatMap((l) => wrap(l, width, "    "))].map((l, i) => (
          <Text key={i}>{fit(l, width)}</Text>
        ))}
      </Box>
    );
  }
  const panes = view.frames.map((f, p) => (
    <Box key={p} flexDirection="column" width={paneWidth}>
      {paneLines(f, paneWidth, narration, 1).map((line, i) => (
        <Text key={i} bold={i === 0} color={i === 0 ? "blue" : line.startsWith("✗") || line.includes("· ✗") ? "red" : undefined} inverse={i === view.node + 1}>
          {line}
        </Text>
      ))}
    </Box>
  ));
  const status = view.mode.kind === "command" ? `:${view.mode.text}▏  (enter run · esc cancel)` : view.message;
  return (
    <Box flexDirection="column" width={width}>
      {sideBySide ? (
        <Box flexDirection="row" columnGap={GAP}>
          {panes}
        </Box>
      ) : (
        panes
      )}
      <Text>{fit(status, width)}</Text>
      <Text dimColor>{hintsLine([view.running ? "▶ running" : "‖ paused", `joint step ${view.step}`, ...KEYS.split(" · "), "? keys"], SPARE_KEYS, width)}</Text>
    </Box>
  );
}

export function CompareApp({ controller }: { controller: CompareController }) {
  const view = useSyncExternalStore(
    (l) => controller.subscribe(l),
    () => controller.state,
  );
  const size = useTerminalSize();
  useDriven(controller, view);
  return <CompareScreen view={view} rows={Math.max(23, size.rows - 1)} columns={size.columns} />;
}

export async function runCompareApp(compare: CompareSession): Promise<number> {
  const instance = render(<CompareApp controller={new CompareController(compare)} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  return 0;
}
