/**
 * `zksim bench <suite> [--json] [--targets A,B]`: the benchmark suites of cli/bench.ts, one
 * figure a line. `--targets` (check-model only) measures those `zksim check` targets alone.
 * `zksim bench recipes|check --profile [--seeds N] [--top N] [--no-check]`: where a warm seed's time
 * goes instead (cli/bench-profile.ts), by area (each checker, the trace, the kernel, the server…) and
 * function: of recipe-lock-bench (recipes), or of explore's zab-random-faults seeds (check);
 * `--no-check` profiles the seeds without their checkers (the simulation alone).
 */
import { UserInputError } from "../../sim/errors.js";
import { boolFlag, intFlag, parseArgs, stringFlag } from "../args.js";
import { BENCH_SUITES, profileExplore, profileRecipes, runBench } from "../bench.js";
import { formatProfile } from "../bench-profile.js";
import type { Command } from "../command.js";

export const bench: Command = {
  name: "bench",
  args: "<suite> [--json] [--targets A,B] | recipes|check --profile [--seeds N] [--top N] [--no-check] [--json]",
  help: `benchmarks (${BENCH_SUITES.join(", ")}, all)`,
  async run(argv) {
    const args = parseArgs(argv, { json: "bool", targets: "string", profile: "bool", seeds: "int", top: "int", "no-check": "bool" }, "bench");
    if (args.positionals.length === 0) throw new UserInputError(`bench: which suite? (${BENCH_SUITES.join(", ")}, all)`);
    if (args.positionals.length > 1) throw new UserInputError(`bench: unexpected argument "${args.positionals[1]}"`);
    if (boolFlag(args, "profile")) {
      const suite = args.positionals[0];
      if (suite !== "recipes" && suite !== "check") throw new UserInputError(`bench: --profile profiles the recipes or check suite only, got "${suite}"`);
      const top = intFlag(args, "top") ?? 25;
      const checkers = !boolFlag(args, "no-check");
      const profile = suite === "recipes" ? await profileRecipes(intFlag(args, "seeds") ?? 40, top, checkers) : await profileExplore(intFlag(args, "seeds") ?? 20, top, checkers);
      if (boolFlag(args, "json")) console.log(JSON.stringify(profile));
      else for (const line of formatProfile(profile)) console.log(line);
      return 0;
    }
    if (args.flags.has("seeds") || args.flags.has("top") || args.flags.has("no-check")) throw new UserInputError("bench: --seeds, --top and --no-check go with --profile");
    const targets = stringFlag(args, "targets")?.split(",").map((t) => t.trim()).filter((t) => t !== "");
    if (targets !== undefined && args.positionals[0] !== "check-model") throw new UserInputError("bench: --targets is for the check-model suite");
    const figures = await runBench(args.positionals[0]!, targets);
    for (const f of figures) {
      if (boolFlag(args, "json")) console.log(JSON.stringify(f));
      else console.log(`${f.bench.padEnd(12)} ${f.metric.padEnd(28)} ${String(f.value).padStart(14)} ${f.unit}`);
    }
    return 0;
  },
};
