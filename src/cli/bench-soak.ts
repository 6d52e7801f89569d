/**
 * `zksim bench soak`: the long-run figures (docs/long-runs.md). The `soak-1h` scenario, cut to
 * 10, 30 and 60 virtual minutes (its traffic window and fault schedule end there, then the
 * same heal-then-read phase), each run in a fresh node process so that its peak RSS is its
 * own: wall time, virtual-to-wall ratio, peak RSS, and the verdict (fail = 1, unknown windows
 * counted) as figures.
 *
 * Long: the 60-minute run takes minutes of wall time. `ZKSIM_SOAK_MINUTES=10,30` picks other
 * lengths (a smoke test uses 1).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadScenario } from "./scenario-files.js";
import { UserInputError } from "../sim/errors.js";
import type { Scenario } from "../scenario/types.js";
import type { Figure } from "./bench.js";

export const SOAK_SCENARIO = "soak-1h";
const DEFAULT_MINUTES = [10, 30, 60];

/** `soak-1h` cut to `minutes` virtual minutes of traffic and faults (then heal, converge, read). */
export function soakScenario(minutes: number): Scenario {
  const base = loadScenario(SOAK_SCENARIO);
  const untilMs = minutes * 60_000;
  const params = base.workload.params as { traffic: Record<string, unknown> };
  const fullUntilMs = params.traffic.untilMs as number;
  return {
    ...base,
    name: `${SOAK_SCENARIO}@${minutes}m`,
    durationMs: base.durationMs - fullUntilMs + untilMs,
    faults: base.faults.filter((f) => f.atMs < untilMs),
    workload: { ...base.workload, params: { ...params, traffic: { ...params.traffic, untilMs } } },
  };
}

/** What one child run reports on its stdout (one JSON line). */
interface SoakLine {
  minutes: number;
  verdict: string;
  violations: number;
  unknown: number;
  virtualMs: number;
  wallMs: number;
  maxRssKb: number;
}

/** The child's program: run one cut of the soak scenario and print a SoakLine. */
const CHILD = `
const [{ soakScenario }, { runScenario }] = await Promise.all([import(process.env.ZKSIM_SOAK_MODULE), import(process.env.ZKSIM_RUN_MODULE)]);
const minutes = Number(process.env.ZKSIM_SOAK_RUN);
const t0 = performance.now();
const r = await runScenario(soakScenario(minutes));
const wallMs = Math.round(performance.now() - t0);
console.log(JSON.stringify({ minutes, verdict: r.verdict, violations: r.violations.length, unknown: r.unknown.length, virtualMs: r.virtualMs, wallMs, maxRssKb: process.resourceUsage().maxRSS }));
`;

function soakMinutes(): number[] {
  const raw = process.env.ZKSIM_SOAK_MINUTES;
  if (raw === undefined) return DEFAULT_MINUTES;
  const minutes = raw.split(",").map(Number);
  if (minutes.some((m) => !Number.isInteger(m) || m < 1 || m > 60)) throw new UserInputError(`ZKSIM_SOAK_MINUTES: expected minutes in 1..60 separated by commas, got "${raw}"`);
  return minutes;
}

function runChild(minutes: number): SoakLine {
  const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
  const child = spawnSync(process.execPath, ["--max-semi-space-size=64", "--input-type=module", "-e", CHILD], {
    env: { ...process.env, ZKSIM_SOAK_RUN: String(minutes), ZKSIM_SOAK_MODULE: here("./bench-soak.js"), ZKSIM_RUN_MODULE: here("../scenario/run.js") },
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  const line = child.stdout.trim().split("\n").pop() ?? "";
  if (child.status !== 0 || !line.startsWith("{")) throw new Error(`bench soak: the ${minutes}-minute run failed (exit ${child.status}): ${child.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  return JSON.parse(line) as SoakLine;
}

export async function soakBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const minutes of soakMinutes()) {
    const r = runChild(minutes);
    const bench = `soak-${minutes}m`;
    figures.push(
      { bench, metric: "wall_time", value: Math.round(r.wallMs) / 1000, unit: "s" },
      { bench, metric: "virtual_to_wall", value: Math.round((r.virtualMs / r.wallMs) * 10) / 10, unit: "x" },
      { bench, metric: "peak_rss", value: Math.round(r.maxRssKb / 1024), unit: "MB" },
      { bench, metric: "failed", value: r.verdict === "fail" ? 1 : 0, unit: "bool" },
      { bench, metric: "unknown_windows", value: r.unknown, unit: "count" },
    );
  }
  return figures;
}
