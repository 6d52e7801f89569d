/**
 * Plain mode at COLUMNS=80: no line wider than 80 columns, and nothing a lesson teaches is cut —
 * the lesson's intro, its GOAL line and the goal-reached box wrap instead of ending in "…". Run in
 * process for every lesson's solution (and `compare 2pc 3pc`), through the built CLI with COLUMNS=80
 * for one lesson, `--lessons` and help; and over the golden transcripts (recorded at 100 columns).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../src/tui/lessons/index.js";
import { openSession, plainWidth } from "../../src/tui/cli.js";
import { runPlain } from "../../src/tui/plain.js";
import { splitScript } from "../../src/tui/commands.js";
import { openCompare, runComparePlain } from "../../src/tui/compare/compare-cli.js";
import { displayWidth } from "../../src/tui/text.js";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

/** Lines wider than `width` columns, with their numbers. */
function tooWide(lines: readonly string[], width: number): string[] {
  return lines.flatMap((l, i) => (displayWidth(l) > width ? [`${i + 1} (${displayWidth(l)}): ${l}`] : []));
}

/**
 * The transcript's teaching text: the lesson's intro (LESSON … up to the first blank line), every
 * GOAL line with its continuation lines, and each goal-reached box (✓ GOAL REACHED — … --- end ---).
 */
function teachingText(lines: readonly string[]): string[] {
  const out: string[] = [];
  let inIntro = false;
  let inBox = false;
  let inGoal = false;
  for (const line of lines) {
    if (line.startsWith("LESSON ")) inIntro = true;
    else if (inIntro && line.trim() === "") inIntro = false;
    if (/^✓ GOAL REACHED — /.test(line)) inBox = true;
    inGoal = /^[○✓✗] GOAL/.test(line) || (inGoal && line.startsWith("  "));
    if (inIntro || inBox || inGoal) out.push(line);
    if (line === "--- end ---") inBox = false;
  }
  return out;
}

/** A "…" that stands for cut text (the 2PC/3PC intros speak of the literal log mark "marked …"). */
const cut = (line: string) => line.replace(/marked … is/g, "").includes("…");

describe("tui: plain mode at COLUMNS=80", () => {
  it("tui: plain width: COLUMNS sets the width; nonsense falls back", () => {
    expect(plainWidth({ COLUMNS: "80" })).toBe(80);
    expect(plainWidth({ COLUMNS: "200" })).toBe(200);
    expect(plainWidth({ COLUMNS: "x" })).not.toBeNaN();
  });

  for (const lesson of LESSONS) {
    it(`tui: plain width: ${lesson.protocol}/${lesson.name} at 80 columns — nothing wider, no teaching text cut`, async () => {
      const session = await openSession(lesson.protocol, lesson, undefined, undefined, undefined);
      const lines: string[] = [];
      await runPlain({ session, lesson, commands: splitScript(`${lesson.solution}; help`), write: (l) => lines.push(...l.split("\n")), width: plainWidth({ COLUMNS: "80" }) });
      expect(session.frame().goal?.reached).toBe(true);
      expect(tooWide(lines, 80)).toEqual([]);
      const teaching = teachingText(lines);
      expect(teaching.some((l) => l.startsWith("LESSON "))).toBe(true);
      expect(teaching.some((l) => l.startsWith("✓ GOAL REACHED — "))).toBe(true);
      expect(teaching.filter(cut)).toEqual([]);
    });
  }

  it("tui: plain width: compare 2pc 3pc at 80 columns", async () => {
    const c = await openCompare(["2pc", "3pc"], 1);
    const lines: string[] = [];
    await runComparePlain(c, splitScript("step 8; crash co; run 4s; help"), (l) => lines.push(...l.split("\n")), 80);
    expect(lines.length).toBeGreaterThan(20);
    expect(tooWide(lines, 80)).toEqual([]);
  });

  it("tui: plain width: the built CLI with COLUMNS=80 — a lesson, --lessons, help, compare", () => {
    const config = mkdtempSync(join(tmpdir(), "zksim-width-"));
    const run = (...args: string[]) => {
      const r = spawnSync(process.execPath, [BIN, "learn", ...args], { encoding: "utf8", env: { ...process.env, COLUMNS: "80", FORCE_COLOR: "0", CI: "true", XDG_CONFIG_HOME: config } });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split("\n");
    };
    const quorum = LESSONS.find((l) => l.name === "quorum-commit")!;
    const lesson = run("--lesson", "quorum-commit", "--script", `${quorum.solution}; help`);
    expect(lesson.join("\n")).toMatch(/✓ GOAL REACHED — /);
    expect(tooWide(lesson, 80)).toEqual([]);
    expect(teachingText(lesson).filter(cut)).toEqual([]);
    expect(tooWide(run("--lessons"), 80)).toEqual([]);
    expect(tooWide(run("compare", "2pc", "3pc", "--script", "step 8; crash co; run 4s"), 80)).toEqual([]);
  });

  it("tui: plain width: the golden transcripts cut no lesson intro, GOAL line or goal box", () => {
    for (const lesson of LESSONS) {
      const text = readFileSync(new URL(`./golden/${lesson.protocol}-${lesson.name}.txt`, import.meta.url), "utf8");
      const teaching = teachingText(text.split("\n"));
      expect(teaching.length, `${lesson.protocol}/${lesson.name}`).toBeGreaterThan(3);
      expect(teaching.filter(cut), `${lesson.protocol}/${lesson.name}`).toEqual([]);
    }
  });
});
