/**
 * Drives an ink app under ink-testing-library by events, not wall-clock sleeps. ink reads a key
 * written to the app's stdin at once and hands it to the controller (useInput); `settle` then
 * waits until the controller's queue is drained and React has committed a render of the
 * controller's latest state. A probe beside the app subscribes to the same store; ink writes the
 * frame during the commit (ink-testing-library renders in debug mode: unthrottled), before the
 * probe's layout effect runs, so when the probe has seen the latest state, `lastFrame()` shows it.
 */
import { useLayoutEffect, useSyncExternalStore, type ReactElement } from "react";
import { render } from "ink-testing-library";

/** What both learn controllers (Controller, CompareController) offer the screen. */
export interface DrivenStore<S> {
  readonly state: S;
  subscribe(listener: () => void): () => void;
  /** Resolves when every queued intent is done. */
  idle(): Promise<void>;
}

export interface DrivenApp {
  ui: ReturnType<typeof render>;
  /** Waits for the controller's work and the frame of its latest state. */
  settle(): Promise<void>;
  /** Writes one key (or chunk) to the app, then settles. */
  press(keys: string): Promise<void>;
}

export async function renderDriven<S>(app: ReactElement, controller: DrivenStore<S>): Promise<DrivenApp> {
  let rendered: S | undefined;
  let wake: (() => void) | undefined;
  function Probe() {
    const view = useSyncExternalStore((l) => controller.subscribe(l), () => controller.state);
    useLayoutEffect(() => {
      rendered = view;
      wake?.();
    });
    return null;
  }
  const ui = render(
    <>
      {app}
      <Probe />
    </>,
  );
  const settle = async (): Promise<void> => {
    // A lone escape key is held by ink's input parser until the next turn of the event loop.
    await new Promise((r) => setImmediate(r));
    for (;;) {
      const queue = controller.idle();
      await queue;
      if (controller.idle() !== queue) continue; // more work was queued meanwhile
      if (rendered === controller.state) return;
      await new Promise<void>((r) => (wake = r));
    }
  };
  const press = async (keys: string): Promise<void> => {
    ui.stdin.write(keys);
    await settle();
  };
  await settle();
  return { ui, settle, press };
}
