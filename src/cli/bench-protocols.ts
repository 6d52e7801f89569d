/**
 * `zksim bench protocols`: seeds per second of every swarm of the teaching protocols — the
 * scenarios tagged both "swarm" and "protocol" — one seed after another in-process, with the
 * scenario's default checkers. Warm figure: the median of three batches of 50 seeds after 100
 * seeds of warm-up. `failed_seeds` counts failing seeds over every seed run, by the checkers that
 * failed; `expected_seeds` counts the seeds whose only violations are the scenario's documented
 * flaws (`expectedViolations`): 2PC's blocking and 3PC's atomicity under partitions, both by
 * design (docs/protocols.md), so they are what the swarm found, not a defect.
 */
import { performance } from "node:perf_hooks";
import { runScenario } from "../scenario/run.js";
import { loadScenario, scenarioNames } from "./scenario-files.js";
import type { Figure } from "./bench.js";

const WARM_UP_SEEDS = 100;
const BATCH_SEEDS = 50;

export async function protocolsBench(): Promise<Figure[]> {
  const swarms = scenarioNames()
    .map((name) => loadScenario(name))
    .filter((s) => s.tags.includes("swarm") && s.tags.includes("protocol"));
  const figures: Figure[] = [];
  for (const scenario of swarms) {
    let seed = 0;
    let failed = 0;
    let expected = 0;
    const byChecker = new Map<string, number>();
    const batch = async (n: number): Promise<number> => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const r = await runScenario(scenario, { seed: ++seed });
        if (r.verdict === "expected") expected++;
        if (r.verdict !== "fail") continue;
        failed++;
        for (const checker of new Set(r.violations.map((v) => v.checker))) byChecker.set(checker, (byChecker.get(checker) ?? 0) + 1);
      }
      return n / ((performance.now() - t0) / 1000);
    };
    await batch(WARM_UP_SEEDS);
    const rates = [await batch(BATCH_SEEDS), await batch(BATCH_SEEDS), await batch(BATCH_SEEDS)].sort((a, b) => a - b);
    figures.push(
      { bench: "protocols", metric: `${scenario.name}.seeds_per_sec`, value: Math.round(rates[1]! * 10) / 10, unit: `seeds/s on one thread, warm (${scenario.checkers.length} checkers)` },
      { bench: "protocols", metric: `${scenario.name}.failed_seeds`, value: failed, unit: `of ${seed}${failed > 0 ? ` (${[...byChecker].map(([c, n]) => `${c} ${n}`).join(", ")})` : ""}` },
      { bench: "protocols", metric: `${scenario.name}.expected_seeds`, value: expected, unit: `of ${seed} (only the scenario's documented flaws)` },
    );
  }
  return figures;
}
