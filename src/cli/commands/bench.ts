/**
 * `zksim bench <suite> [--json] [--targets A,B]`: the benchmark suites of cli/bench.ts, one
 * figure a line. `--targets` (check-model only) measures those `zksim check` targets alone.
 */
import { UserInputError } from "../../sim/errors.js";
import { boolFlag, parseArgs, stringFlag } from "../args.js";
import { BENCH_SUITES, runBench } from "../bench.js";
import type { Command } from "../command.js";

export const bench: Command = {
  name: "bench",
  args: "<suite> [--json] [--targets A,B]",
  help: `benchmarks (${BENCH_SUITES.join(", ")}, all)`,
  async run(argv) {
    const args = parseArgs(argv, { json: "bool", targets: "string" }, "bench");
    if (args.positionals.length === 0) throw new UserInputError(`bench: which suite? (${BENCH_SUITES.join(", ")}, all)`);
    if (args.positionals.length > 1) throw new UserInputError(`bench: unexpected argument "${args.positionals[1]}"`);
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
