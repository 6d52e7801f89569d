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
      ["isolated-leader", "cut s1 <-> s2,s3; run 15s"], // a follower isolated, not the leader
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

  it("tui: 2PC/3PC lesson goals are not reached by a run that misses the idea", async () => {
    const misses: [string, string, string][] = [
      ["2pc", "two-phases", "step 10"], // phase 2 not reached
      ["2pc", "one-no-vote", "txn c1 x 1; run 100ms"], // every vote Yes: committed
      ["2pc", "coordinator-crash-blocks", "step 16; crash co; run 1s"], // not blocked long enough
      ["2pc", "coordinator-crash-blocks", "step 3; crash co; run 4s"], // its begin record dies with it: no Prepare ever leaves
      ["2pc", "presumed-abort", "step 18; crash co; run 2s; restart co; run 500ms"], // the decision was durable: commit re-sent
      ["2pc", "partial-commit", "step 16; crash co; run 2s; restart co; run 500ms"], // nobody got Commit before the crash
      ["3pc", "three-phases", "step 20"],
      ["3pc", "coordinator-crash-commits", "run 1s"], // no crash: doCommit did it
      ["3pc", "uncertain-aborts", "step 30; crash co; run 2s"], // precommitted: they commit
      ["3pc", "partition-breaks-atomicity", "step 21; cut p1 <-> c1; run 2s"], // p1 still reaches co
    ];
    for (const [protocol, name, script] of misses) {
      const lesson = lessonNamed(protocol, name);
      const session = await openSession(protocol, lesson, undefined, undefined, undefined);
      await runPlain({ session, lesson, commands: splitScript(script), write: () => undefined });
      expect(session.frame().goal?.reached, `${protocol}/${name}: ${script}`).toBe(false);
    }
  });

  it("tui: at least four 2PC and four 3PC lessons", () => {
    expect(LESSONS.filter((l) => l.protocol === "2pc").length).toBeGreaterThanOrEqual(4);
    expect(LESSONS.filter((l) => l.protocol === "3pc").length).toBeGreaterThanOrEqual(4);
  });
});
