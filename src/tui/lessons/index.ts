/** Every lesson, by protocol, in menu order. */
import { UserInputError } from "../../sim/errors.js";
import type { Lesson } from "./lesson.js";
import { ZAB_LESSONS } from "./zab.js";
import { TWO_PC_LESSONS } from "./two-phase-commit.js";
import { THREE_PC_LESSONS } from "./three-phase-commit.js";
import { PAXOS_LESSONS } from "./paxos.js";
import { MULTIPAXOS_LESSONS } from "./multipaxos.js";

export type { Lesson } from "./lesson.js";

export const LESSONS: readonly Lesson[] = [
  ...ZAB_LESSONS,
  ...PAXOS_LESSONS,
  ...MULTIPAXOS_LESSONS,
  ...TWO_PC_LESSONS,
  ...THREE_PC_LESSONS,
];

export function lessonsOf(protocol: string): Lesson[] {
  return LESSONS.filter((l) => l.protocol === protocol);
}

export function lessonNamed(protocol: string, name: string): Lesson {
  const l = LESSONS.find((x) => x.protocol === protocol && x.name === name);
  if (l === undefined) throw new UserInputError(`learn: no ${protocol} lesson "${name}" (lessons: ${lessonsOf(protocol).map((x) => x.name).join(", ") || "none"})`);
  return l;
}
