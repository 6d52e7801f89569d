import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";

/**
 * The teaching protocols' scenarios and swarms added with the termination protocol, client
 * identity, lease drift, gap filling and the whole fault vocabulary: the same seed twice in
 * one process gives the same trace (the CLI's `zksim determinism` checks a fresh process).
 */
const CASES: [scenario: string, seed: number][] = [
  ["3pc-crashes-keep-atomicity", 1],
  ["multipaxos-client-restart", 9],
  ["multipaxos-lease-clock-drift", 1],
  ["multipaxos-lease-restart", 1],
  ["multipaxos-gap-fill", 1],
  ["paxos-acceptor-crash-after-promise", 1],
  ["paxos-learner-restart", 1],
  ["paxos-random-faults", 10001],
  ["multipaxos-random-faults", 10001],
  ["multipaxos-catch-up", 10001],
  ["2pc-random-faults", 10001],
  ["3pc-random-faults", 10001],
  ["3pc-random-crashes", 10001],
];

describe("protocol scenarios: same seed, same trace", () => {
  for (const [name, seed] of CASES) {
    it(`${name} seed ${seed}`, async () => {
      const a = await runScenario(loadScenario(name), { seed });
      const b = await runScenario(loadScenario(name), { seed });
      expect(b.traceHash).toBe(a.traceHash);
      expect(b.events).toBe(a.events);
    }, 60_000);
  }
});
