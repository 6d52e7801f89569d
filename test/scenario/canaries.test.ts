import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { CANARIES, CANARY_REGISTRY, isCanary, type CanaryEntry, type CaughtBy } from "../../src/scenario/canaries.js";

type ScenarioCatch = Extract<CaughtBy, { kind: "scenario" }>;

describe("scenario: canary registry", () => {
  it("names are unique; --canary accepts exactly the canaries some scenario catches", () => {
    const names = CANARY_REGISTRY.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const byScenario = CANARY_REGISTRY.filter((c) => c.caughtBy.some((b) => b.kind === "scenario")).map((c) => c.name);
    expect([...CANARIES]).toEqual(byScenario);
    expect(isCanary("fuzzy-replay-no-fixup")).toBe(false);
  });

  for (const entry of CANARY_REGISTRY as readonly CanaryEntry[]) {
    for (const by of entry.caughtBy.filter((b): b is ScenarioCatch => b.kind === "scenario")) {
      it(`canary ${entry.name} is caught by ${by.scenario} (${by.checkers.join(" or ")}) at seeds ${by.seeds.join(", ")}`, async () => {
        if (!isCanary(entry.name)) throw new Error(`${entry.name} is caught by a scenario but --canary refuses it`);
        for (const seed of by.seeds) {
          const r = await runScenario(loadScenario(by.scenario), { seed, canary: entry.name });
          expect(r.violations.some((v) => by.checkers.includes(v.checker)), `seed ${seed}: ${r.violations.map((v) => v.checker).join(", ")}`).toBe(true);
        }
      });
    }
  }

  it("docs/faults.md has a row for every canary, with its scenarios", () => {
    const doc = readFileSync(new URL("../../docs/faults.md", import.meta.url), "utf8");
    for (const entry of CANARY_REGISTRY as readonly CanaryEntry[]) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${entry.name}\` |`));
      expect(row, entry.name).toBeDefined();
      for (const by of entry.caughtBy) expect(row, entry.name).toContain(by.kind === "scenario" ? by.scenario : by.file);
    }
  });
});
