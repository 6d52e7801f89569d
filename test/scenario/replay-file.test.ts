import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isUserInputError } from "../../src/sim/errors.js";
import { loadScenario, scenarioNames } from "../../src/cli/scenario-files.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { CANARIES } from "../../src/scenario/types.js";
import { parseReplayFile, scenarioToDocument, serializeReplayCase, type ReplayCase } from "../../src/scenario/replay-file.js";

function userError(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(isUserInputError(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error("expected a UserInputError");
}

function sampleCase(over: Partial<ReplayCase> = {}): ReplayCase {
  return {
    scenario: loadScenario("kernel-smoke"),
    seed: 7,
    bugs: [],
    canary: "connection-reorder",
    simplify: [],
    expected: { traceHash: "be37f6e26bc0f986", verdict: "fail", violations: [{ checker: "kernel.connection-fifo", message: "FIFO order broken" }] },
    ...over,
  };
}

describe("scenario: replay file", () => {
  it.each(scenarioNames())("scenario document round-trips: %s", (name) => {
    const s = loadScenario(name);
    expect(parseScenario(JSON.parse(JSON.stringify(scenarioToDocument(s))), "doc")).toEqual(s);
  });

  it("a case round-trips through the file format", () => {
    const violation = fc.record({ checker: fc.string(), message: fc.string() });
    fc.assert(
      fc.property(
        fc.nat(),
        fc.constantFrom(undefined, ...CANARIES),
        fc.subarray(["ZK-1154", "ZK-1419"]),
        fc.array(violation, { minLength: 1, maxLength: 4 }),
        fc.stringMatching(/^[0-9a-f]{16}$/),
        (seed, canary, bugs, violations, traceHash) => {
          const c = sampleCase({ seed, canary, bugs, expected: { traceHash, verdict: "fail", violations } });
          expect(parseReplayFile(serializeReplayCase(c), "f.json")).toEqual(c);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("a case with decision-stream simplification round-trips; without it, the field is absent", () => {
    const range = fc.record({ stream: fc.string({ minLength: 1 }), from: fc.nat(1_000_000), len: fc.integer({ min: 1, max: 1_000_000 }) });
    fc.assert(
      fc.property(fc.array(range, { maxLength: 6 }), (ranges) => {
        const c = sampleCase({ simplify: ranges.map(({ stream, from, len }) => ({ stream, from, to: from + len })) });
        const text = serializeReplayCase(c);
        expect(parseReplayFile(text, "f.json")).toEqual(c);
        expect("simplify" in JSON.parse(text)).toBe(ranges.length > 0);
      }),
      { numRuns: 50 },
    );
  });

  it("a recorded pass round-trips too", () => {
    const c = sampleCase({ canary: undefined, expected: { traceHash: "00", verdict: "pass", violations: [] } });
    expect(parseReplayFile(serializeReplayCase(c), "f.json")).toEqual(c);
  });

  it("bug ids are normalised", () => {
    const doc = JSON.parse(serializeReplayCase(sampleCase()));
    doc.bugs = ["1154"];
    expect(parseReplayFile(JSON.stringify(doc), "f.json").bugs).toEqual(["ZK-1154"]);
  });

  const edits: [string, (doc: Record<string, any>) => void, RegExp][] = [
    ["wrong version tag", (d) => (d.zksim = "replay/2"), /"zksim" must be "replay\/1"/],
    ["missing seed", (d) => delete d.seed, /missing field "seed"/],
    ["negative seed", (d) => (d.seed = -1), /"seed" must be/],
    ["unknown field", (d) => (d.extra = 1), /unknown field "extra"/],
    ["unknown bug", (d) => (d.bugs = ["ZK-99999"]), /unknown bug/],
    ["unknown canary", (d) => (d.canary = "nope"), /"canary" must be null or one of/],
    ["invalid scenario", (d) => (d.scenario.faults[0].groups = [["n9"]]), /unknown node "n9"/],
    ["scenario without duration", (d) => delete d.scenario.durationMs, /scenario: "durationMs"/],
    ["missing expected hash", (d) => delete d.expected.traceHash, /missing field "traceHash"/],
    ["verdict contradicts violations", (d) => (d.expected.violations = []), /contradicts/],
    ["simplify not a list", (d) => (d.simplify = { stream: "zksim:1/net" }), /"simplify" must be a list/],
    ["simplify range with an unknown key", (d) => (d.simplify = [{ stream: "s", from: 0, to: 1, kind: "x" }]), /"simplify"\[0\]: unknown field "kind"/],
    ["simplify range without a stream", (d) => (d.simplify = [{ from: 0, to: 1 }]), /"simplify"\[0\]: missing field "stream"/],
    ["simplify range with a fractional start", (d) => (d.simplify = [{ stream: "s", from: 0.5, to: 1 }]), /"simplify"\[0\]\.from must be a whole number/],
    ["simplify range that is empty", (d) => (d.simplify = [{ stream: "s", from: 3, to: 3 }]), /"simplify"\[0\]\.to must be a whole number greater than from \(3\)/],
  ];
  it.each(edits)("a hand-edited file is a one-line user error: %s", (_what, edit, message) => {
    const doc = JSON.parse(serializeReplayCase(sampleCase()));
    edit(doc);
    const text = userError(() => parseReplayFile(JSON.stringify(doc), "f.json"));
    expect(text).toMatch(message);
    expect(text).toMatch(/^f\.json/);
    expect(text).not.toContain("\n");
  });

  it("broken JSON is a one-line user error", () => {
    expect(userError(() => parseReplayFile('{"zksim": ', "f.json"))).toMatch(/^f\.json: not valid JSON/);
  });
});
