import { describe, expect, it } from "vitest";
import { TxnFields } from "../../../src/check/zab/txn-fields.js";
import { CommittedDurabilityChecker } from "../../../src/check/zab/committed-durability.js";
import { PrefixConsistencyChecker } from "../../../src/check/zab/prefix-consistency.js";
import { PrimaryIntegrityChecker } from "../../../src/check/zab/primary-integrity.js";
import { IntegrityChecker } from "../../../src/check/zab/integrity.js";
import { ZxidUniquenessChecker } from "../../../src/check/zab/zxid-uniqueness.js";
import { runCheckers, type Checker } from "../../../src/check/checker.js";
import { isOneOf, type TraceEvent } from "../../../src/sim/trace.js";
import { MalformedEvent } from "../../../src/check/event-reader.js";
import { asEvent } from "../../helpers/loose-events.js";
import { TraceBuilder, z } from "./trace-builder.js";

describe("check: zab: the txn fields, read once a run", () => {
  it("the checkers that share them judge as each would reading its own, malformed fields included", () => {
    const readers = (): Checker[] => [new PrefixConsistencyChecker(), new CommittedDurabilityChecker(), new PrimaryIntegrityChecker(), new IntegrityChecker(), new ZxidUniquenessChecker()];
    const t = new TraceBuilder().boot(1, 2, 3);
    t.elect(1, [2, 3], 1, z(0, 0));
    t.broadcast(1, z(1, 1), "create /a", [1, 2, 3]);
    t.propose(1, 1, z(1, 2), "create /b").logTxn(1, z(1, 2), "create /b");
    // s2 delivers (1,2) with its txn missing: a reader of the zxid alone (primary-integrity) takes it, the others report it.
    t.event("zab.deliver", "s2", { sid: 2, zxid: z(1, 2) });
    // s3 logs a zxid that is no zxid; s1 proposes a txn that is no text.
    t.logTxn(3, "0xnot-hex", "create /b");
    t.event("zab.propose", "s1", { sid: 1, epoch: 1, zxid: z(1, 3), txn: { not: "text" } });
    t.broadcast(1, z(1, 4), "create /c", [1, 2, 3]);
    const alone = readers().map((c) => {
      for (const e of t.events) if (isOneOf(e, c.kinds)) c.onEvent(e);
      return c.finish(t.events.at(-1));
    });
    const shared = readers();
    const violations = runCheckers(shared, t.events);
    expect(shared.map((c) => violations.filter((v) => v.checker === c.name))).toEqual(alone);
    const malformed = violations.filter((v) => /malformed/.test(v.message)).map((v) => `${v.checker} #${v.eventIndex}`);
    expect(malformed.length).toBeGreaterThan(4);
    expect(malformed.some((m) => m.startsWith("zab.primary-integrity"))).toBe(false);
  });

  it("answers for the event last fed, and reads any other (or the same one changed and fed again) afresh", () => {
    const fields = new TxnFields();
    const fed = asEvent({ index: 1, atUs: 1, kind: "zab.log", node: "s1", fields: { zxid: z(1, 1), txn: "t" } });
    const other = asEvent({ index: 2, atUs: 2, kind: "zab.log", node: "s1", fields: { zxid: z(1, 2), txn: "u" } });
    fields.onEvent(fed);
    const entry = fields.entry(fed);
    expect(entry).toEqual({ zxid: 0x100000001n, txn: "t" });
    expect(fields.entry(fed)).toBe(entry);
    expect(fields.zxid(other)).toBe(0x100000002n);
    (fed.fields as { zxid: string }).zxid = z(1, 3);
    fields.onEvent(fed);
    expect(fields.zxid(fed)).toBe(0x100000003n);
    (fed.fields as { zxid: string }).zxid = "bad";
    fields.onEvent(fed);
    expect(() => fields.zxid(fed as TraceEvent)).toThrow(MalformedEvent);
  });
});
