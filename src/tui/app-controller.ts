/**
 * A session's controller as the app starts it: its opening line, and a goal reached recorded
 * as the lesson completed. Outside the ink modules, so the first controller can be built (and
 * its first frame drawn) before ink is loaded.
 */
import type { Session } from "../stepper/session.js";
import type { Lesson } from "./lessons/lesson.js";
import { Controller } from "./controller.js";
import { lessonKey } from "./menu-lines.js";

export interface ControllerOptions {
  /** The protocol's title (free play's opening line). */
  title: string;
  /** Completed lessons; a goal reached adds the lesson. */
  completed: Set<string>;
  onGoal: (lesson: Lesson) => void;
  save: (file: string) => void;
}

export function openingLine(lesson: Lesson | undefined, title: string, completed: ReadonlySet<string>): string {
  if (lesson === undefined) return `${title} — ? for keys; zksim learn --lessons lists the lessons`;
  return `LESSON ${lesson.title}${completed.has(lessonKey(lesson)) ? " (completed before)" : ""} — ? for keys`;
}

export function controllerFor(o: ControllerOptions, session: Session, lesson: Lesson | undefined): Controller {
  const onGoal = () => {
    if (lesson === undefined) return;
    o.completed.add(lessonKey(lesson));
    o.onGoal(lesson);
  };
  return new Controller(session, onGoal, o.save, openingLine(lesson, o.title, o.completed), lesson);
}
