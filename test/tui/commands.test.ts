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
    expect(parseCommand("cut s3 s1,s2")).toEqual({ kind: "fault", fault: { kind: "cut", from: ["s3"], to: ["s1", "s2"] } });
    expect(parseCommand("partition s1,s2 / s3")).toEqual({ kind: "fault", fault: { kind: "partition", groups: [["s1", "s2"], ["s3"]] } });
    expect(parseCommand("ephemeral c2 /e here now")).toEqual({ kind: "client", client: "c2", op: { op: "create", path: "/e", data: "here now", ephemeral: true } });
    expect(parseCommand("read c1 /a")).toEqual({ kind: "client", client: "c1", op: { op: "get", path: "/a" } });
    expect(parseCommand("txn c1 x 1")).toEqual({ kind: "client", client: "c1", op: { op: "txn", key: "x", value: "1", noVoteFrom: [] } });
    expect(parseCommand("txn c2 y v no p2,p3")).toEqual({ kind: "client", client: "c2", op: { op: "txn", key: "y", value: "v", noVoteFrom: ["p2", "p3"] } });
  });

  it("tui: commands: bad input is one clear line", () => {
    expect(error("jump")).toMatch(/^unknown command "jump" \(commands: step, back/);
    expect(error("step 0")).toMatch(/at least 1/);
    expect(error("step x")).toMatch(/"x" is not a whole number/);
    expect(error("run 2")).toMatch(/"2" is not a duration \(write 500ms or 2s\)/);
    expect(error("crash")).toMatch(/expected crash NODE/);
    expect(error("partition s1")).toMatch(/groups separated by \//);
    expect(error("write c1 /a")).toMatch(/expected write CLIENT PATH DATA/);
    expect(error("show me")).toMatch(/show takes no arguments/);
    expect(error("txn c1 x")).toMatch(/expected txn CLIENT KEY VALUE \[no P1,P2\]/);
    expect(error("txn c1 x 1 yes p2")).toMatch(/expected txn CLIENT KEY VALUE/);
  });
});
