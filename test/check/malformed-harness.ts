/**
 * The shared harness of the malformed-event tests (test/check/malformed-events.test.ts and
 * test/check/protocols/malformed-events.test.ts): run one checker over a harmless event and the
 * event under test at index 1, keep the "malformed…" violations, and judge a case — none for
 * the event well formed (the canary), exactly one naming index, kind and field once the field
 * is removed or replaced.
 */
import { asEvent, type LooseEvent } from "../helpers/loose-events.js";
import { expect } from "vitest";
import type { TraceEvent } from "../../src/sim/trace.js";
import { runCheckers, type Checker } from "../../src/check/checker.js";

export interface MalformedCase {
  /** The event well formed (what the emitter writes)… */
  event: Omit<LooseEvent, "index" | "atUs">;
  /** …and the field to break. */
  field: string;
  /** What to put there instead (absent: the field is removed). */
  bad?: unknown;
}

/** The malformed-event messages a run of `checker` over [a harmless event, `e` at index 1] gives. */
export function malformed(make: () => Checker, e: MalformedCase["event"]): string[] {
  const events: TraceEvent[] = [
    { index: 0, atUs: 1000, kind: "timer", node: "s9", id: 1, detail: "tick" },
    asEvent({ index: 1, atUs: 2000, ...e }),
  ];
  return runCheckers([make()], events)
    .filter((v) => v.message.startsWith("malformed"))
    .map((v) => `${v.eventIndex}: ${v.message}`);
}

/** The case's title: the kind and what is wrong with the field. */
export function caseTitle(c: MalformedCase): string {
  return `${c.event.kind} with a ${c.bad === undefined ? "missing" : "malformed"} "${c.field}"`;
}

/** No malformed violation for the event as written; exactly one, naming index, kind and field, once broken. */
export function expectMalformedCase(make: () => Checker, c: MalformedCase): void {
  expect(malformed(make, c.event)).toEqual([]);
  const fields: Record<string, unknown> = { ...c.event.fields };
  if (c.bad === undefined) delete fields[c.field];
  else fields[c.field] = c.bad;
  const got = malformed(make, { ...c.event, fields });
  expect(got).toHaveLength(1);
  expect(got[0]).toMatch(new RegExp(`^1: malformed ${c.event.kind.replace(/\./g, "\\.")} event #1 on \\S+: field "${c.field}" ${c.bad === undefined ? "is missing" : "= "}`));
}
