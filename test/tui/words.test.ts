/**
 * The words of `zksim learn`: every lesson's solution is run and its narration, pending list and
 * strip read. A ZAB follower's reply to NEWLEADER is ACK-LD, never a txn ACK; a follower's own
 * log write never says what a leader does with it; a txn ACK is told once; no timer is named by
 * its internal label; a 2PC/3PC vote is named Yes or No.
 */
import { describe, expect, it } from "vitest";
import { LESSONS, lessonNamed } from "../../src/tui/lessons/index.js";
import { openSession } from "../../src/tui/cli.js";
import { splitScript, parseCommand } from "../../src/tui/commands.js";
import { execute } from "../../src/tui/execute.js";
import { stripLines } from "../../src/tui/frame-text.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import type { Frame } from "../../src/stepper/types.js";
import type { Session } from "../../src/stepper/session.js";

/** Runs a lesson's solution; every trace event, and every frame after each command. */
async function solved(protocol: string, name: string, script?: string): Promise<{ session: Session; events: TraceEvent[]; frames: Frame[] }> {
  const lesson = lessonNamed(protocol, name);
  const session = await openSession(protocol, lesson, undefined, undefined, undefined);
  const events: TraceEvent[] = [];
  session.world.sim.trace.subscribe((e) => events.push(e));
  const frames = [session.frame()];
  for (const c of splitScript(script ?? lesson.solution)) {
    await execute(session, parseCommand(c));
    frames.push(session.frame());
  }
  return { session, events, frames };
}

const narrationOf = (frames: Frame[]) => [...new Set(frames.flatMap((f) => f.recent.map((r) => r.narration).filter((n): n is string => n !== undefined)))];

describe("tui: the words", () => {
  it("tui: words: ZAB — NEWLEADER is answered by ACK-LD, a txn ACK is told once, a follower's log write is a follower's", async () => {
    const { frames, events } = await solved("zab", "lagging-follower");
    const lines = narrationOf(frames);
    expect(lines).toContainEqual(expect.stringMatching(/^s3 receives ACK-LD from s1: s1 has logged the new leader's history/));
    expect(lines.filter((l) => /receives ACK from/.test(l))).toEqual([]);
    expect(lines.filter((l) => /counts it as its own|a leader counts its own/.test(l))).toEqual([]);
    expect(lines).toContainEqual(expect.stringMatching(/^s2 has logged 0x100000004 \(fsynced\) and sends its ACK to the leader$/));
    expect(lines).toContainEqual(expect.stringMatching(/^s3 \(leader\) has logged 0x100000004 \(fsynced\): its own ACK, 1 of the 2 a quorum needs$/));
    // One line per ACK: for each txn ACK the follower sends, exactly one line at the follower and one at the leader.
    const last = frames[frames.length - 1]!;
    const counted = last.recent.filter((r) => r.event.kind === "zab.ack" && r.event.fields?.from !== r.event.fields?.sid);
    expect(counted.length).toBeGreaterThan(0);
    expect(counted.every((r) => r.narration !== undefined)).toBe(true);
    const delivered = last.recent.filter((r) => r.event.kind === "deliver" && r.event.detail === "ACK" && r.narration !== undefined);
    // The ACKs that arrive at the leader with a line of their own are ACK-LDs (from the election at the start, and s1's after its restart).
    expect(delivered.map((r) => r.narration!.split(":")[0]).every((l) => l !== undefined && /^s3 receives ACK-LD from s[12]$/.test(l))).toBe(true);
    expect(delivered.map((r) => r.narration!.split(":")[0])).toContain("s3 receives ACK-LD from s1");
    expect(events.some((e) => e.kind === "zab.leader.established" || e.kind === "zab.sync")).toBe(true);
    expect(stripLines(last, 100, 400).some((l) => /ACK-LD$/.test(l))).toBe(true);
  });

  it("tui: words: no timer is named by its label, in the narration or the pending list", async () => {
    for (const lesson of LESSONS) {
      const { session, events, frames } = await solved(lesson.protocol, lesson.name);
      const labels = [...new Set(events.filter((e) => e.kind === "timer").map((e) => e.detail!))];
      for (const label of labels) expect(session.adapter.timerName(label), `${lesson.protocol}: timer ${label}`).not.toBe(label);
      // An internal label reads like code (fle.notTimeout, zk-client.reconnect, leader-tick); a plain word may be English too.
      const internal = labels.filter((l) => /[.-]|[a-z][A-Z]/.test(l));
      for (const line of narrationOf(frames)) for (const label of internal) expect(line, `${lesson.protocol}/${lesson.name}`).not.toContain(label);
      for (const f of frames) for (const p of f.pending) if (p.kind === "timer") expect(p.book).not.toBe(p.label);
    }
  }, 120_000);

  it("tui: words: a 2PC/3PC vote is named Yes or No — pending, strip and narration", async () => {
    const { frames } = await solved("2pc", "one-no-vote");
    const lines = narrationOf(frames);
    expect(lines).toContainEqual("co receives No from p2 — phase 1's answer");
    expect(lines).toContainEqual("co receives Yes from p1 — phase 1's answer");
    expect(lines.some((l) => /receives Vote/.test(l))).toBe(false);
    const strip = stripLines(frames[frames.length - 1]!, 100, 400);
    expect(strip.some((l) => /◀───────● .* No$/.test(l))).toBe(true);
    const three = await solved("3pc", "three-phases", "step 12; step 4");
    const votes = three.frames[1]!.pending.filter((p) => p.kind === "message" && p.type === "vote");
    expect(votes.length).toBeGreaterThan(0);
    expect(votes.every((p) => p.book === "Yes")).toBe(true);
    expect(narrationOf(three.frames)).toContainEqual(expect.stringMatching(/^co receives Yes from p\d — canCommit's answer$/));
  });
});
