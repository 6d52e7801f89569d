/**
 * One bound for every duration a scenario document holds, whatever reads it: a field named for a
 * duration or a time (`…Ms`, `…Us`, `…MsMax`, `…MsMin`: `durationMs`, `faults[i].atMs`,
 * `workload.tickTimeMs`, `workload.traffic.opGapMsMax`, a served input's `atUs`…) must be a finite
 * number from 0 to one virtual day (`MAX_DURATION_MS`, as `durationMs` itself), or a list of such
 * numbers. Each workload checks its own parameters' types and tighter bounds; this check runs first,
 * over the whole document, so that an absurd value (1e300 ms, a negative delay, Infinity from
 * `1e999`) is refused in one line naming the field even where a workload reads the number without
 * a bound — an absurd delay would otherwise run, and end in a "fail" blamed on the system or a
 * vacuous pass. A field of any other type is left to the reader that knows it.
 */
import { UserInputError } from "../sim/errors.js";

/** One virtual day: the longest run (`durationMs`), and so the longest any duration in it can mean. */
export const MAX_DURATION_MS = 86_400_000;

const DURATION_KEY = /(Ms|Us)(Max|Min)?$/;

/** How the refusal of a duration names its bound: "a duration from 0 to 86,400,000 ms (one virtual day)". */
export function durationBound(max = MAX_DURATION_MS, unit = "ms"): string {
  return `a duration from 0 to ${max.toLocaleString("en-US")} ${unit} (one virtual day)`;
}

/** Whether `v` is a duration in ms within the bound. */
export function isDurationMs(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_DURATION_MS;
}

/** The bound of a duration field, by its unit. */
function boundOf(key: string): { max: number; unit: string } {
  return /Us(Max|Min)?$/.test(key) ? { max: MAX_DURATION_MS * 1000, unit: "µs" } : { max: MAX_DURATION_MS, unit: "ms" };
}

/** Throws a UserInputError naming the first duration of `doc` outside [0, one virtual day]. */
export function checkDurations(doc: unknown, source: string): void {
  const walk = (v: unknown, path: string): void => {
    if (typeof v !== "object" || v === null) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    for (const [key, value] of Object.entries(v)) {
      const at = path === "" ? key : `${path}.${key}`;
      if (DURATION_KEY.test(key)) checkDuration(key, value, at, source);
      walk(value, at);
    }
  };
  walk(doc, "");
}

function checkDuration(key: string, value: unknown, at: string, source: string): void {
  const values = Array.isArray(value) ? value.map((x, i) => [x, `${at}[${i}]`] as const) : [[value, at] as const];
  for (const [x, where] of values) {
    if (typeof x !== "number") continue;
    const { max, unit } = boundOf(key);
    if (!Number.isFinite(x) || x < 0 || x > max) {
      throw new UserInputError(`${source}: "${where}" must be ${durationBound(max, unit)}, got ${String(x)}`);
    }
  }
}
