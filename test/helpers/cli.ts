/** Runs the built CLI in a fresh Node process (`npm test` builds dist/ first). */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function zksim(...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The last stdout line parsed as JSON (the `--json` contract). */
export function lastJson<T = Record<string, unknown>>(r: CliResult): T {
  const lines = r.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as T;
}
