/**
 * The fault grammar (sim/fault-grammar.ts): one table of fault kinds behind the JSON entries of
 * scenario files, the text lines of `zksim ctl` / serve / learn, and the printer. Faults are drawn
 * from the table itself, so a new kind is covered without a new test here.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FAULT_KINDS, FAULT_SPECS, faultSynopsis, knownNodes, parseFaultText, printFault, validateFaultAction, type FaultParam, type FaultSpec } from "../../src/sim/fault-grammar.js";
import { parseFaultSchedule, type FaultAction } from "../../src/sim/faults.js";
import { isUserInputError } from "../../src/sim/errors.js";

const NODES = ["s1", "s2", "s3", "c1"];

type Param = FaultParam;
type Fields = Record<string, unknown>;

const nodes = fc.subarray(NODES, { minLength: 1 });
const duration = fc.oneof(fc.integer({ min: 0, max: 3_600_000 }), fc.double({ min: 0, max: 1e7, noNaN: true, noDefaultInfinity: true }));

/** The fields of one parameter, drawn from its whole range. */
function paramArb(param: Param): fc.Arbitrary<Fields> {
  switch (param.p) {
    case "node":
      return fc.constantFrom(...NODES).map((node) => ({ node }));
    case "groups":
      return nodes.chain((sub) => fc.array(fc.nat(2), { minLength: sub.length, maxLength: sub.length }).map((ix) => ({ groups: [0, 1, 2].map((g) => sub.filter((_, i) => ix[i] === g)).filter((g) => g.length > 0) })));
    case "links": {
      const links = fc.record({ from: nodes, to: nodes, oneWay: fc.boolean() });
      return param.optional ? fc.option(links, { nil: undefined }).map((l) => l ?? {}) : links;
    }
    case "number":
      return fc.double({ min: param.key === "rate" && param.max === 1 ? 0 : 0.01, max: param.max === 1 ? 1 : 100, noNaN: true }).map((v) => ({ [param.key]: v }));
    case "duration":
      return (param.keyword !== undefined ? fc.option(duration, { nil: undefined }) : duration).map((v) => (v === undefined ? {} : { [param.key]: v }));
    case "choice":
      return fc.constantFrom(...Object.keys(param.options)).chain((option) => paramsArb(param.options[option]!).map((more) => ({ [param.key]: option, ...more })));
  }
}

function paramsArb(params: readonly Param[]): fc.Arbitrary<Fields> {
  return fc.tuple(...params.map(paramArb)).map((parts) => Object.assign({}, ...parts) as Fields);
}

/** A valid action of any kind (drawn entries the validator refuses, like a delay with max < min, are skipped). */
const actionArb: fc.Arbitrary<FaultAction> = fc
  .constantFrom(...FAULT_KINDS)
  .chain((kind) => {
    const spec: FaultSpec = FAULT_SPECS[kind];
    return paramsArb(spec.params).map((fields) => ({ kind, ...fields }));
  })
  .map((raw) => {
    try {
      return validateFaultAction(raw, knownNodes(NODES, raw.kind), raw.kind);
    } catch (err) {
      if (isUserInputError(err)) return undefined;
      throw err;
    }
  })
  .filter((a): a is FaultAction => a !== undefined);

const parse = (line: string) => parseFaultText(line, knownNodes(NODES, line.split(" ")[0]!));

function message(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (isUserInputError(err)) return err.message;
    throw err;
  }
  throw new Error("no error");
}

describe("sim: fault grammar", () => {
  it("sim: fault grammar: printing then parsing gives the action back, for every kind (and its undo delay)", () => {
    fc.assert(
      fc.property(actionArb, fc.option(duration, { nil: undefined }), (action, forMs) => {
        const line = printFault(action, forMs);
        expect(parse(line)).toEqual(forMs === undefined ? { action } : { action, forMs });
      }),
      { numRuns: 2000, seed: 27 },
    );
  });

  it("sim: fault grammar: every kind is drawn by the round trip", () => {
    const seen = new Set(fc.sample(actionArb, { numRuns: 2000, seed: 27 }).map((a) => a.kind));
    expect([...seen].sort()).toEqual([...FAULT_KINDS].sort());
  });

  it("sim: fault grammar: a line and the scenario entry it stands for are refused with the same message", () => {
    const pairs: [string, Fields][] = [
      ["crash s9", { kind: "crash", node: "s9" }],
      ["loss 2", { kind: "loss", rate: 2 }],
      ["partition s1 | s1 s2", { kind: "partition", groups: [["s1"], ["s1", "s2"]] }],
      ["delay 5ms 1ms", { kind: "delay", minMs: 5, maxMs: 1 }],
      ["disk s1 melt", { kind: "disk", node: "s1", fault: "melt" }],
      ["clock s1 0", { kind: "clock", node: "s1", rate: 0 }],
    ];
    for (const [line, entry] of pairs) {
      const kind = String(entry.kind);
      const fromText = message(() => parse(line));
      const fromFile = message(() => parseFaultSchedule([{ atMs: 0, ...entry }], NODES));
      expect(fromFile).toBe(fromText.replace(new RegExp(`^${kind}`), "faults[0]"));
    }
  });

  it("sim: fault grammar: lines that are not faults are one clear line each", () => {
    expect(message(() => parse(""))).toBe("empty command");
    expect(message(() => parse("explode s1"))).toMatch(/^unknown command "explode" \(faults: crash, restart/);
    expect(message(() => parse("cut s1 s2"))).toMatch(/expected "A B -> C" \(one way\) or "A <-> C" \(both ways\)/);
    expect(message(() => parse("clog s1 -> s2"))).toMatch(/clog extraDelayMs: expected a duration like 200ms or 4s, got ""/);
    expect(message(() => parse("crash s1 s2"))).toBe('crash: unexpected "s2" (expected: crash NODE)');
    expect(message(() => parse("crash s1 for"))).toMatch(/expected "for DURATION" at the end/);
  });

  it("sim: fault grammar: docs/faults.md lists every kind's text form", () => {
    const doc = readFileSync(new URL("../../docs/faults.md", import.meta.url), "utf8");
    const missing = FAULT_KINDS.map(faultSynopsis).filter((s) => !doc.includes(`\`${s}\``));
    expect(missing).toEqual([]);
  });
});
