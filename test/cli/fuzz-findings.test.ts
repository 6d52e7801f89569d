/**
 * What scripts/fuzz.mjs found (docs/reliability.md), each pinned: an input that was accepted, or
 * refused in more than one line, is now bad input — exit 2, one `zksim:` line naming what was
 * wrong.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { zksim, type CliResult } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-fuzz-findings-"));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function expectBadInput(r: CliResult, message: RegExp): void {
  expect(r.status, r.stderr + r.stdout).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(/^zksim: /);
  expect(r.stderr).toMatch(message);
}

const kernel = { name: "k", durationMs: 1000, convergence: false, workload: { kind: "kernel-traffic", nodes: 3 } };

describe("scenario files", () => {
  test("a file that starts with a byte-order mark: one line, the JSON error's quoted text without its line breaks", async () => {
    const p = file("bom.json", `\ufeff${JSON.stringify(kernel, null, 2)}`);
    expectBadInput(await zksim("run", p), /bom\.json: not valid JSON/);
  });

  test("a kernel-traffic workload refuses a parameter it does not know", async () => {
    expectBadInput(await zksim("run", file("k1.json", JSON.stringify({ ...kernel, workload: { ...kernel.workload, fuzzExtra: 1 } }))), /unknown parameter "fuzzExtra" for kind "kernel-traffic"/);
  });

  test("a fault entry refuses a field its kind does not read (a misspelt durationMS on a heal)", async () => {
    const doc = { ...kernel, faults: [{ atMs: 10, kind: "heal", durationMS: 5 }] };
    expectBadInput(await zksim("run", file("k2.json", JSON.stringify(doc))), /faults\[0\]: unknown field "durationMS" for a "heal" fault \(allowed: kind, atMs, when, forMs, onlyIfUp\)/);
  });

  test("a 2PC transaction at 1e300 ms is refused, not run", async () => {
    const doc = JSON.parse(readFileSync("scenarios/2pc-commit.json", "utf8")) as { workload: { transactions?: { atMs: number }[] } };
    doc.workload.transactions = [{ atMs: 1e300, key: "x", value: 1 } as { atMs: number }];
    expectBadInput(await zksim("explore", file("t.json", JSON.stringify(doc)), "--seeds", "2", "--workers", "1"), /"workload\.transactions\[0\]\.atMs" must be a duration from 0 to 86,400,000 ms/);
  });
});

describe("learn session files", () => {
  let session: Record<string, unknown>;
  beforeAll(async () => {
    const saved = join(dir, "session.json");
    const r = await zksim("learn", "paxos", "--plain", "--script", "step 4", "--save", saved);
    expect(r.status, r.stderr).toBe(0);
    session = JSON.parse(readFileSync(saved, "utf8")) as Record<string, unknown>;
  });
  const both = async (name: string, doc: unknown, message: RegExp): Promise<void> => {
    const p = file(name, JSON.stringify(doc));
    expectBadInput(await zksim("replay", p), message);
    expectBadInput(await zksim("learn", "--open", p, "--plain", "--script", "step"), message);
  };

  test("an unknown field of the file, a branch or an action is refused (as in a scenario)", async () => {
    await both("s1.json", { ...session, fuzzExtra: 1 }, /the file: unknown field "fuzzExtra"/);
    const branches = session.branches as Record<string, unknown>[];
    await both("s2.json", { ...session, branches: [{ ...branches[0], extra: [] }, ...branches.slice(1)] }, /branches\[0\]: unknown field "extra"/);
    const delayed = { ...branches[0], interventions: [{ atEvent: 1, action: { kind: "delay", msg: 1, delayMs: 5, by: 3 } }] };
    await both("s3.json", { ...session, branches: [delayed] }, /action: unknown field "by"/);
  });

  test("a delay of 1e300 ms is refused with its bound", async () => {
    const branches = session.branches as Record<string, unknown>[];
    const delayed = { ...branches[0], interventions: [{ atEvent: 1, action: { kind: "delay", msg: 1, delayMs: 1e300 } }] };
    await both("s4.json", { ...session, branches: [delayed] }, /delayMs must be a duration from 0 to 86,400,000 ms \(one virtual day\), got 1e\+300/);
  });
});

describe("counts and scripts", () => {
  test("absurd counts are refused with their bound: shrink --max-runs, explore --workers", async () => {
    expectBadInput(await zksim("shrink", file("any.json", "{}"), "--max-runs", "100000000000"), /shrink: --max-runs 100000000000 is more than 1000000/);
    expectBadInput(await zksim("explore", "zab-random-faults", "--seeds", "1", "--workers", "100000000000"), /explore: --workers 100000000000 is more than 256/);
  });

  test("learn --plain: a bad script command says so on stderr as well, in one line (exit 2)", async () => {
    const r = await zksim("learn", "paxos", "--plain", "--script", "step; q");
    expectBadInput(r, /^zksim: learn: "q": unknown command "q" \(commands: step/);
    expect(r.stdout).toContain('error: unknown command "q"');
    const c = await zksim("learn", "compare", "2pc", "3pc", "--plain", "--script", "q");
    expectBadInput(c, /^zksim: learn: "q": unknown command "q"/);
  });
});
