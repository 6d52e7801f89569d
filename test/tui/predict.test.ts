/**
 * Predict before you see: at a decisive step a lesson marks, a run stops and asks; stepping waits
 * for an answer (or esc); the engine runs ahead in a fork and its answer is shown and counted.
 * Every lesson's solution meets at least one of its questions, and the engine's answer is
 * always one of the choices offered.
 */
import { describe, expect, it } from "vitest";
import { LESSONS, lessonNamed } from "../../src/tui/lessons/index.js";
import { openSession } from "../../src/tui/cli.js";
import { Controller } from "../../src/tui/controller.js";
import type { Lesson } from "../../src/tui/lessons/lesson.js";

async function controllerOf(lesson: Lesson): Promise<Controller> {
  const session = await openSession(lesson.protocol, lesson, undefined, undefined, undefined);
  const c = new Controller(session, () => undefined, () => undefined, "hello", lesson);
  await c.dispatch({ kind: "close-box" });
  return c;
}

async function command(c: Controller, text: string): Promise<void> {
  await c.dispatch({ kind: "command-start" });
  for (const ch of text) await c.dispatch({ kind: "command-edit", text: ch, backspace: false });
  await c.dispatch({ kind: "command-submit" });
  await c.idle();
}

describe("tui: predictions", () => {
  it("tui: predict: the quorum lesson asks at the PROPOSE; the run stops, steps wait for the answer, the engine's answer is judged and counted", async () => {
    const c = await controllerOf(lessonNamed("zab", "quorum-commit"));
    await command(c, "crash s1");
    await command(c, "write c1 /a 1");
    await command(c, "run 1s");
    const box = c.state.box;
    expect(box?.kind).toBe("predict");
    if (box?.kind !== "predict") return;
    expect(box.question.text).toBe("s3 (leader) proposed 0x100000003 with s1 down. Will 0x100000003 be committed within a second?");
    expect(c.state.message).toMatch(/^stopped after \d+ step\(s\), at step \d+: see the box$/);
    const step = c.session.step;
    await c.dispatch({ kind: "step" });
    expect(c.session.step).toBe(step); // the question waits
    expect(c.state.message).toBe("a question waits: 1–2 answers it, esc skips it");
    await c.dispatch({ kind: "answer", choice: 1 }); // "no" — wrong
    await c.idle();
    const answered = c.state.box;
    expect(answered?.kind === "predict" && answered.answer).toEqual({ choice: 0, because: "s3 committed 0x100000003 at 1963.2 ms once s3 and s2 had logged it: a quorum" });
    expect(c.state.predictions).toEqual({ asked: 1, answered: 1, right: 0 });
    await c.dispatch({ kind: "step" }); // an answered question closes with the next step
    expect(c.state.box).toBeUndefined();
    expect(c.session.step).toBe(step + 1);
    // The second question, with a quorum down: answered right this time.
    await command(c, "crash s2");
    await command(c, "write c1 /b 2");
    await command(c, "run 2s");
    expect(c.state.box?.kind === "predict" && c.state.box.question.id).toBe("quorum-down");
    await c.dispatch({ kind: "answer", choice: 1 });
    await c.idle();
    expect(c.state.predictions).toEqual({ asked: 2, answered: 2, right: 1 });
  });

  it("tui: predict: esc skips a question: counted as asked, not answered; the run goes on", async () => {
    const c = await controllerOf(lessonNamed("2pc", "two-phases"));
    await command(c, "run 100ms");
    expect(c.state.box?.kind).toBe("predict");
    await c.dispatch({ kind: "close-box" });
    expect(c.state.message).toBe("question skipped");
    await command(c, "run 100ms");
    expect(c.state.predictions).toEqual({ asked: 1, answered: 0, right: 0 });
    expect(c.state.frame.goal?.reached).toBe(true);
  });

  it("tui: predict: every lesson's solution meets one of its questions; the engine's answer is one of the choices", async () => {
    for (const lesson of LESSONS) {
      expect(lesson.predictions?.length ?? 0, lesson.name).toBeGreaterThan(0);
      const c = await controllerOf(lesson);
      const answers: string[] = [];
      for (const cmd of lesson.solution.split(";")) {
        await command(c, cmd.trim());
        const box = c.state.box;
        if (box?.kind !== "predict") continue;
        await c.dispatch({ kind: "answer", choice: 0 });
        await c.idle();
        const answered = c.state.box;
        if (answered?.kind !== "predict" || answered.answer === undefined) throw new Error(`${lesson.name}: no answer`);
        expect(answered.answer.choice, `${lesson.protocol}/${lesson.name}: ${answered.question.text} → ${answered.answer.because}`).toBeGreaterThanOrEqual(0);
        expect(answered.answer.choice).toBeLessThan(answered.question.choices.length);
        answers.push(answered.question.id);
      }
      expect(answers.length, `${lesson.protocol}/${lesson.name} asked nothing along its solution`).toBeGreaterThan(0);
    }
  }, 300_000);
});
