/**
 * Every lesson's solution, run in plain mode, reaches its goal; its transcript is golden
 * (test/tui/golden/<protocol>-<lesson>.txt): a change in what a lesson shows is visible in
 * review. UPDATE_GOLDEN=1 rewrites the files.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LESSONS, lessonNamed } from "../../src/tui/lessons/index.js";
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

  it("tui: lesson goals are not reached by a run that misses the idea", async () => {
    const misses: [string, string][] = [
      ["quorum-commit", "crash s1; crash s2; write c1 /a 1; run 1s"], // no commit with one follower down
      ["leader-crash-before-commit", "write c1 /p x; run 1s; crash s3; run 3s"], // committed before the crash
      ["lagging-follower", "crash s1; run 1s; restart s1; run 3s"], // it missed nothing
      ["isolated-leader", "cut s1 s2,s3; run 15s"], // a follower isolated, not the leader
    ];
    for (const [name, script] of misses) {
      const lesson = lessonNamed("zab", name);
      const session = await openSession("zab", lesson, undefined, undefined, undefined);
      await runPlain({ session, lesson, commands: splitScript(script), write: () => undefined });
      expect(session.frame().goal?.reached, `${name}: ${script}`).toBe(false);
    }
  });

  it("tui: at least four lessons per protocol that has an adapter", () => {
    expect(LESSONS.filter((l) => l.protocol === "zab").length).toBeGreaterThanOrEqual(4);
  });
});
