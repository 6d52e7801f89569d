/**
 * The Paxos and Multi-Paxos lessons (their solutions' golden transcripts are checked with every
 * lesson's in lessons.test.ts): at least four each, and a run that misses a lesson's idea does
 * not reach its goal.
 */
import { describe, expect, it } from "vitest";
import { LESSONS, lessonNamed } from "../../src/tui/lessons/index.js";
import { openSession } from "../../src/tui/cli.js";
import { runPlain } from "../../src/tui/plain.js";
import { splitScript } from "../../src/tui/commands.js";

describe("tui: Paxos and Multi-Paxos lessons", () => {
  it("tui: at least four Paxos and four Multi-Paxos lessons", () => {
    expect(LESSONS.filter((l) => l.protocol === "paxos").length).toBeGreaterThanOrEqual(4);
    expect(LESSONS.filter((l) => l.protocol === "multipaxos").length).toBeGreaterThanOrEqual(4);
  });

  it("tui: Paxos/Multi-Paxos lesson goals are not reached by a run that misses the idea", async () => {
    const misses: [string, string, string][] = [
      ["paxos", "why-phase-1", "fire t2; run 100ms"], // both start together: nothing was chosen before p2's phase 1
      ["paxos", "break-consensus", "fire t2; run 100ms"], // no value chosen before the broken proposer ran
      ["paxos", "higher-ballot", "run 8.6ms; fire t2; run 100ms"], // p1's accepts arrive before p2's prepare
      ["paxos", "dueling-proposers", "run 20ms"], // the livelock, not yet its end
      ["paxos", "proposer-crash", "run 20ms; crash p1; fire t2; run 40ms"], // p1 knew A was chosen
      ["multipaxos", "phase-2-only", "write c1 /k a; run 30ms"], // one command
      ["multipaxos", "leader-failover", "crash r1; write c1 /k a; run 1s"], // a follower crashed
      ["multipaxos", "noop-gaps", "write c1 /k a; write c2 /k b; run 15ms; step 2; crash r3; run 1s"], // nothing accepted: no gap
      ["multipaxos", "master-lease", "write c1 /k a; run 50ms; cut r3 <-> r1,r2,c2; run 600ms; write c2 /k b; run 400ms; read c2 /k; run 100ms"], // read from the new master
      ["multipaxos", "skip-phase-1", "write c1 /k a; run 30ms; crash r3; crash c1; write c2 /k b; run 1s"], // slot 0 chosen and known by all
    ];
    for (const [protocol, name, script] of misses) {
      const lesson = lessonNamed(protocol, name);
      const session = await openSession(protocol, lesson, undefined, undefined, undefined);
      await runPlain({ session, lesson, commands: splitScript(script), write: () => undefined });
      expect(session.frame().goal?.reached, `${protocol}/${name}: ${script}`).toBe(false);
    }
  });

  it("tui: dueling proposers: a run where a value is chosen while both still propose is never called a livelock", async () => {
    // Seed 348: a majority accepts [3, B] at 17.6 ms, before the distinguished proposer takes over.
    const lesson = lessonNamed("paxos", "dueling-proposers");
    const session = await openSession("paxos", lesson, 348, undefined, undefined);
    await runPlain({ session, lesson, commands: splitScript(lesson.solution), write: () => undefined });
    const goal = session.frame().goal!;
    expect(goal.reached).toBe(false);
    expect(goal.text).toMatch(/^ballot 3 of p1 was accepted by a1, a3: B is chosen after \d+ pre-emption\(s\), while both still proposed: no livelock in this run/);
  });

  it("tui: the broken twins' lessons need their twin: the same moves on the correct protocol break nothing", async () => {
    for (const [protocol, name] of [["paxos", "break-consensus"], ["multipaxos", "skip-phase-1"], ["multipaxos", "master-lease"]] as const) {
      const lesson = lessonNamed(protocol, name);
      const session = await openSession(protocol, lesson, undefined, "correct", undefined);
      await runPlain({ session, lesson, commands: splitScript(lesson.solution), write: () => undefined });
      expect(session.frame().goal?.reached, `${protocol}/${name} on correct`).toBe(false);
      expect(session.frame().verdicts.every((v) => v.ok), `${protocol}/${name} on correct`).toBe(true);
    }
  });
});
