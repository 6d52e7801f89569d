/**
 * The conformance suite as a whole: run every script against a server, read and write the
 * golden transcripts recorded from a real ZooKeeper 3.8.0 (`conformance/golden/<script>.json`),
 * and compare another server's transcripts with them, step by step, setting apart the
 * differences that are known and explained (known-differences.ts).
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { runScript, type ConformanceScript, type ConformanceTarget } from "./runner.js";
import { compareTranscripts, type StepDifference, type Transcript } from "./transcript.js";
import { KNOWN_DIFFERENCES } from "./known-differences.js";

export interface GoldenTranscript extends Transcript {
  /** The real server's `srvr` version line. */
  recordedFrom: string;
}

export async function runSuite(scripts: readonly ConformanceScript[], target: ConformanceTarget): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for (const script of scripts) out.push(await runScript(script, target));
  return out;
}

export function goldenPath(dir: string, script: string): string {
  return join(dir, `${script}.json`);
}

export function writeGoldens(dir: string, transcripts: readonly Transcript[], recordedFrom: string): void {
  mkdirSync(dir, { recursive: true });
  for (const t of transcripts) writeFileSync(goldenPath(dir, t.script), `${JSON.stringify({ recordedFrom, ...t } satisfies GoldenTranscript, null, 2)}\n`);
}

export function readGolden(dir: string, script: string): GoldenTranscript {
  return JSON.parse(readFileSync(goldenPath(dir, script), "utf8")) as GoldenTranscript;
}

export interface SuiteReport {
  matches: number;
  total: number;
  /** Differences with a reason in known-differences.ts. */
  explained: (StepDifference & { reason: string })[];
  unexplained: StepDifference[];
}

export function compareSuite(goldens: readonly Transcript[], actual: readonly Transcript[]): SuiteReport {
  const report: SuiteReport = { matches: 0, total: 0, explained: [], unexplained: [] };
  for (const golden of goldens) {
    const mine = actual.find((t) => t.script === golden.script) ?? { script: golden.script, steps: [] };
    const { total, differences } = compareTranscripts(golden, mine);
    report.total += total;
    report.matches += total - differences.length;
    for (const d of differences) {
      const known = KNOWN_DIFFERENCES.find((k) => k.script === d.script && k.step === d.step);
      if (known !== undefined) report.explained.push({ ...d, reason: known.reason });
      else report.unexplained.push(d);
    }
  }
  return report;
}

export function formatReport(report: SuiteReport): string[] {
  const lines = [`conformance: ${report.matches}/${report.total} steps match the real server`];
  for (const d of report.explained) lines.push(`  explained  ${d.script} #${d.index} "${d.step}": ${d.reason}`);
  for (const d of report.unexplained) {
    lines.push(`  DIFFERENT  ${d.script} #${d.index} "${d.step}"`);
    lines.push(`    real ZooKeeper: ${JSON.stringify(d.expected)}`);
    lines.push(`    zksim serve:    ${JSON.stringify(d.actual)}`);
  }
  return lines;
}
