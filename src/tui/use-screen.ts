/**
 * The hooks both ink screens share: the terminal's size (following resizes), keys read one at
 * a time into intents for a controller, leaving when it says quit, and the run tick.
 */
import { useEffect, useState } from "react";
import { useApp, useInput, useStdout } from "ink";
import { keyIntent, splitKeys, type Intent } from "./keys.js";
import { TICK_MS, type Mode } from "./controller.js";
import type { Box } from "./boxes.js";

export interface Driven {
  state: { mode: Mode; quit: boolean; running: boolean; box?: Box | undefined };
  dispatch(intent: Intent): Promise<void>;
  tick(): Promise<void>;
}

export function useTerminalSize(): { rows: number; columns: number } {
  const { stdout } = useStdout();
  const [size, setSize] = useState({ rows: stdout.rows ?? 24, columns: stdout.columns ?? 80 });
  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows ?? 24, columns: stdout.columns ?? 80 });
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return size;
}

/** Keys to the controller, quit on its word, and a tick every TICK_MS while it runs. */
export function useDriven(controller: Driven, view: { quit: boolean; running: boolean }): void {
  const { exit } = useApp();
  useInput((input, key) => {
    for (const [one, info] of splitKeys(input, key)) {
      const intent = keyIntent(one, info, controller.state.mode, controller.state.box);
      if (intent !== undefined) void controller.dispatch(intent);
    }
  });
  useEffect(() => {
    if (view.quit) exit();
  }, [view.quit, exit]);
  useEffect(() => {
    if (!view.running) return;
    const timer = setInterval(() => void controller.tick(), TICK_MS);
    return () => clearInterval(timer);
  }, [view.running, controller]);
}
