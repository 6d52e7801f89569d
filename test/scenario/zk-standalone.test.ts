import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import type { Canary } from "../../src/scenario/types.js";

const SCENARIOS = ["standalone-basics", "session-expiry", "watch-semantics", "reconnect-watches", "acl-enforcement", "server-restart-recovery"];

describe("scenario: zk standalone", () => {
  for (const name of SCENARIOS) {
    it(`${name}: passes, deterministically, for several seeds`, async () => {
      const scenario = loadScenario(name);
      for (const seed of [1, 2, 3]) {
        const r = await runScenario(scenario, { seed });
        expect(r.violations, `${name} seed ${seed}`).toEqual([]);
        const again = await runScenario(scenario, { seed });
        expect(again.traceHash).toBe(r.traceHash);
      }
    });
  }

  /** Each deliberately broken server must be caught by the scenario built to expose it. */
  const CANARIES: [Canary, string, string][] = [
    ["ack-before-fsync", "server-restart-recovery", "zk.standalone-durability"],
    ["no-ephemeral-cleanup", "session-expiry", "scenario.expect"],
    ["watch-not-fired", "watch-semantics", "scenario.expect"],
    ["watch-not-fired", "reconnect-watches", "scenario.expect"],
  ];
  for (const [canary, scenario, checker] of CANARIES) {
    it(`canary ${canary} is caught by ${scenario} (${checker})`, async () => {
      const r = await runScenario(loadScenario(scenario), { seed: 1, canary });
      expect(r.verdict).toBe("fail");
      expect(r.violations.map((v) => v.checker)).toContain(checker);
    });
  }
});
