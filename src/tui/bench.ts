/**
 * `zksim bench tui`: the teaching UI's two speed targets, measured.
 *
 * Each figure comes as wall time and as this process's CPU time: on a shared machine the wall
 * time also counts other processes' work.
 *
 * - step back: a ZAB session (seed 1, a client writing every 50 steps) is stepped forward until
 *   10,000 kernel events have run, then stepped back one step at a time; each step back
 *   re-executes the run from the seed. Target: < 100 ms per step. Then as the app does it:
 *   the previous step prepared ahead (`prepareBack`, while the learner reads), the step back
 *   itself timed.
 * - redraw during `run`: at each speed of the app, one redraw tick (the steps of a tick, the
 *   frame, and the screen rendered by ink to a string at 80×24) is timed; the app ticks every
 *   TICK_MS, so a tick's p95 under TICK_MS keeps the redraw rate steady. React runs its
 *   production build, as in the app.
 * - cold start: `zksim learn --lesson quorum-commit` started afresh in a pseudo-terminal
 *   (`script`, 80×24), COLD_STARTS times; the app reports the CPU and wall time since its
 *   process began when its first frame is drawn (before ink is loaded) and when ink has drawn
 *   it and reads keys (FIRST_FRAME_ENV). Target: the first frame within 1,000 ms of CPU.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Session } from "../stepper/session.js";
import { zabAdapter } from "../stepper/zab/zab-adapter.js";
import { Controller, SPEEDS, TICK_MS } from "./controller.js";
import { FIRST_FRAME_ENV } from "./cli.js";
import { loadTerminalUi } from "./terminal-ui.js";

interface Figure {
  bench: string;
  metric: string;
  value: number;
  unit: string;
}

const RUN_EVENTS = 10_000;
const BACK_STEPS = 30;
const TICKS_PER_SPEED = 20;
/** Measurements discarded first at each setting: V8 compiles the hot paths meanwhile. */
const WARMUP = 5;

function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (x: number) => Math.round(x * 100) / 100;

