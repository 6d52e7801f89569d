/**
 * Every lesson's solution, run in plain mode, reaches its goal; its transcript is golden
 * (test/tui/golden/<protocol>-<lesson>.txt): a change in what a lesson shows is visible in
 * review. UPDATE_GOLDEN=1 rewrites the files.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../src/tui/lessons/index.js";
import { openSession } from "../../src/tui/cli.js";
import { runPlain } from "../../src/tui/plain.js";
import { splitScript } from "../../src/tui/commands.js";

const golden = (protocol: string, name: string) => new URL(`./golden/${protocol}-${name}.txt`, import.meta.url);

describe("tui: lessons", () => {
  for (const lesson of LESSONS) {
    it(`tui: lesson ${lesson.protocol}/${lesson.name}: the solution reaches the goal, transcript as recorded`, async () => {
      const session = await openSession(lesson.protocol, lesson, undefined, undefined, undefined);
      expect(session.frame().goal?.reached).toBe(false);
      const lines: string[] = [];
      const status = await runPlain({ session, lesson, commands: splitScript(lesson.solution), write: (l) => lines.push(l), width: 100 });
      expect(status).toBe(0);
      expect(session.frame().goal?.reached, session.frame().goal?.text).toBe(true);
      const text = `${lines.join("\n")}\n`;
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden(lesson.protocol, lesson.name), text);
      expect(text).toBe(readFileSync(golden(lesson.protocol, lesson.name), "utf8"));
    });
  }

  it("tui: at least four lessons per protocol that has an adapter", () => {
    expect(LESSONS.filter((l) => l.protocol === "zab").length).toBeGreaterThanOrEqual(4);
  });
});
