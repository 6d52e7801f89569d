import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

const SCENARIOS = ["standalone-basics", "session-expiry", "watch-semantics", "reconnect-watches", "acl-enforcement", "sasl-auth", "server-restart-recovery"];

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

  // Canaries (deliberately broken servers) and the scenarios that catch them: src/scenario/canaries.ts, run by test/scenario/canaries.test.ts.
});
