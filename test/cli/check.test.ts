/**
 * `zksim check` through the built CLI: a small search finds the 2PC blocking, writes the
 * counterexample as a learn session that `zksim learn --open` opens at the violation (plain
 * mode), `zksim replay` reproduces (and `--trace F.html` draws as a space-time diagram), and
 * `zksim shrink` keeps failing the same way; `--json` is one line; bad input is one line and
 * exit 2.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lastJson, zksim } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "zksim-check-"));

describe("cli: zksim check", () => {
  it("cli: check: 2pc finds the blocking; the counterexample opens in learn, replays, draws and shrinks", async () => {
    const r = await zksim("check", "2pc", "--depth", "7", "--out", dir, "--json");
    expect(r.status).toBe(1);
    const report = lastJson<{ outcome: string; states: number; violations: { checker: string; file: string; atEnd: boolean }[]; holds: string[] }>(r);
    expect(report.outcome).toBe("complete");
    expect(report.states).toBeGreaterThan(10);
    expect(report.violations.map((v) => v.checker)).toEqual(["commit.blocking"]);
    expect(report.holds).toContain("commit.atomicity");
    const file = report.violations[0]!.file;
    const session = JSON.parse(readFileSync(file, "utf8")) as { format: string; branches: { interventions: { action: { kind: string; fault?: { kind: string; node: string } } }[] }[] };
    expect(session.format).toBe("zksim-learn-session");
    expect(session.branches[0]!.interventions.map((i) => i.action.fault)).toContainEqual({ kind: "crash", node: "co" });

    const opened = await zksim("learn", "--open", file, "--plain", "--script", "show");
    expect(opened.status).toBe(0);
    expect(opened.stdout).toMatch(/zksim learn 2pc \[standard\] · seed 1/);
    expect(opened.stdout).toMatch(/✗ commit\.blocking/);

    const html = join(dir, "blocking.html");
    const replay = await zksim("replay", file, "--trace", html);
    expect(replay.status).toBe(1);
    expect(replay.stdout).toMatch(/reproduced \(trace [0-9a-f]{16}\); violated: commit\.blocking/);
    expect(existsSync(html)).toBe(true);
    const drawn = readFileSync(html, "utf8");
    expect(drawn).toMatch(/<svg/);
    expect(drawn).toMatch(/crash/);

    const shrunk = join(dir, "shrunk.json");
    const s = await zksim("shrink", file, "--out", shrunk);
    expect(s.status).toBe(0);
    expect(s.stdout).toMatch(/shrunk path violates: commit\.blocking/);
    expect((await zksim("replay", shrunk)).status).toBe(1);
  }, 300_000);

  it("cli: check: bad input is one line and exit 2", async () => {
    const cases: [string[], RegExp][] = [
      [["check"], /^zksim: check: which target\?/],
      [["check", "nope"], /^zksim: check: no target "nope"/],
      [["check", "recipe-lock"], /^zksim: check: scenario recipe-lock has no stepper/],
      [["check", "2pc", "--depth", "-3"], /^zksim: --depth: must not be negative, got -3/],
      [["check", "2pc", "--depth", "99999999"], /^zksim: --depth: 99999999 is beyond any small world/],
      [["check", "2pc", "--faults", "crash=1,meteor=2"], /^zksim: --faults: unknown fault kind "meteor"/],
      [["check", "2pc", "--faults", "restart=2,crash=1"], /restart=2 is more than crash=1/],
      [["check", "2pc", "--strategy", "random"], /^zksim: check: --strategy must be bfs or dfs/],
      [["check", "2pc", "--checkers", "commit.nope"], /no checker commit\.nope/],
      [["check", "2pc", "--bug", "1154"], /unknown bug "1154" for this world/],
    ];
    for (const [args, message] of cases) {
      const r = await zksim(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
  }, 300_000);

  it("cli: check: --list names every target with its bounds", async () => {
    const r = await zksim("check", "--list", "--json");
    expect(r.status).toBe(0);
    const names = lastJson<{ name: string }[]>(r).map((t) => t.name);
    expect(names).toEqual(["2pc", "3pc", "3pc-crashes", "paxos", "multipaxos", "zab"]);
  });
});
