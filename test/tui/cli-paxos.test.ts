/**
 * `zksim learn paxos` and `zksim learn multipaxos` through the built CLI: a script runs and
 * prints the protocol's frames (with its pane); bad input (a client that does not exist, an
 * unknown variant or lesson) is one line and exit 2; `--lessons` lists the lessons.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zksim } from "../helpers/cli.js";

describe("tui: zksim learn paxos / multipaxos (plain)", () => {
  const saved = process.env.XDG_CONFIG_HOME;
  beforeAll(() => {
    process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), "zksim-learn-paxos-"));
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
  });

  it("tui: cli: paxos: a script runs; the BALLOTS pane shows the chosen majority", async () => {
    const r = await zksim("learn", "paxos", "--script", "run 20ms");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^zksim learn paxos \[correct\] · seed 1 · step 0/m);
    expect(r.stdout).toMatch(/^✓ b1 p1  promised a1 a2 a3  accepted a1 a2 a3 \[1, A\]  chosen$/m);
    expect(r.stdout).toMatch(/p1 sees a majority accept \[1, A\]: A is chosen/);
  });

  it("tui: cli: bad input is one line and exit 2", async () => {
    const client = await zksim("learn", "multipaxos", "--script", "write r1 /k a");
    expect(client.status).toBe(2);
    expect(client.stdout).toMatch(/^error: no client "r1" \(clients: c1, c2\)$/m);
    const noClients = await zksim("learn", "paxos", "--script", "write c1 /k a");
    expect(noClients.status).toBe(2);
    expect(noClients.stdout).toMatch(/^error: paxos has no clients/m);
    const variant = await zksim("learn", "paxos", "--variant", "nope");
    expect(variant.status).toBe(2);
    expect(variant.stderr).toBe('zksim: paxos: unknown variant "nope" (known: correct, dueling, ignore-promised-values, promise-before-fsync)\n');
    expect((await zksim("learn", "multipaxos", "--lesson", "nope")).stderr).toMatch(/^zksim: learn: no multipaxos lesson "nope" \(lessons: phase-2-only, leader-failover/);
  });

  it("tui: cli: --lessons without a protocol lists every protocol's lessons, each with how to start it", async () => {
    const out = (await zksim("learn", "--lessons")).stdout;
    for (const p of ["zab", "paxos", "multipaxos", "2pc", "3pc"]) expect(out).toMatch(new RegExp(`^${p} — `, "m"));
    expect(out).toMatch(/^\s+quorum-commit\s+A commit needs/m);
    expect(out).toMatch(/^\s+partition-breaks-atomicity\s+/m);
    expect(out).toMatch(/start one: zksim learn 3pc --lesson NAME/);
  });

  it("tui: cli: --lessons lists the Paxos and Multi-Paxos lessons", async () => {
    expect((await zksim("learn", "paxos", "--lessons")).stdout).toMatch(/^\s+why-phase-1\s+Why phase 1: a later proposer adopts the chosen value$/m);
    expect((await zksim("learn", "multipaxos", "--lessons")).stdout).toMatch(/^\s+master-lease\s+A deposed master serves a stale read \(no lease\)$/m);
  });
});