/** CPU time of this process in ms: on a shared machine wall time also counts other people's work. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function busySession(): Promise<Session> {
  const s = await Session.begin(zabAdapter, { seed: 1 });
  for (let n = 0; s.world.sim.eventCount < s.startPosition + RUN_EVENTS; n++) {
    if (n % 50 === 0) s.act({ kind: "client", client: "c1", op: n % 100 === 0 ? "create" : "set", path: `/k${Math.floor(n / 100)}`, data: String(n) });
    if (!(await s.forward())) break;
  }
  return s;
}

async function stepBackFigures(): Promise<Figure[]> {
  const s = await busySession();
  const events = s.world.sim.eventCount;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < BACK_STEPS + WARMUP; i++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    await s.back();
    s.frame();
    if (i < WARMUP) continue;
    times.push(performance.now() - t0);
    cpu.push(cpuMs() - c0);
  }
  // As the app does it: the previous step is re-executed while the learner reads the screen.
  const swap: number[] = [];
  for (let i = 0; i < BACK_STEPS; i++) {
    await s.prepareBack();
    const t0 = performance.now();
    await s.back();
    s.frame();
    swap.push(performance.now() - t0);
  }
  return [
    { bench: "tui", metric: "run_events", value: events, unit: "events" },
    { bench: "tui", metric: "step_back_prepared_ms_p50", value: round(quantile(swap, 0.5)), unit: "ms" },
    { bench: "tui", metric: "step_back_prepared_ms_p95", value: round(quantile(swap, 0.95)), unit: "ms" },
    { bench: "tui", metric: "step_back_ms_p50", value: round(quantile(times, 0.5)), unit: "ms" },
    { bench: "tui", metric: "step_back_ms_p95", value: round(quantile(times, 0.95)), unit: "ms" },
    { bench: "tui", metric: "step_back_cpu_ms_p50", value: round(quantile(cpu, 0.5)), unit: "ms" },
    { bench: "tui", metric: "step_back_cpu_ms_p95", value: round(quantile(cpu, 0.95)), unit: "ms" },
  ];
}

async function redrawFigures(): Promise<Figure[]> {
  process.env.NODE_ENV ??= "production"; // as the app runs React (before React is loaded)
  const [{ createElement }, { renderToString }, { Screen }] = await loadTerminalUi("zksim bench tui", () => Promise.all([import("react"), import("ink"), import("./components/screen.js")]));
  const session = await Session.begin(zabAdapter, { seed: 1 });
  const controller = new Controller(session, () => undefined, () => undefined, "bench");
  const out: Figure[] = [];
  const draw = () => renderToString(createElement(Screen, { view: controller.state, size: { rows: 24, columns: 80 }, lesson: undefined }), { columns: 80 });
  for (let i = 0; i < 50; i++) draw(); // V8 compiles ink's layout and rendering first
  for (let speed = 0; speed < SPEEDS.length; speed++) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < TICKS_PER_SPEED + WARMUP; i++) {
      if (i % 5 === 0) session.act({ kind: "client", client: "c1", op: "set", path: "/", data: String(i) });
      const t0 = performance.now();
      const c0 = cpuMs();
      controller.state = { ...controller.state, running: true, speed };
      await controller.tick();
      draw();
      if (i < WARMUP) continue;
      times.push(performance.now() - t0);
      cpu.push(cpuMs() - c0);
    }
    out.push({ bench: "tui", metric: `redraw_tick_ms_p95_x${SPEEDS[speed]}`, value: round(quantile(times, 0.95)), unit: "ms" });
    out.push({ bench: "tui", metric: `redraw_tick_cpu_ms_p95_x${SPEEDS[speed]}`, value: round(quantile(cpu, 0.95)), unit: "ms" });
  }
  out.push({ bench: "tui", metric: "redraw_tick_budget_ms", value: TICK_MS, unit: "ms" });
  return out;
}

const COLD_STARTS = 5;
const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

interface StartFigures {
  firstFrame: { cpuMs: number; wallMs: number };
  interactive: { cpuMs: number; wallMs: number };
}

/** One `zksim learn` started in a pseudo-terminal; its own report of its start, or why there is none. */
function coldStart(dir: string, i: number): StartFigures | string {
  const report = join(dir, `start-${i}.json`);
  const command = `stty rows 24 cols 80; exec ${JSON.stringify(process.execPath)} --max-semi-space-size=64 ${JSON.stringify(BIN)} learn --lesson quorum-commit`;
  const r = spawnSync("script", ["-qfec", command, "/dev/null"], { env: { ...process.env, [FIRST_FRAME_ENV]: report, CI: "false", XDG_CONFIG_HOME: dir }, encoding: "utf8", timeout: 120_000 });
  if (r.error !== undefined) return `script: ${r.error.message}`;
  try {
    return JSON.parse(readFileSync(report, "utf8")) as StartFigures;
  } catch (err) {
    return `no report (${(err as Error).message}); exit ${String(r.status)}: ${r.stdout.slice(-200)}`;
  }
}

function coldStartFigures(): Figure[] {
  if (spawnSync("sh", ["-c", "command -v script"]).status !== 0) {
    process.stderr.write("bench tui: cold start skipped: `script` (util-linux) is needed for a pseudo-terminal\n");
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), "zksim-bench-tui-"));
  try {
    const runs: StartFigures[] = [];
    for (let i = 0; i < COLD_STARTS; i++) {
      const r = coldStart(dir, i);
      if (typeof r === "string") throw new Error(`bench tui: cold start ${i + 1}: ${r}`);
      runs.push(r);
    }
    const median = (pick: (r: StartFigures) => number) => round(quantile(runs.map(pick), 0.5));
    return [
      { bench: "tui", metric: "cold_start_first_frame_cpu_ms", value: median((r) => r.firstFrame.cpuMs), unit: "ms" },
      { bench: "tui", metric: "cold_start_first_frame_wall_ms", value: median((r) => r.firstFrame.wallMs), unit: "ms" },
      { bench: "tui", metric: "cold_start_interactive_cpu_ms", value: median((r) => r.interactive.cpuMs), unit: "ms" },
      { bench: "tui", metric: "cold_start_interactive_wall_ms", value: median((r) => r.interactive.wallMs), unit: "ms" },
      { bench: "tui", metric: "cold_start_budget_cpu_ms", value: 1_000, unit: "ms" },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function tuiBench(): Promise<Figure[]> {
  return [...coldStartFigures(), ...(await stepBackFigures()), ...(await redrawFigures())];
}
