/** `zksim demo [--seed N]`: the headline demo (what `npm start` runs): a 3-server ensemble loses its leader mid-commit. */
import { performance } from "node:perf_hooks";
import type { TraceEvent } from "../../sim/trace.js";
import { runScenario } from "../../scenario/run.js";
import { intFlag, maxPositionals, parseArgs } from "../args.js";
import type { Command } from "../command.js";
import { loadScenario } from "../scenario-files.js";
import { printRunSummary } from "./run.js";

export const demo: Command = {
  name: "demo",
  args: "[--seed N]",
  help: "the headline demo (what `npm start` runs)",
  async run(argv) {
    const args = parseArgs(argv, { seed: "int" }, "demo");
    maxPositionals(args, 0, "demo");
    const scenario = loadScenario("zab-leader-crash-before-commit");
    const seed = intFlag(args, "seed") ?? scenario.defaultSeed;
    console.log(`zksim demo: a 3-server ZooKeeper ensemble loses its leader mid-commit.`);
    console.log(`${scenario.description}.`);
    console.log(`One seed and one scenario determine the whole run; the same seed gives the same trace hash anywhere.\n`);
    const timeline: string[] = [];
    const started = performance.now();
    const result = await runScenario(scenario, { seed, onTraceEvent: (e) => narrateZab(e, timeline) });
    console.log("What ZAB did:");
    for (const line of timeline) console.log(`  ${line}`);
    console.log("");
    printRunSummary(result, Math.round(performance.now() - started));
    return result.verdict === "pass" ? 0 : 1;
  },
};

/** One line per ZAB milestone, in the book's vocabulary. */
function narrateZab(e: TraceEvent, out: string[]): void {
  const t = `${(e.atUs / 1000).toFixed(1).padStart(8)} ms`;
  switch (e.kind) {
    case "zab.leader.established":
      out.push(`${t}  ${e.node} is the established leader of epoch ${e.fields.epoch} (a quorum ACKed NEWLEADER; history up to ${e.fields.lastZxid})`);
      return;
    case "zab.sync":
      out.push(`${t}  ${e.node} synchronises sid ${e.fields.learner} by ${e.fields.mode} (learner at ${e.fields.peerLastZxid})`);
      return;
    case "zab.truncate":
      out.push(`${t}  ${e.node} truncates its log back to ${e.fields.zxid}: its uncommitted tail is discarded`);
      return;
    case "crash":
      if (e.node.startsWith("s")) out.push(`${t}  ${e.node} crashes`);
      return;
    case "start":
    case "restart":
      if (e.node.startsWith("s") && e.atUs > 0) out.push(`${t}  ${e.node} restarts from its disk`);
      return;
  }
}
