// The whole-API swarm (api-swarm-standalone, api-swarm-ensemble): seed-weighed actors over every
// client call, judged against the reference model. A few seeds pass on each, the same seed twice
// gives the same trace. Its canaries (multi-misanswered, sequence-from-child-count,
// delete-checks-node-acl, chroot-lost) are run by test/scenario/canaries.test.ts from the registry.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

describe("scenario: api-swarm", () => {
  for (const name of ["api-swarm-standalone", "api-swarm-ensemble"]) {
    it(`${name}: seeds pass, the same seed twice gives the same trace, another seed another`, async () => {
      const scenario = loadScenario(name);
      const hashes: string[] = [];
      for (const seed of [3, 4]) {
        const r = await runScenario(scenario, { seed });
        expect(r.violations.map((v) => `[${v.checker}] ${v.message.slice(0, 400)}`), `seed ${seed}`).toEqual([]);
        expect((await runScenario(scenario, { seed })).traceHash, `seed ${seed} twice`).toBe(r.traceHash);
        hashes.push(r.traceHash);
      }
      expect(hashes[0]).not.toBe(hashes[1]);
    }, 300_000);
  }

});
