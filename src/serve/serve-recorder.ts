/**
 * The recording of a `zksim serve` session: everything that entered the simulation from the
 * outside world — each real connection's open, every frame a client sent, each close by a
 * client (client-links.ts reports them) and every fault command applied — with its virtual time.
 * At stop it becomes a replay file ("replay/1", scenario/replay-file.ts) whose scenario runs the
 * "served" workload (scenario/workloads/served.ts): `zksim replay` reproduces the session with no
 * client attached, `zksim shrink` minimises it.
 *
 * Durability: with a file, every input is also appended to a journal, `<file>.partial` (JSON
 * lines: a header, then one input or fault per line), and the journal is flushed before each
 * simulation step (`flush`). A reply to a client can only come from a step, so every input whose
 * effect a client saw is on disk before the client saw it: a crash of serve loses nothing
 * acknowledged. A clean stop writes the replay file and removes the journal;
 * `servedCaseFromJournal` turns a journal left by a crash into a case to re-run.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { UserInputError } from "../sim/errors.js";
import type { Fault } from "../sim/faults.js";
import type { AnyCanary } from "../scenario/canaries.js";
import { isCanary } from "../scenario/canaries.js";
import { networkDiskToDocument, parseReplayFile, serializeReplayCase, type ReplayCase, type ReplayExpectation } from "../scenario/replay-file.js";
import { recordInput, SERVE_REGISTRY, servedScenario, settingsToRecord, type RecordedInput } from "./served-workload.js";
import type { ServedInput } from "./client-links.js";
import { serveScheduleToRecord, type ServeScenario } from "./serve-scenario.js";
import type { ServeSettings } from "./zoo-cfg.js";
import type { ServeTiming } from "./serve-timing.js";

export const JOURNAL_FORMAT = "served-journal/1";

export interface RecordingHeader {
  seed: number;
  settings: ServeSettings;
  canary?: AnyCanary;
  bugs?: readonly string[];
  /** A `--scenario`'s schedule (serve-scenario.ts), installed by the replay as serve installed it. */
  scenario?: ServeScenario;
  /** The link and disk settings served with (the timing profile, a scenario's over it): the replay scenario's own. */
  timing: ServeTiming;
}

export class ServeRecorder {
  readonly inputs: RecordedInput[] = [];
  readonly faults: Fault[] = [];
  private pending: string[] = [];
  readonly journalPath: string | undefined;

  /** `path`: the replay file to write at stop (undefined: record in memory only). */
  constructor(
    readonly header: RecordingHeader,
    readonly path: string | undefined,
  ) {
    this.journalPath = path === undefined ? undefined : `${path}.partial`;
    if (this.journalPath !== undefined) {
      mkdirSync(dirname(this.journalPath), { recursive: true });
      const { seed, settings, canary, bugs, scenario, timing } = header;
      const schedule = { ...(scenario === undefined ? {} : { scenario: serveScheduleToRecord(scenario) }), ...networkDiskToDocument(timing.network, timing.disk) };
      writeFileSync(this.journalPath, JSON.stringify({ zksim: JOURNAL_FORMAT, seed, settings: settingsToRecord(settings), canary: canary ?? null, bugs: [...(bugs ?? [])], ...schedule }) + "\n");
    }
  }

  input(input: ServedInput, atUs: number, events: number): void {
    const rec = recordInput(input, atUs, events);
    this.inputs.push(rec);
    if (this.journalPath !== undefined) this.pending.push(JSON.stringify(rec));
  }

  fault(fault: Fault): void {
    this.faults.push(fault);
    if (this.journalPath !== undefined) this.pending.push(JSON.stringify({ fault }));
  }

  /** Appends what was recorded since the last flush to the journal (call before every step). */
  flush(): void {
    if (this.journalPath === undefined || this.pending.length === 0) return;
    appendFileSync(this.journalPath, this.pending.join("\n") + "\n");
    this.pending = [];
  }

  /** Runs `start` (serve's listeners); if it fails, the journal goes (nothing was served) and the error propagates. */
  async unlessFailed<T>(start: () => Promise<T>): Promise<T> {
    let started = false;
    try {
      const result = await start();
      started = true;
      return result;
    } finally {
      if (!started && this.journalPath !== undefined) rmSync(this.journalPath, { force: true });
    }
  }

  /** The session as a replay case: it ran until virtual `endUs` and gave `expected`. */
  replayCase(endUs: number, expected: ReplayExpectation): ReplayCase {
    const { seed, settings, canary, bugs, scenario, timing } = this.header;
    return { scenario: servedScenario(settings, this.inputs, this.faults, endUs, seed, scenario, timing), seed, bugs: [...(bugs ?? [])], canary: canary !== undefined && isCanary(canary) ? canary : undefined, simplify: [], expected };
  }

  /** Writes the replay file (if recording to one) and removes the journal. */
  finish(c: ReplayCase): void {
    if (this.path === undefined) return;
    this.flush();
    writeFileSync(this.path, serializeReplayCase(c));
    rmSync(this.journalPath!, { force: true });
  }
}

/**
 * A journal left by a serve that did not stop cleanly, as a case ending at its last input or fault
 * (`expected` unknown: a pass with an empty hash, to be filled by a run).
 */
export function servedCaseFromJournal(text: string, source: string): ReplayCase {
  // A last line without its newline is a write torn by the crash: its inputs were never run.
  const whole = text.endsWith("\n") ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  const lines = whole.split("\n").filter((l) => l.trim() !== "");
  const parse = (line: string, n: number): Record<string, unknown> => {
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
    }
    throw new UserInputError(`${source}: line ${n + 1} is not a JSON object (a journal of zksim serve --record holds one per line)`);
  };
  const [head, ...rest] = lines.map(parse);
  if (head?.zksim !== JOURNAL_FORMAT) throw new UserInputError(`${source}: not a zksim serve journal: its first line must have "zksim": "${JOURNAL_FORMAT}"`);
  const inputs = rest.filter((r) => !("fault" in r));
  const faults = rest.filter((r) => "fault" in r).map((r) => r.fault);
  const timesUs = [...inputs.map((i) => i.atUs), ...faults.map((f) => (f as { atMs?: unknown }).atMs).map((ms) => (typeof ms === "number" ? ms * 1000 : 0))];
  const endUs = Math.max(1000, ...timesUs.map((t) => (typeof t === "number" ? t : 0)));
  // Through the replay-file parser, so a journal is validated exactly as a replay file is.
  const doc = {
    zksim: "replay/1",
    scenario: {
      name: "served",
      description: `a zksim serve session recovered from its journal ${source}`,
      tags: ["served"],
      seed: head.seed,
      durationMs: endUs / 1000,
      ...(head.network !== undefined ? { network: head.network } : {}),
      ...(head.disk !== undefined ? { disk: head.disk } : {}),
      workload: { kind: "served", settings: head.settings, inputs, ...(head.scenario !== undefined ? { scenario: head.scenario } : {}) },
      faults,
      convergence: false,
    },
    seed: head.seed,
    bugs: head.bugs ?? [],
    canary: head.canary ?? null,
    expected: { traceHash: "unknown", verdict: "pass", violations: [] },
  };
  return parseReplayFile(JSON.stringify(doc), source, SERVE_REGISTRY);
}
