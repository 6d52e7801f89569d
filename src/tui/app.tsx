/**
 * The ink app of `zksim learn`: a projection of the controller's state, redrawn when it
 * changes and on a steady tick while running. `q` (or ctrl-c) always quits; ink restores the
 * terminal on exit.
 */
import { useEffect, useState, useSyncExternalStore } from "react";
import { render, Text, useApp } from "ink";
import type { Session } from "../stepper/session.js";
import type { Lesson } from "./lessons/lesson.js";
import type { Controller } from "./controller.js";
import { controllerFor, type ControllerOptions } from "./app-controller.js";
import { useDriven, useTerminalSize } from "./use-screen.js";
import { Screen } from "./components/screen.js";
import { Help } from "./components/overlays.js";
import { Menu } from "./components/menu.js";
import type { MenuEntry, MenuGroup } from "./menu-lines.js";

export function App({ controller }: { controller: Controller }) {
  const view = useSyncExternalStore(
    (l) => controller.subscribe(l),
    () => controller.state,
  );
  const size = useTerminalSize();
  useDriven(controller, view);
  if (view.mode.kind === "help") return <Help size={size} lesson={controller.lessonLines} scroll={view.mode.scroll} />;
  return <Screen view={view} size={size} lesson={controller.lesson} />;
}

export interface AppOptions {
  /** The session to start with (a lesson, free play, a saved session); without one, the lessons menu comes first. */
  controller: Controller | undefined;
  /** The menu's lessons, by protocol. */
  groups: readonly MenuGroup[];
  /** The controllers the menu starts (their titles, the completed lessons, saving). */
  controllers: (protocol: string) => ControllerOptions;
  /** Starts a session of a lesson (or a protocol's free play). */
  start: (entry: MenuEntry) => Promise<Session>;
}

/** The menu or a session; L in a session comes back to the menu. */
export function Root({ o }: { o: AppOptions }) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const [controller, setController] = useState<Controller | undefined>(o.controller);
  const [loading, setLoading] = useState(false);
  const menu = useSyncExternalStore(
    (l) => controller?.subscribe(l) ?? (() => undefined),
    () => controller?.state.menu === true,
  );
  useEffect(() => {
    if (menu) setController(undefined);
  }, [menu]);
  if (controller !== undefined && !menu) return <App controller={controller} />;
  if (loading) return <Text>starting the run (until the world is ready: a leader elected, clients connected…)…</Text>;
  const pick = (entry: MenuEntry) => {
    setLoading(true);
    void o.start(entry).then((session) => {
      setController(controllerFor(o.controllers(entry.protocol), session, entry.lesson));
      setLoading(false);
    });
  };
  return <Menu groups={o.groups} completed={o.controllers(o.groups[0]?.protocol ?? "zab").completed} size={size} onQuit={exit} onPick={pick} />;
}

export async function runApp(o: AppOptions): Promise<number> {
  const instance = render(<Root o={o} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  return 0;
}

export type { Lesson };
