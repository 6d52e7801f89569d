/**
 * A run's verdict from its violations and the scenario's declared flaws (`expectedViolations`,
 * types.ts): "pass" with no violation, "expected" when every violation is of a declared
 * checker (the protocol's documented flaw showed, as the scenario says it may), "fail" on any
 * other. A broken build — a canary or a re-injected bug — is judged without the declarations: it
 * exists to be caught, and a catch by a declared checker is still a catch. (A `--variant` twin
 * loses them where it is loaded, cli/scenario-files.ts.)
 */
import type { RunEnd, Violation } from "../check/checker.js";
import type { RunOptions, Scenario, Verdict } from "./types.js";

export function runVerdict(scenario: Pick<Scenario, "expectedViolations">, options: Pick<RunOptions, "canary" | "bugs">, violations: readonly Violation[]): Verdict {
  if (violations.length === 0) return "pass";
  const declared = declaredCheckers(scenario, options);
  return violations.every((v) => declared.has(v.checker)) ? "expected" : "fail";
}

/** The checkers whose violations count as expected in this run (none for a broken build). */
export function declaredCheckers(scenario: Pick<Scenario, "expectedViolations">, options: Pick<RunOptions, "canary" | "bugs">): ReadonlySet<string> {
  const broken = options.canary !== undefined || (options.bugs ?? []).length > 0;
  return new Set(broken ? [] : (scenario.expectedViolations ?? []).map((d) => d.checker));
}

/** The pseudo-checker of a declared flaw (`always`) that a run did not show. */
export const EXPECTED_FLAW_CHECKER = "scenario.expected-flaw";

/**
 * A violation for each flaw declared `always` whose checker reported nothing: the scenario
 * exists to show it, so a correct build that does not is no longer the protocol of the book.
 * A broken build is judged without the declarations, as above.
 */
export function missingFlaws(scenario: Pick<Scenario, "expectedViolations">, options: Pick<RunOptions, "canary" | "bugs">, violations: readonly Violation[], end: RunEnd | undefined): Violation[] {
  if (declaredCheckers(scenario, options).size === 0) return [];
  const seen = new Set(violations.map((v) => v.checker));
  return (scenario.expectedViolations ?? [])
    .filter((d) => d.always === true && !seen.has(d.checker))
    .map((d) => ({
      checker: EXPECTED_FLAW_CHECKER,
      message: `${d.checker} reported nothing, yet this scenario shows it on every run: ${d.why}`,
      eventIndex: end?.index ?? -1,
      atMs: (end?.atUs ?? 0) / 1000,
    }));
}

/** The declarations that excused a run's violations, one line each: `[checker] why`. */
export function describeExpected(scenario: Pick<Scenario, "expectedViolations">, violations: readonly Violation[]): string[] {
  const seen = new Set(violations.map((v) => v.checker));
  return (scenario.expectedViolations ?? []).filter((d) => seen.has(d.checker)).map((d) => `[${d.checker}] ${d.why}`);
}
