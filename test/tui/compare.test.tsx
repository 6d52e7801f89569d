/**
 * `zksim learn compare 2pc 3pc`: two runs stepping together under the same faults. A
 * coordinator crash as the votes come in leaves 2PC's participants blocked in doubt while 3PC's
 * abort; cutting p1 off after 3PC's preCommit splits 3PC (atomicity ✗) while 2PC commits
 * everywhere. Going back returns both runs to the earlier joint step; messages of one run
 * cannot be steered here. Plain mode, the ink screen (ink-testing-library) and the built CLI.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import { openCompare, runComparePlain } from "../../src/tui/compare/compare-cli.js";
import { CompareApp, CompareScreen } from "../../src/tui/compare/compare-app.js";
import { CompareController } from "../../src/tui/compare/compare-controller.js";
import { splitScript } from "../../src/tui/commands.js";
import { comparable } from "../helpers/stepper.js";
import { zksim } from "../helpers/cli.js";
import { renderDriven } from "../helpers/ink.js";

async function plain(script: string): Promise<{ status: number; text: string }> {
  const c = await openCompare(["2pc", "3pc"], 1);
  const lines: string[] = [];
  const status = await runComparePlain(c, splitScript(script), (l) => lines.push(l), 100);
  return { status, text: lines.join("\n") };
}

afterEach(() => cleanup());

describe("tui: learn compare 2pc 3pc", () => {
  it("tui: compare: the coordinator crashes as the votes come in — 2PC blocks, 3PC aborts and finishes", async () => {
    const { status, text } = await plain("step 8; crash co; run 4s");
    expect(status).toBe(0);
    expect(text).toMatch(/^2PC ⇒ in doubt \(Yes\): p1 p2 p3$/m);
    expect(text).toMatch(/^3PC ⇒ aborted: p1 p2 p3$/m);
    expect(text).toMatch(/^2PC│ +6\.2ms co crashes/m);
    expect(text).toMatch(/^3PC│ +6\.2ms co crashes/m);
  });

  it("tui: compare: a partition after preCommit — 2PC commits everywhere, 3PC splits and atomicity breaks", async () => {
    const { text } = await plain("step 16; cut p1 <-> co,p2,p3,c1; run 2s");
    expect(text).toMatch(/^2PC ⇒ committed: p1 p2 p3$/m);
    expect(text).toMatch(/^3PC ⇒ committed: p1 · aborted: p2 p3 · ✗ commit\.atomicity$/m);
  });

  it("tui: compare: both runs stand at the same time after a joint step; back returns both to the earlier joint step", async () => {
    const c = await openCompare(["2pc", "3pc"], 1);
    for (let i = 0; i < 3; i++) await c.forward();
    const at3 = c.frames().map(comparable);
    for (let i = 0; i < 4; i++) {
      await c.forward();
      const [a, b] = c.frames();
      expect(Math.min(c.left.nextEventUs(), c.right.nextEventUs())).toBeGreaterThan(Math.max(a.nowUs, b.nowUs));
    }
    await c.back();
    await c.back();
    await c.back();
    await c.back();
    expect(c.step).toBe(3);
    expect(c.frames().map(comparable)).toEqual(at3);
  });

  it("tui: compare: one run's message cannot be steered; bad pairs and options are one line", async () => {
    const { status, text } = await plain("step 4; deliver 1");
    expect(status).toBe(2);
    expect(text).toMatch(/^error: compare: deliver is not available when comparing \(the two runs have different messages and timers\); see help$/m);
    await expect(openCompare(["2pc", "zab"], 1)).rejects.toThrow(/^learn compare: expected two protocols to compare \(known pairs: 2pc 3pc\), got "2pc zab"$/);
    const cli = await zksim("learn", "compare", "2pc", "zab");
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/learn compare: expected two protocols/);
    expect((await zksim("learn", "compare", "2pc", "3pc", "--lesson", "x")).stderr).toMatch(/--lesson is not available when comparing/);
    const ok = await zksim("learn", "compare", "3pc", "2pc", "--script", "step 8; crash co; run 4s");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^COMPARE 3PC │ 2PC · joint step 90$/m);
  });

  it("tui: compare: the ink screen shows both panes in 80 columns; → steps both, c crashes the coordinator in both", async () => {
    const c = await openCompare(["2pc", "3pc"], 1);
    const controller = new CompareController(c);
    const { ui, press } = await renderDriven(<CompareApp controller={controller} />, controller);
    for (let i = 0; i < 8; i++) await press("\u001B[C");
    await press("c");
    const frame = ui.lastFrame()!;
    expect(frame).toMatch(/zksim learn 2pc \[standard\] · seed 1 · step \d+/);
    expect(frame).toMatch(/zksim learn 3pc \[standard\] · seed 1 · step \d+/);
    expect(frame.match(/✖ co coordinator/g)).toHaveLength(2);
    expect(frame).toMatch(/joint step 8/);
    // At 80×24 (the test terminal is 100 columns wide): both panes fit.
    const small = render(<CompareScreen view={controller.state} rows={23} columns={80} />).lastFrame()!;
    expect(small.match(/✖ co coordinator/g)).toHaveLength(2);
    expect(small.split("\n").length).toBeLessThanOrEqual(23);
    for (const l of small.split("\n")) expect(l.length, l).toBeLessThanOrEqual(80);
    await press("?");
    expect(ui.lastFrame()).toMatch(/Both runs take the same commands/);
  });
});
