/**
 * The ink app of `zksim learn`: a projection of the controller's state, redrawn when it
 * changes and on a steady tick while running. `q` (or ctrl-c) always quits; ink restores the
 * terminal on exit.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { render, Text, useApp, useStdout } from "ink";
import type { Session } from "../stepper/session.js";
import type { Lesson } from "./lessons/lesson.js";
import { Controller } from "./controller.js";
import { useDriven, useTerminalSize } from "./use-screen.js";
import { layout } from "./layout.js";
import { Screen } from "./components/screen.js";
import { Help } from "./components/overlays.js";
import { Menu } from "./components/menu.js";

export function App({ controller }: { controller: Controller }) {
  const view = useSyncExternalStore(
    (l) => controller.subscribe(l),
    () => controller.state,
  );
  const size = useTerminalSize();
  useDriven(controller, view);
  const violations = view.frame.verdicts.filter((v) => !v.ok).length;
  const panelRows = view.frame.panel !== undefined ? view.frame.panel.lines.length + 1 : 0;
  const lay = layout(size.rows, size.columns, view.frame.nodes.length, violations, panelRows);
  if (view.mode.kind === "help") return <Help width={lay.width} rows={size.rows - 1} lesson={controller.lessonLines} />;
  return <Screen view={view} lay={lay} />;
}

export interface AppOptions {
  /** The session to start with; without one, the lessons menu comes first. */
  session: Session | undefined;
  lesson: Lesson | undefined;
  lessons: readonly Lesson[];
  adapterTitle: string;
  completed: ReadonlySet<string>;
  onGoal: (lesson: Lesson) => void;
  save: (file: string) => void;
  /** Starts a session of a lesson (or free play). */
  start: (lesson: Lesson | undefined) => Promise<Session>;
}

export function introMessage(o: Pick<AppOptions, "lesson" | "adapterTitle" | "completed">): string {
  if (o.lesson === undefined) return `${o.adapterTitle} — ? for keys; zksim learn --lessons lists the lessons`;
  const done = o.completed.has(`${o.lesson.protocol}/${o.lesson.name}`) ? " (completed before)" : "";
  return `LESSON ${o.lesson.title}${done}: ${o.lesson.intro[0] ?? o.lesson.idea} — ? for keys`;
}

function controllerFor(o: AppOptions, session: Session, lesson: Lesson | undefined, completed: Set<string>): Controller {
  const onGoal = () => {
    if (lesson === undefined) return;
    completed.add(`${lesson.protocol}/${lesson.name}`);
    o.onGoal(lesson);
  };
  const lessonLines = lesson === undefined ? [] : [`LESSON ${lesson.title}: ${lesson.idea}`, ...lesson.intro.map((l) => `• ${l}`), ""];
  return new Controller(session, onGoal, o.save, introMessage({ ...o, lesson, completed }), lessonLines);
}

/** The menu or a session; L in a session comes back to the menu. */
export function Root({ o }: { o: AppOptions }) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const completed = useRef(new Set(o.completed));
  const [controller, setController] = useState<Controller | undefined>(() => (o.session !== undefined ? controllerFor(o, o.session, o.lesson, completed.current) : undefined));
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
  const pick = (lesson: Lesson | undefined) => {
    setLoading(true);
    void o.start(lesson).then((session) => {
      setController(controllerFor(o, session, lesson, completed.current));
      setLoading(false);
    });
  };
  return <Menu title={o.adapterTitle} lessons={o.lessons} completed={completed.current} width={Math.max(80, stdout.columns ?? 80)} onQuit={exit} onPick={pick} />;
}

export async function runApp(o: AppOptions): Promise<number> {
  const instance = render(<Root o={o} />, { exitOnCtrlC: false });
  await instance.waitUntilExit();
  return 0;
}
