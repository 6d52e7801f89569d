/**
 * The screen as the learner sees it (screen-lines.ts, a pure projection), at 80×24 and larger:
 * nothing a lesson needs is cut (the lesson's box, the goal and its box wrap; a node row keeps
 * the lesson's key fields), the selection is marked without colour, the narration scrolls back
 * (identical lines collapsed, the last decisive event pinned), Enter's hint says what it does,
 * the help scrolls, and the compare panes keep a gap.
 */
import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToString } from "ink";
import { LESSONS, lessonNamed } from "../../src/tui/lessons/index.js";
import { openSession } from "../../src/tui/cli.js";
import { Controller } from "../../src/tui/controller.js";
import { helpLines, screenLines, type Size } from "../../src/tui/screen-lines.js";
import { goalBoxLines, lessonBoxLines } from "../../src/tui/boxes.js";
import { displayWidth } from "../../src/tui/text.js";
import { openCompare } from "../../src/tui/compare/compare-cli.js";
import { CompareController } from "../../src/tui/compare/compare-controller.js";
import { CompareScreen } from "../../src/tui/compare/compare-app.js";
import type { Lesson } from "../../src/tui/lessons/lesson.js";
import { Session } from "../../src/stepper/session.js";
import { threePcAdapter } from "../../src/stepper/commit/commit-adapter.js";

const SIZES: Size[] = [
  { rows: 24, columns: 80 },
  { rows: 30, columns: 100 },
  { rows: 40, columns: 140 },
  { rows: 50, columns: 200 },
];

async function controllerOf(lesson: Lesson): Promise<Controller> {
  const session = await openSession(lesson.protocol, lesson, undefined, undefined, undefined);
  return new Controller(session, () => undefined, () => undefined, "hello", lesson);
}

/** Types a command on the controller's command line and waits for it. */
async function command(c: Controller, text: string): Promise<void> {
  await c.dispatch({ kind: "command-start" });
  for (const ch of text) await c.dispatch({ kind: "command-edit", text: ch, backspace: false });
  await c.dispatch({ kind: "command-submit" });
  await c.idle();
}

/** Answers (or closes) whatever box a run stopped at, so the solution goes on. */
async function closeBoxes(c: Controller): Promise<void> {
  await c.idle();
  if (c.state.box?.kind === "predict" && c.state.box.picked === undefined) await c.dispatch({ kind: "answer", choice: 0 });
  await c.idle();
  if (c.state.box !== undefined && c.state.box.kind !== "goal") await c.dispatch({ kind: "close-box" });
}

function fits(lines: readonly { text: string }[], size: Size): void {
  const width = Math.max(80, size.columns);
  expect(lines.length).toBeLessThanOrEqual(Math.max(23, size.rows - 1));
  for (const l of lines) expect(displayWidth(l.text), l.text).toBeLessThanOrEqual(width);
}

