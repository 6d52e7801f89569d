/** Session files are read strictly: every field checked, the fault actions by the fault grammar's validator. */
import { describe, expect, it } from "vitest";
import { checkSessionFile } from "../../src/tui/session-file.js";
import type { SessionFile } from "../../src/stepper/session.js";

const FILE: SessionFile = {
  format: "zksim-learn-session",
  version: 1,
  protocol: "zab",
  seed: 3,
  variant: "default",
  lesson: "isolated-leader",
  start: 120,
  startStep: 0,
  branches: [
    {
      interventions: [
        { atEvent: 130, action: { kind: "fault", fault: { kind: "cut", from: ["s3"], to: ["s1", "s2"], oneWay: false } } },
        { atEvent: 131, action: { kind: "delay", msg: 12, delayMs: 2.5 } },
        { atEvent: 140, action: { kind: "client", client: "c1", op: "create", path: "/a", data: "1", ephemeral: true } },
        { atEvent: 141, action: { kind: "client", client: "p", op: "txn", key: "x", value: "1", noVoteFrom: ["p2"] } },
      ],
      marks: [120, 130, 150],
      parent: undefined,
      forkStep: 0,
    },
  ],
  current: 0,
  step: 2,
  traceHash: "0123abcd",
};

const error = (data: unknown) => {
  try {
    checkSessionFile(data, "f.json");
  } catch (err) {
    return (err as Error).message;
  }
  return "no error";
};

describe("tui: session file", () => {
  it("tui: session file: what a session saves reads back equal", () => {
    expect(checkSessionFile(JSON.parse(JSON.stringify(FILE)), "f.json")).toEqual(FILE);
  });

  it("tui: session file: a malformed field is one line naming it", () => {
    const withAction = (action: unknown) => ({ ...FILE, branches: [{ ...FILE.branches[0], interventions: [{ atEvent: 1, action }] }] });
    expect(error({ ...FILE, version: 2 })).toMatch(/^f\.json: not a zksim learn session/);
    expect(error(withAction({ kind: "teleport" }))).toBe("f.json: branches[0].interventions[0].action.kind must be one of deliver, drop, delay, duplicate, fire, next, fault, client");
    expect(error(withAction({ kind: "fault", fault: { kind: "loss", rate: 3 } }))).toMatch(/^f\.json: branches\[0\]\.interventions\[0\]\.action\.fault\.rate: expected a number in \[0, 1\]/);
    expect(error(withAction({ kind: "client", client: "c1", op: "get" }))).toBe("f.json: branches[0].interventions[0].action.path must be a string");
    expect(error({ ...FILE, branches: [{ ...FILE.branches[0], marks: [3, 2] }] })).toBe("f.json: branches[0].marks must not decrease");
  });
});
