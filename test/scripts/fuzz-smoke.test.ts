/**
 * The fuzzer's smoke (scripts/fuzz.mjs --smoke, docs/reliability.md): about 120 mutated inputs over
 * the input surfaces that need no running serve — scenario files of every workload kind, replay
 * files of both kinds, learn sessions, explore --merge reports, zoo.cfg texts, the argument
 * vectors of every command and misbehaving user modules — each of which must end with an exit
 * code its command may give, one stderr line for exit 2, no stack trace, no hang, and no exit 0
 * on an input known to be invalid. `npm run fuzz` runs the full set (2,400 inputs, the wire too).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

interface Summary {
  inputs: number;
  surfaces: Record<string, { inputs: number; invalid: number; exits: Record<string, number> }>;
  findings: { surface: string; problem: string; args?: string[] }[];
}

function fuzz(...args: string[]): Summary {
  const r = spawnSync(process.execPath, ["scripts/fuzz.mjs", "--json", ...args], { cwd: ROOT, encoding: "utf8", timeout: 600_000 });
  expect(r.status, r.stderr).not.toBeNull();
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Summary;
}

test("fuzz smoke: 120 mutated inputs over seven surfaces, no finding", () => {
  const s = fuzz("--smoke", "--seed", "30");
  expect(s.findings.map((f) => `[${f.surface}] ${f.problem} (zksim ${f.args?.join(" ")})`)).toEqual([]);
  expect(s.inputs).toBeGreaterThanOrEqual(110);
  expect(Object.keys(s.surfaces).sort()).toEqual(["argv", "merge", "replay", "scenario", "session", "userModule", "zooCfg"]);
  // The oracle is not vacuous: many inputs are known invalid, and every surface saw exit 2.
  for (const [name, surface] of Object.entries(s.surfaces)) {
    if (name !== "zooCfg") expect(surface.invalid, name).toBeGreaterThan(0);
    expect(surface.exits["2"] ?? 0, name).toBeGreaterThan(0);
  }
});
