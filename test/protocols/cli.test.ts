import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastJson, zksim } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-commit-"));

function scenarioFile(name: string, doc: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, durationMs: 1000, ...doc }));
  return file;
}

async function expectUserError(args: string[], message: RegExp): Promise<void> {
  const r = await zksim(...args);
  expect(r.status).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(message);
}

describe("zksim with the commit protocols", () => {
  it("lists the 2PC/3PC scenarios with their tags", async () => {
    const list = lastJson<{ name: string; tags: string[] }[]>(await zksim("list", "--json"));
    const tags = new Map(list.map((e) => [e.name, e.tags]));
    for (const s of ["2pc-commit", "2pc-rollback", "2pc-coordinator-crash-blocks", "2pc-partial-commit"]) expect(tags.get(s)).toContain("2pc");
    for (const s of ["3pc-coordinator-crash-nonblocking", "3pc-partition-inconsistency"]) expect(tags.get(s)).toContain("3pc");
    for (const s of ["2pc-random-faults", "3pc-random-faults", "3pc-random-crashes"]) expect(tags.get(s)).toEqual(expect.arrayContaining(["swarm", "protocol"]));
    expect(tags.get("3pc-partition-inconsistency")).toContain("expect-fail");
  });

  it("runs a twin with --variant and keeps the flag in the replay line", async () => {
    const r = await zksim("run", "2pc-random-faults", "--seed", "3", "--variant", "abort-in-doubt");
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/commit\.atomicity/);
    expect(r.stdout).toMatch(/replay: zksim run 2pc-random-faults --seed 3 --variant abort-in-doubt/);
  });

  it("draws a run as a space-time diagram with the book's message names", async () => {
    const out = join(dir, "partial.html");
    expect((await zksim("run", "2pc-partial-commit", "--trace", out)).status).toBe(0);
    const html = readFileSync(out, "utf8");
    for (const kind of ["prepare", "vote", "commit", "ack"]) expect(html).toContain(kind);
  });

  it("a swarm seed that shows the documented flaw is deterministic, listed apart by explore, saved, replayed and shrunk", async () => {
    expect((await zksim("determinism", "3pc-random-faults", "--seed", "13")).status).toBe(0);
    const saveDir = join(dir, "cases");
    const run = await zksim("explore", "3pc-random-faults", "--from", "13", "--seeds", "1", "--save-dir", saveDir, "--json");
    expect(run.status).toBe(0);
    const explored = lastJson<{ failures: unknown[]; expected: { seed: number; checker: string }[] }>(run);
    expect(explored.failures).toEqual([]);
    expect(explored.expected).toEqual([expect.objectContaining({ seed: 13, checker: "commit.atomicity" })]);
    const file = join(saveDir, "3pc-random-faults-seed-13.json");
    expect((await zksim("replay", file)).status).toBe(0);
    const shrunk = await zksim("shrink", file, "--max-runs", "40");
    expect(shrunk.stdout).toMatch(/shrunk case fails with: commit\.atomicity/);
  });

  it("rejects bad input with one line and exit 2", async () => {
    await expectUserError(["run", "2pc-commit", "--variant", "bogus"], /script "2pc" has no variant "bogus" \(its variants: abort-in-doubt/);
    expectUserError(["run", scenarioFile("zero", { workload: { kind: "two-phase-commit", participants: 0 } })], /workload\.participants: expected an integer in \[1, 9\], got 0/);
    expectUserError(["run", scenarioFile("ghost", { workload: { kind: "three-phase-commit" }, faults: [{ atMs: 1, kind: "crash", node: "p7" }] })], /faults\[0\]\.node: unknown node "p7"/);
    expectUserError(["run", scenarioFile("object", { workload: { kind: "two-phase-commit", transactions: [{ atMs: 1, key: "x", value: { a: 1 } }] } })], /transactions\[0\]\.value: expected a string or a number, got \{"a":1\}/);
    expectUserError(["run", scenarioFile("build", { workload: { kind: "three-phase-commit", script: "3pc-bogus" } })], /workload\.script: unknown 3PC build "3pc-bogus"/);
  });
});
