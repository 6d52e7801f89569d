/**
 * The ink app of `zksim learn`: a projection of the controller's state, redrawn when it
 * changes and on a steady tick while running. `q` (or ctrl-c) always quits; ink restores the
 * terminal on exit.
 */
import { useEffect, useState, useSyncExternalStore } from "react";
import { render, useApp, useInput, useStdout } from "ink";
import type { Session } from "../scenario/stepper/session.js";
import type { Lesson } from "./lessons/lesson.js";
import { Controller, TICK_MS } from "./controller.js";
import { keyIntent, splitKeys } from "./keys.js";
import { layout } from "./layout.js";
import { Screen } from "./components/screen.js";
import { Help } from "./components/overlays.js";

export function App({ controller }: { controller: Controller }) {
  const view = useSyncExternalStore(
    (l) => controller.subscribe(l),
    () => controller.state,
  );
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ rows: stdout.rows ?? 24, columns: stdout.columns ?? 80 });
  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows ?? 24, columns: stdout.columns ?? 80 });
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  useInput((input, key) => {
    for (const [one, info] of splitKeys(input, key)) {
      const intent = keyIntent(one, info, controller.state.mode);
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
  const violations = view.frame.verdicts.filter((v) => !v.ok).length;
  const lay = layout(size.rows, size.columns, view.frame.nodes.length, violations);
  if (view.mode.kind === "help") return <Help width={lay.width} rows={size.rows - 1} />;
  return <Screen view={view} lay={lay} />;
}

export interface AppOptions {
  session: Session;
  lesson: Lesson | undefined;
  adapterTitle: string;
  completed: ReadonlySet<string>;
  onGoal: (lesson: Lesson) => void;
  save: (file: string) => void;
}

export function introMessage(o: Pick<AppOptions, "lesson" | "adapterTitle" | "completed">): string {
  if (o.lesson === undefined) return `${o.adapterTitle} — ? for keys; zksim learn --lessons lists the lessons`;
  const done = o.completed.has(`${o.lesson.protocol}/${o.lesson.name}`) ? " (completed before)" : "";
  return `LESSON ${o.lesson.title}${done}: ${o.lesson.intro[0] ?? o.lesson.idea} — ? for keys`;
}

export async function runApp(o: AppOptions): Promise<number> {
  const lesson = o.lesson;
  const controller = new Controller(o.session, () => lesson !== undefined && o.onGoal(lesson), o.save, introMessage(o));
  const instance = render(<App controller={controller} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  return 0;
}
