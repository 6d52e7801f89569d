/**
 * Every duration of a scenario is bounded (src/scenario/durations.ts): each field of every
 * built-in scenario named for a duration or a time (`…Ms`, `…Us`, `…MsMax`…), set to 1e300, -1,
 * Infinity (`1e999` in JSON) or a string, is refused when the scenario is parsed, in a message
 * that names the field — before a run could take an absurd delay and end in a "fail" blamed on
 * the system or in a vacuous pass. (scripts/fuzz.mjs found 2PC's transactions[i].atMs = 1e300
 * accepted, and swarm's snapChunkIntervalUs = "abc" read only when the run began.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseScenario } from "../../src/scenario/parse.js";
import { checkDurations, MAX_DURATION_MS } from "../../src/scenario/durations.js";
import { isUserInputError } from "../../src/sim/errors.js";

const DIR = join(import.meta.dirname, "../../scenarios");
const DURATION = /(Ms|Us)(Max|Min)?$/;

/** Each distinct duration field (by workload kind and path, list indices left out) of the built-ins, with one scenario that has it. */
function durationFields(): { name: string; doc: Record<string, unknown>; path: (string | number)[] }[] {
  const seen = new Map<string, { name: string; doc: Record<string, unknown>; path: (string | number)[] }>();
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".json")).sort()) {
    const doc = JSON.parse(readFileSync(join(DIR, file), "utf8")) as Record<string, unknown>;
    const walk = (v: unknown, path: (string | number)[]): void => {
      if (typeof v !== "object" || v === null) return;
      for (const [k, x] of Object.entries(v)) {
        const here = [...path, Array.isArray(v) ? Number(k) : k];
        if (DURATION.test(k) && (typeof x === "number" || Array.isArray(x))) {
          const key = `${(doc.workload as { kind: string }).kind}: ${here.filter((p) => typeof p === "string").join(".")}`;
          if (!seen.has(key)) seen.set(key, { name: key, doc, path: here });
        }
        walk(x, here);
      }
    };
    walk(doc, []);
  }
  return [...seen.values()];
}

function withValue(doc: Record<string, unknown>, path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const p of path.slice(0, -1)) at = at[p] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  at[last] = Array.isArray(at[last]) ? (at[last] as unknown[]).map(() => value) : value;
  return copy;
}

const FIELDS = durationFields();

describe("every duration of every built-in scenario is bounded", () => {
  test("the built-ins have many duration fields, over every workload kind", () => {
    expect(FIELDS.length).toBeGreaterThan(50);
    expect(new Set(FIELDS.map((f) => f.name.split(":")[0]))).toEqual(new Set(["api-swarm", "kernel-traffic", "multi-paxos", "paxos", "swarm", "three-phase-commit", "two-phase-commit", "zk"]));
  });

  test.each(FIELDS)("$name: 1e300, -1, Infinity and a string are refused, naming the field", ({ doc, path }) => {
    const key = String(path.at(-1));
    for (const bad of [1e300, -1, Infinity, "abc"]) {
      let error: unknown;
      try {
        parseScenario(withValue(doc, path, bad), "s.json");
      } catch (e) {
        error = e;
      }
      expect(isUserInputError(error), `${key} = ${String(bad)} was accepted`).toBe(true);
      expect((error as Error).message).toContain(key);
    }
  });
});

describe("checkDurations", () => {
  test("names the field, its bound and the value; lists are checked element by element", () => {
    expect(() => checkDurations({ workload: { transactions: [{ atMs: 1e300 }] } }, "x.json")).toThrow('x.json: "workload.transactions[0].atMs" must be a duration from 0 to 86,400,000 ms (one virtual day), got 1e+300');
    expect(() => checkDurations({ workload: { startAtMs: [0, -5] } }, "x.json")).toThrow('"workload.startAtMs[1]" must be a duration');
    expect(() => checkDurations({ inputs: [{ atUs: Infinity }] }, "x.json")).toThrow('"inputs[0].atUs" must be a duration from 0 to 86,400,000,000 µs');
  });

  test("takes every value inside the bound, and leaves other types and other names to their readers", () => {
    expect(() => checkDurations({ durationMs: MAX_DURATION_MS, a: { gapMsMin: 0, retryMsMax: 1.5 }, b: [{ atUs: MAX_DURATION_MS * 1000 }] }, "x")).not.toThrow();
    expect(() => checkDurations({ tickTimeMs: "abc", rate: 1e300, items: -1 }, "x")).not.toThrow();
  });
});
