/**
 * The ink app with ink-testing-library: keys in, frames out. The screen shows the nodes, the
 * pending events and the invariants; → steps, ← steps back, ? shows the keys, a crash is
 * previewed before it applies, and the command line runs commands.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "ink-testing-library";
import { renderDriven } from "../helpers/ink.js";
import { App } from "../../src/tui/app.js";
import { Controller } from "../../src/tui/controller.js";
import { Session } from "../../src/stepper/session.js";
import { zabAdapter } from "../../src/stepper/zab/zab-adapter.js";
import { threePcAdapter, twoPcAdapter } from "../../src/stepper/commit/commit-adapter.js";
import { keyIntent, splitKeys } from "../../src/tui/keys.js";

const RIGHT = "\u001B[C";
const LEFT = "\u001B[D";

async function app() {
  const session = await Session.begin(zabAdapter, { seed: 1 });
  const controller = new Controller(session, () => undefined, () => undefined, "hello");
  const { ui, press } = await renderDriven(<App controller={controller} />, controller);
  return { session, ui, press };
}

afterEach(() => cleanup());

describe("tui: app", () => {
  it("tui: app: the first frame shows nodes in the book's terms, pending timers and the invariants", async () => {
    const { ui } = await app();
    const frame = ui.lastFrame()!;
    expect(frame).toMatch(/zksim learn zab \[3\] · seed 1 · step 0/);
    expect(frame).toMatch(/● s3 leader\s+epoch 1\/1\s+last 0x100000002/);
    expect(frame).toMatch(/PENDING \(\d+/);
    expect(frame).toMatch(/✓ 17 of 17 invariants hold/);
    expect(frame.split("\n").length).toBeLessThanOrEqual(23);
  });

  it("tui: app: → steps, ← steps back to the same screen", async () => {
    const { ui, press, session } = await app();
    const start = ui.lastFrame();
    await press(RIGHT);
    await press(RIGHT);
    expect(session.step).toBe(2);
    expect(ui.lastFrame()).toMatch(/step 2/);
    await press(LEFT);
    await press(LEFT);
    expect(session.step).toBe(0);
    expect(ui.lastFrame()!.replace(/^.*\n/, "").split("\n").slice(0, 5)).toEqual(start!.replace(/^.*\n/, "").split("\n").slice(0, 5));
  });

  it("tui: app: ? shows the keys; a crash is previewed, then applied with y", async () => {
    const { ui, press, session } = await app();
    await press("?");
    expect(ui.lastFrame()).toMatch(/KEYS — \? or esc closes/);
    await press("?");
    await press("\t"); // s2
    await press("\t"); // s3, the leader
    await press("c");
    expect(ui.lastFrame()).toMatch(/WHAT IF: crash s3 now\?/);
    expect(ui.lastFrame()).toMatch(/leadership moves from s3 to s\d/);
    expect(session.branch.interventions).toHaveLength(0);
    await press("y");
    expect(session.branch.interventions).toEqual([{ atEvent: session.frame().position, action: { kind: "fault", fault: { kind: "crash", node: "s3" } } }]);
    expect(ui.lastFrame()).toMatch(/✖ s3 down/);
  });

  it("tui: app: the command line runs a command and reports a bad one in one line", async () => {
    const { ui, press, session } = await app();
    for (const ch of [":", ..."write c1 /a 1", "\r"]) await press(ch);
    expect(session.branch.interventions.map((i) => i.action.kind)).toEqual(["client"]);
    for (const ch of [":", ..."fly", "\r"]) await press(ch);
    expect(ui.lastFrame()).toMatch(/✗ unknown command "fly"/);
  });

  it("tui: keys: a chunk of several keys is read one key at a time; escape sequences stay whole", () => {
    expect(splitKeys("ab\r", {})).toEqual([["a", {}], ["b", {}], ["", { return: true }]]);
    expect(splitKeys("\u001B[C", { rightArrow: true })).toEqual([["\u001B[C", { rightArrow: true }]]);
    expect(splitKeys("x", {})).toEqual([["x", {}]]);
  });

  it("tui: keys: q quits from every mode but the command line, where it is a letter", () => {
    expect(keyIntent("q", {}, { kind: "normal" })).toEqual({ kind: "quit" });
    expect(keyIntent("q", {}, { kind: "help", scroll: 0 })).toEqual({ kind: "quit" });
    expect(keyIntent("q", {}, { kind: "confirm", label: "", action: { kind: "fault", fault: { kind: "heal" } }, preview: undefined })).toEqual({ kind: "quit" });
    expect(keyIntent("q", {}, { kind: "command", text: "" })).toEqual({ kind: "command-edit", text: "q", backspace: false });
  });
});

describe("tui: app with 2PC and 3PC", () => {
  it("tui: app: a 2PC session shows the coordinator's votes, the participants' locks and the book's message names; w starts a transaction", async () => {
    const session = await Session.begin(twoPcAdapter, { seed: 1 });
    const controller = new Controller(session, () => undefined, () => undefined, "2pc");
    const { ui, press } = await renderDriven(<App controller={controller} />, controller);
    expect(ui.lastFrame()).toMatch(/● co coordinator {2}log —/);
    await press("w");
    expect(session.branch.interventions.map((i) => i.action)).toEqual([{ kind: "client", client: "c1", op: "txn", key: "k1", value: "1", noVoteFrom: [] }]);
    for (let i = 0; i < 16; i++) await press(RIGHT);
    const frame = ui.lastFrame()!;
    expect(frame).toMatch(/● co coordinator {2}\*c1-1 deciding {2}\*votes p1:Y p2:Y p3:Y {2}\*log begin commit…/);
    expect(frame).toMatch(/● p1 participant {2}c1-1 in doubt \(Yes\) {2}locks k1 {2}log prepared/);
    expect(frame).toMatch(/✓ 5 of 5 invariants hold/);
    expect(frame.split("\n").every((l) => l.length <= 80)).toBe(true);
  });

  it("tui: app: a 3PC crash is previewed: the participants finish without the coordinator", async () => {
    const session = await Session.begin(threePcAdapter, { seed: 1, setup: [{ kind: "client", client: "c1", op: "txn", key: "x", value: "1", noVoteFrom: [] }] });
    for (let i = 0; i < 30; i++) await session.forward();
    const controller = new Controller(session, () => undefined, () => undefined, "3pc");
    const { ui, press } = await renderDriven(<App controller={controller} />, controller);
    expect(ui.lastFrame()).toMatch(/● p2 participant {2}c1-1 precommitted {2}locks x {2}log ready preCommit/);
    await press("c"); // co is the selected node
    expect(ui.lastFrame()).toMatch(/WHAT IF: crash co now\?/);
    expect(ui.lastFrame()).toMatch(/within 5 s p1, p2, p3 reach an outcome: nobody is blocked/);
  });
});
