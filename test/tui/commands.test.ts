/** The command language: what parses, and the one-line errors for what does not. */
import { describe, expect, it } from "vitest";
import { parseCommand, splitScript } from "../../src/tui/commands.js";
import { isUserInputError } from "../../src/sim/errors.js";

function error(text: string): string {
  try {
    parseCommand(text);
  } catch (err) {
    if (isUserInputError(err)) return err.message;
    throw err;
  }
  throw new Error(`"${text}" parsed`);
}

describe("tui: commands", () => {
  it("tui: commands: the documented forms parse", () => {
    expect(splitScript("step 12; crash s3\n# a comment\nrun 2s; deliver 4")).toEqual(["step 12", "crash s3", "run 2s", "deliver 4"]);
    expect(parseCommand("step 12")).toEqual({ kind: "step", count: 12 });
    expect(parseCommand("b")).toEqual({ kind: "back", count: 1 });
    expect(parseCommand("run 1.5s")).toEqual({ kind: "run", ms: 1500 });
    expect(parseCommand("delay m7 250")).toEqual({ kind: "delay", ref: "m7", delayMs: 250 });
    // Faults are the fault grammar of `zksim ctl` and scenario files (sim/fault-grammar.ts).
    expect(parseCommand("cut s3 <-> s1,s2")).toEqual({ kind: "fault", fault: { kind: "cut", from: ["s3"], to: ["s1", "s2"], oneWay: false } });
    expect(parseCommand("partition s1,s2 | s3")).toEqual({ kind: "fault", fault: { kind: "partition", groups: [["s1", "s2"], ["s3"]] } });
    expect(parseCommand("clog s1 -> s2 200ms")).toEqual({ kind: "fault", fault: { kind: "clog", from: ["s1"], to: ["s2"], oneWay: true, extraDelayMs: 200 } });
    // `delay` and `duplicate` act on a message when their first word names one, else they are link faults.
    expect(parseCommand("duplicate m3")).toEqual({ kind: "duplicate", ref: "m3" });
    expect(parseCommand("duplicate 0.5")).toEqual({ kind: "fault", fault: { kind: "duplicate", rate: 0.5 } });
    expect(parseCommand("delay 5ms 20ms")).toEqual({ kind: "fault", fault: { kind: "delay", minMs: 5, maxMs: 20 } });
    expect(parseCommand("ephemeral c2 /e here now")).toEqual({ kind: "client", client: "c2", op: { op: "create", path: "/e", data: "here now", ephemeral: true } });
    expect(parseCommand("read c1 /a")).toEqual({ kind: "client", client: "c1", op: { op: "get", path: "/a" } });
    expect(parseCommand("txn c1 x 1")).toEqual({ kind: "client", client: "c1", op: { op: "txn", key: "x", value: "1", noVoteFrom: [] } });
    expect(parseCommand("txn c2 y v no p2,p3")).toEqual({ kind: "client", client: "c2", op: { op: "txn", key: "y", value: "v", noVoteFrom: ["p2", "p3"] } });
  });

  it("tui: commands: bad input is one clear line", () => {
    expect(error("jump")).toMatch(/^unknown command "jump" \(commands: step, back/);
    expect(error("step 0")).toMatch(/at least 1/);
    expect(error("step x")).toMatch(/"x" is not a whole number/);
    expect(error("run 2")).toMatch(/run: expected a duration like 200ms or 4s, got "2"/);
    expect(error("crash")).toMatch(/crash: expected a node \(crash NODE\)/);
    expect(error("cut s1 s2")).toMatch(/cut: expected "A B -> C" \(one way\) or "A <-> C" \(both ways\)/);
    expect(error("pause s1 for 2s")).toMatch(/learn applies a fault now/);
    expect(error("write c1 /a")).toMatch(/expected write CLIENT PATH DATA/);
    expect(error("show me")).toMatch(/show takes no arguments/);
    expect(error("txn c1 x")).toMatch(/expected txn CLIENT KEY VALUE \[no P1,P2\]/);
    expect(error("txn c1 x 1 yes p2")).toMatch(/expected txn CLIENT KEY VALUE/);
  });
});