describe("tui: the screen", () => {
  it("tui: screen: every lesson's start box and goal box wrap at every size: no … in what it says, nothing wider than the terminal", async () => {
    for (const lesson of LESSONS) {
      const c = await controllerOf(lesson);
      for (const size of SIZES) {
        const width = Math.max(80, size.columns);
        const all = lessonBoxLines(lesson, width);
        expect(all.join(" ").replaceAll("marked …", "marked"), `${lesson.name}`).not.toContain("…"); // "…" is the log's fsync-pending mark
        const lines = screenLines(c.state, size, lesson).map((l) => l.text);
        fits(lines.map((text) => ({ text })), size);
        // The box shows its lines whole, in order, from the first (a pager line at the end when it must).
        const shown = lines.filter((l) => all.includes(l));
        expect(shown).toEqual(all.slice(0, shown.length));
        expect(shown.length).toBeGreaterThan(2);
        // The keys line: whole hints only, what Enter does first, ? help and q quit always.
        expect(lines.at(-1), `${lesson.name} ${size.columns}`).toMatch(/^‖ paused · enter: close the box · .*\? help · q quit$/);
      }
      await c.dispatch({ kind: "close-box" });
      const keys = screenLines(c.state, SIZES[0]!, lesson).at(-1)!.text;
      expect(keys, lesson.name).toMatch(/^‖ paused · enter: ((deliver|fire) [mt]\d+|—) · .*\? help · q quit$/);
      expect(keys).not.toContain("…");
    }
  }, 120_000);

  it("tui: screen: a lesson solved in the app — the goal box says what happened, the invariants, why, the book; the GOAL line wraps", async () => {
    for (const name of ["quorum-commit", "isolated-leader"]) {
      const lesson = { ...lessonNamed("zab", name), predictions: [] }; // its solution's runs run whole
      const c = await controllerOf(lesson);
      await c.dispatch({ kind: "close-box" });
      for (const cmd of lesson.solution.split(";")) {
        await command(c, cmd.trim());
        await closeBoxes(c);
      }
      for (let i = 0; i < 5 && c.state.frame.goal?.reached !== true; i++) {
        await command(c, "run 2s");
        await closeBoxes(c);
      }
      expect(c.state.frame.goal?.reached).toBe(true);
      expect(c.state.box?.kind).toBe("goal");
      for (const size of SIZES) {
        const lines = screenLines(c.state, size, lesson).map((l) => l.text);
        fits(lines.map((text) => ({ text })), size);
        const box = goalBoxLines(lesson, c.state.frame, c.state.predictions, Math.max(80, size.columns));
        expect(box.join(" ")).not.toContain("…");
        expect(box.join(" ")).toMatch(/What happened: .*Invariants: ✓ .* held .*Why it matters: .*Book: From Paxos to ZooKeeper/);
        expect(lines[lines.findIndex((l) => l.startsWith("✓ GOAL REACHED"))]).toBe(box[0]);
      }
      await c.dispatch({ kind: "close-box" });
      const goal = screenLines(c.state, SIZES[0]!, lesson).map((l) => l.text);
      const start = goal.findIndex((l) => l.startsWith("✓ GOAL REACHED:"));
      expect(start).toBeGreaterThan(0);
      const goalText = goal.slice(start).filter((l, i) => i === 0 || l.startsWith("  "));
      expect(goalText.join(" ")).not.toContain("…");
      expect(goal.slice(start).join(" ").replace(/\s+/g, " ")).toContain(c.state.frame.goal!.text);
    }
  }, 120_000);

  it("tui: screen: at 80 columns the leader's row keeps the quorum lesson's proposals; other rows say how many fields they left out", async () => {
    const lesson = lessonNamed("zab", "quorum-commit");
    const c = await controllerOf(lesson);
    await c.dispatch({ kind: "close-box" });
    await command(c, "crash s1");
    await command(c, "write c1 /a 1");
    for (let i = 0; i < 3; i++) await c.dispatch({ kind: "step" });
    await c.idle();
    const lines = screenLines(c.state, SIZES[0]!, lesson).map((l) => l.text);
    const leader = lines.find((l) => /● s3 leader/.test(l))!;
    expect(leader).toMatch(/last 0x100000002 {2}\*proposals 0x100000003:0ack {2}\+\d$/);
    expect(lines.find((l) => /● s2 follower/.test(l))).toMatch(/ \+\d$/);
    // Taller, the rows wrap and leave nothing out.
    await c.dispatch({ kind: "close-box" });
    const tall = screenLines(c.state, { rows: 50, columns: 80 }, lesson).map((l) => l.text);
    expect(tall.some((l) => /^ {15,}phase broadcast {2}vote s3/.test(l))).toBe(true);
    expect(tall.filter((l) => /● s\d/.test(l)).every((l) => !/ \+\d$/.test(l))).toBe(true);
  });

  it("tui: screen: the selection is a > mark, not colour alone, from the first frame; Enter's hint names what it does", async () => {
    const c = await controllerOf(lessonNamed("zab", "quorum-commit"));
    await c.dispatch({ kind: "close-box" });
    const lines = screenLines(c.state, SIZES[0]!, c.lesson).map((l) => l.text);
    expect(lines.filter((l) => l.startsWith(">"))).toHaveLength(2); // the node row and the pending row
    expect(lines.find((l) => l.startsWith(">●"))).toMatch(/^>● s1 follower/);
    expect(lines.find((l) => l.startsWith("> 1 "))).toMatch(/^> 1 ▸ t41 /);
    expect(lines[lines.length - 1]).toMatch(/enter: fire t41/);
    await c.dispatch({ kind: "next-node" });
    await c.dispatch({ kind: "select", delta: 1 });
    const next = screenLines(c.state, SIZES[0]!, c.lesson).map((l) => l.text);
    expect(next.find((l) => l.startsWith(">●"))).toMatch(/^>● s2 follower/);
    expect(next.find((l) => l.startsWith("> 2 "))).toBeDefined();
  });

  it("tui: screen: the narration scrolls back with the strip, collapses identical lines, pins the last decisive one", async () => {
    const lesson = lessonNamed("3pc", "partition-breaks-atomicity");
    const session = await Session.begin(threePcAdapter, { seed: 1, setup: lesson.setup }); // free play: no goal, no boxes
    const c = new Controller(session, () => undefined, () => undefined, "hello");
    for (const cmd of lesson.solution.split(";")) await command(c, cmd.trim());
    const size = SIZES[0]!;
    const now = screenLines(c.state, size, undefined).map((l) => l.text);
    expect(now.join("\n")).toMatch(/abort co→p1 is lost \(partition\) ×\d+/);
    await c.dispatch({ kind: "scroll", delta: -12 });
    const back = screenLines(c.state, size, undefined).map((l) => l.text);
    expect(back.find((l) => l.startsWith("NARRATION"))).toMatch(/NARRATION — 12 back/);
    expect(back).not.toEqual(now);
    // The strip is drawn up to the narration's newest line shown: back in time too.
    const stripTimes = (ls: string[]) => ls.filter((l) => /^[ ›] +\d+\.\dms [│●◀▶✗✖─ ]/.test(l)).map((l) => Number(/(\d+\.\d)ms/.exec(l)![1]));
    expect(Math.max(...stripTimes(back))).toBeLessThan(Math.max(...stripTimes(now)));
    await c.dispatch({ kind: "scroll", delta: 100 });
    expect(screenLines(c.state, size, undefined).map((l) => l.text).slice(0, -2)).toEqual(now.slice(0, -2)); // the status line says "back to now"
  });

  it("tui: screen: the last decisive event stays pinned on top of the narration when later lines push it out", async () => {
    const lesson = { ...lessonNamed("zab", "quorum-commit"), predictions: [] };
    const c = await controllerOf(lesson);
    for (const cmd of lesson.solution.split(";")) await command(c, cmd.trim());
    await c.dispatch({ kind: "close-box" });
    await command(c, "run 1s");
    const lines = screenLines(c.state, SIZES[0]!, lesson).map((l) => l.text);
    const at = lines.findIndex((l) => l.startsWith("NARRATION"));
    expect(lines[at]).toMatch(/◆ on top: the last decisive event/);
    expect(lines[at + 1]).toMatch(/^[ ›]◆ +\d+\.\dms s3 leaves LEADING/);
  });

  it("tui: screen: ? scrolls when the keys and commands do not fit", () => {
    const size = SIZES[0]!;
    const top = helpLines(["LESSON x: y"], 0, size).map((l) => l.text);
    expect(top[0]).toMatch(/KEYS — \? or esc closes \(lines 1–22 of \d+: ↑↓ PgUp PgDn scroll\)/);
    const bottom = helpLines(["LESSON x: y"], 1000, size).map((l) => l.text);
    expect(bottom[bottom.length - 1]).toMatch(/^REF: m12/);
    fits(bottom.map((text) => ({ text })), size);
  });

  it("tui: screen: the compare panes keep a gap at every width side by side", async () => {
    const c = await openCompare(["2pc", "3pc"], 1);
    const controller = new CompareController(c);
    await controller.dispatch({ kind: "step" });
    for (const columns of [160, 161, 171, 200]) {
      const text = renderToString(createElement(CompareScreen, { view: controller.state, rows: 30, columns }), { columns });
      const header = text.split("\n").find((l) => l.includes("zksim learn 2pc"))!;
      expect(header).toMatch(/zksim learn 2pc .* {3,}zksim learn 3pc/);
      const pane = Math.floor((columns - 3) / 2);
      const panes = text.split("\n").slice(0, -2); // the status and keys lines span the screen
      for (const line of panes) if (displayWidth(line) > pane + 3) expect(line.slice(pane, pane + 3).trim(), line).toBe("");
    }
  });

  it("tui: screen: compare at 80 columns — the keys line leaves hints out rather than cutting q quit; its help wraps", async () => {
    const c = await openCompare(["2pc", "3pc"], 1);
    const controller = new CompareController(c);
    const lines = renderToString(createElement(CompareScreen, { view: controller.state, rows: 24, columns: 80 }), { columns: 80 }).split("\n");
    expect(lines.at(-1)).toMatch(/^‖ paused · joint step 0 · → step both · .*c crash.* · q quit · \? keys$/);
    expect(lines.at(-1)).not.toContain("…");
    await controller.dispatch({ kind: "help" });
    const help = renderToString(createElement(CompareScreen, { view: controller.state, rows: 24, columns: 80 }), { columns: 80 });
    expect(help).toMatch(/w txn · : command · q quit/);
    for (const l of help.split("\n")) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
    expect(help).not.toContain("…");
  });
});
