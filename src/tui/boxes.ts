/**
 * The boxes that take the narration's place until the learner closes them: the lesson's start
 * (its idea and what to do), the goal reached (what happened, whether the lesson's invariants
 * held, why a real system cares, where the book tells it, the predictions so far) and a
 * question at a decisive step (the choices, then the engine's answer). Pure: lines of text,
 * wrapped to the width (nothing cut), so the ink screen and plain mode show the same words.
 */
import type { Frame } from "../stepper/types.js";
import type { Answer, Lesson, Question } from "./lessons/lesson.js";
import { wrap } from "./text.js";

/** Predictions asked, answered and answered right in this session. */
export interface PredictionStats {
  asked: number;
  answered: number;
  right: number;
}

export type Box =
  | { kind: "lesson" }
  | { kind: "goal" }
  | { kind: "predict"; question: Question; answer?: Answer; picked?: number };

const para = (label: string, text: string, width: number) => wrap(`${label}${text}`, width, "  ");

export function lessonBoxLines(lesson: Lesson, width: number): string[] {
  return [
    ...wrap(`LESSON ${lesson.title}`, width, "  "),
    ...wrap(lesson.idea, width, "  "),
    ...lesson.intro.flatMap((l) => wrap(`• ${l}`, width, "  ")),
    ...wrap("enter or esc: close this box and start · ? keys and commands · :goal shows the goal", width, "  "),
  ];
}

/** Whether the lesson's invariants held, in a line or two. */
export function invariantLine(lesson: Lesson | undefined, f: Frame): string {
  const bad = f.verdicts.filter((v) => !v.ok);
  const total = `${f.verdicts.length - bad.length} of ${f.verdicts.length} hold`;
  if (bad.length > 0) return `Invariants: ${bad.map((v) => `✗ ${v.checker} broke at event ${v.eventIndex}: ${v.message ?? ""}`).join("; ")} (${total})`;
  const named = lesson?.invariants.filter((n) => f.verdicts.some((v) => v.checker === n)) ?? [];
  return `Invariants: ✓ ${named.length > 0 ? `${named.join(" and ")} held` : "all held"} (${total})`;
}

export function goalBoxLines(lesson: Lesson | undefined, f: Frame, stats: PredictionStats, width: number): string[] {
  const lines = [...wrap(`✓ GOAL REACHED${lesson !== undefined ? ` — ${lesson.title}` : ""}`, width, "  "), ...para("What happened: ", f.goal?.text ?? "", width), ...wrap(invariantLine(lesson, f), width, "  ")];
  if (lesson !== undefined) lines.push(...para("Why it matters: ", lesson.why, width));
  const predicted = stats.asked > 0 ? ` · predictions: ${stats.right} of ${stats.asked} right` : "";
  if (lesson !== undefined) lines.push(...para("Book: ", `${lesson.book}${predicted}`, width));
  lines.push(...wrap("enter or esc: close · L: the lessons menu · q: quit", width, "  "));
  return lines;
}

export function predictBoxLines(box: Extract<Box, { kind: "predict" }>, stats: PredictionStats, width: number): string[] {
  const { question, answer, picked } = box;
  const lines = wrap(`PREDICT: ${question.text}`, width, "  ");
  question.choices.forEach((c, i) => {
    const mark = picked === undefined ? " " : i === answer?.choice ? "✓" : i === picked ? "✗" : " ";
    lines.push(...wrap(`${picked === i ? ">" : " "}${mark} ${i + 1}  ${c}`, width, "      "));
  });
  if (picked === undefined) {
    lines.push(...wrap(`1–${question.choices.length}: your answer · esc: skip it`, width, "  "));
    return lines;
  }
  if (answer === undefined) {
    lines.push("the engine runs ahead to answer…");
    return lines;
  }
  const right = picked === answer.choice;
  const said = answer.choice >= 0 ? `${answer.choice + 1}` : "none of these";
  lines.push(...wrap(`${right ? "✓ right" : `✗ the engine says ${said}`}: ${answer.because} · ${stats.right} of ${stats.asked} right so far`, width, "  "));
  lines.push("enter or esc: close · step on to see it happen");
  return lines;
}
