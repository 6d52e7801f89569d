/**
 * The ink app on Paxos and Multi-Paxos with ink-testing-library: the nodes in the book's terms,
 * the protocol's own pane (BALLOTS, LOG) under them, the whole screen within 80×24; stepping
 * updates the pane, a command line drives a lesson to its goal, and an acceptor crash is
 * previewed (the chosen majority named) before it applies.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "ink-testing-library";
import { renderDriven } from "../helpers/ink.js";
import { App } from "../../src/tui/app.js";
import { Controller } from "../../src/tui/controller.js";
import { Session } from "../../src/stepper/session.js";
import { paxosAdapter } from "../../src/stepper/paxos/paxos-adapter.js";
import { multiPaxosAdapter } from "../../src/stepper/multipaxos/multipaxos-adapter.js";
import { lessonNamed } from "../../src/tui/lessons/index.js";
import type { ProtocolAdapter, World } from "../../src/stepper/types.js";

async function app<W extends World>(adapter: ProtocolAdapter<W>, goal?: Parameters<typeof Session.begin>[1]["goal"]) {
  const session = await Session.begin(adapter as unknown as ProtocolAdapter<World>, { seed: 1, ...(goal !== undefined ? { goal } : {}) });
  const controller = new Controller(session, () => undefined, () => undefined, "hello");
  const { ui, press } = await renderDriven(<App controller={controller} />, controller);
  /** Types a command on the command line, one key at a time. */
  const type = async (text: string): Promise<void> => {
    for (const ch of [":", ...text, "\r"]) await press(ch);
  };
  return { session, ui, press, type };
}

afterEach(() => cleanup());

describe("tui: app (Paxos, Multi-Paxos)", () => {
  it("tui: app: paxos: proposers, acceptors and the learner; the BALLOTS pane fills as the run goes", async () => {
    const { ui, type } = await app(paxosAdapter);
    const first = ui.lastFrame()!;
    expect(first).toMatch(/zksim learn paxos \[correct\] · seed 1 · step 0/);
    expect(first).toMatch(/● p1 proposer\s+phase idle\s+ballot —\s+own value A/);
    expect(first).toMatch(/● a1 acceptor\s+promised —\s+accepted —/);
    expect(first).toMatch(/BALLOTS \(a majority is 2 of 3\)\n\s+no ballot yet/);
    expect(first.split("\n").length).toBeLessThanOrEqual(23);
    await type("run 20ms");
    const later = ui.lastFrame()!;
    expect(later).toMatch(/✓ b1 p1  promised a1 a2 a3  accepted a1 a2 a3 \[1, A\]  chosen/);
    expect(later).toMatch(/● l1 learner\s+\*learned A/); // * marks what the last step changed
    expect(later).toMatch(/✓ 3 of 3 invariants hold/);
    for (const line of later.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  });

  it("tui: app: paxos: a crash of an acceptor is previewed with the chosen majority, then applied", async () => {
    const { ui, press, type, session } = await app(paxosAdapter);
    await type("run 20ms");
    for (let i = 0; i < 2; i++) await press("\t"); // p2, then a1
    await press("c");
    expect(ui.lastFrame()).toMatch(/WHAT IF: crash a1 now\?/);
    expect(ui.lastFrame()).toMatch(/\[1, A\] is accepted by a1, a2, a3 — a majority: it is chosen/);
    await press("y");
    expect(session.branch.interventions.map((i) => i.action)).toEqual([{ kind: "fault", fault: { kind: "crash", node: "a1" } }]);
    expect(ui.lastFrame()).toMatch(/✖ a1 acceptor\s+\*disk: promised 1\s+\*disk: accepted \[1, A\]/);
  });

  it("tui: app: multipaxos: the LOG pane shows each slot on every replica; a lesson's goal is reached from the command line", async () => {
    const lesson = lessonNamed("multipaxos", "phase-2-only");
    const { ui, type } = await app(multiPaxosAdapter, lesson.goal);
    expect(ui.lastFrame()).toMatch(/● r3 leader\s+ballot 3\s+log —/);
    expect(ui.lastFrame()).toMatch(/LOG \(✓ chosen, cmd@ballot accepted\)\n\s+no slot used yet/);
    expect(ui.lastFrame()).toMatch(/○ GOAL: get two client commands chosen under one leader \(0 so far\)/);
    for (const command of lesson.solution.split(";")) await type(command.trim());
    expect(ui.lastFrame()).toMatch(/stopped after \d+ step\(s\), at step \d+: see the box/); // a run stops where the goal is reached
    await type("run 30ms");
    const f = ui.lastFrame()!;
    expect(f).toMatch(/slot 0\s+r1 ✓c1#1\s+r2 ✓c1#1\s+r3 ✓c1#1/);
    expect(f).toMatch(/slot 1\s+r1 ✓c2#1\s+r2 ✓c2#1\s+r3 ✓c2#1/);
    expect(f).toMatch(/✓ GOAL REACHED\nWhat happened: r3 chose slot 0 = c1#1, slot 1 = c2#1 at ballot 3 with phase 2 only/);
    expect(f.split("\n").length).toBeLessThanOrEqual(23);
  });
});
