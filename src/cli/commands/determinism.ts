/** `zksim determinism <scenario> [--seed N] [--json]`: runs twice, compares the trace hashes, names the first divergence. */
import { describeEvent } from "../../sim/trace.js";
import { runScenarioWithSim } from "../../scenario/run.js";
import { boolFlag, intFlag, parseArgs } from "../args.js";
import type { Command } from "../command.js";
import { oneScenario } from "../scenario-files.js";

export const determinism: Command = {
  name: "determinism",
  args: "<scenario> [--seed N] [--json]",
  help: "run twice, compare trace hashes, name the first divergence",
  async run(argv) {
    const args = parseArgs(argv, { seed: "int", json: "bool" }, "determinism");
    const scenario = oneScenario(args.positionals, "determinism");
    const seed = intFlag(args, "seed") ?? scenario.defaultSeed;
    const a = await runScenarioWithSim(scenario, { seed, keepHashes: true, retainTrace: true });
    const b = await runScenarioWithSim(scenario, { seed, keepHashes: true, retainTrace: true });
    const divergence = firstDivergence(a.sim.trace.hashHistory, b.sim.trace.hashHistory);
    const same = divergence < 0 && a.result.traceHash === b.result.traceHash;
    if (boolFlag(args, "json")) {
      console.log(JSON.stringify({ scenario: scenario.name, seed, deterministic: same, hashes: [a.result.traceHash, b.result.traceHash], firstDivergentEvent: divergence < 0 ? null : divergence }));
    } else if (same) {
      console.log(`deterministic: ${scenario.name} seed ${seed} gave trace hash ${a.result.traceHash} twice (${a.result.events} events)`);
    } else {
      console.log(`NOT deterministic: ${scenario.name} seed ${seed}: ${a.result.traceHash} vs ${b.result.traceHash}`);
      const ea = a.sim.trace.events[divergence];
      const eb = b.sim.trace.events[divergence];
      console.log(`  first divergent event #${divergence}:`);
      console.log(`    run 1: ${ea ? describeEvent(ea) : "(trace ended)"}`);
      console.log(`    run 2: ${eb ? describeEvent(eb) : "(trace ended)"}`);
    }
    return same ? 0 : 1;
  },
};

/** Index of the first event whose running hash differs (−1 when the histories agree). */
export function firstDivergence(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
