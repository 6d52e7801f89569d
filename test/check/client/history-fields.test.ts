import { describe, expect, it } from "vitest";
import { HistoryFieldsChecker } from "../../../src/check/client/history-fields.js";
import { runCheckers } from "../../../src/check/checker.js";
import type { TraceEvent } from "../../../src/sim/trace.js";
import { asEvent } from "../../helpers/loose-events.js";

/** One event at index 0. */
const one = (kind: string, fields: Record<string, unknown>): TraceEvent[] => [asEvent({ index: 0, atUs: 1000, kind, node: "c1", fields })];

describe("check: client.history-fields", () => {
  const fields = (events: TraceEvent[]) => runCheckers([new HistoryFieldsChecker()], events).map((v) => v.message);
  const complete = (result: Record<string, unknown>) => one("client.complete", { client: "c1", session: "0x5", opId: 4, outcome: "ok", result });

  it("a list of at most 32 names is recorded by name, in a multi too", () => {
    expect(fields(complete({ children: ["a", "b"] }))).toEqual([]);
    expect(fields(complete({ count: 33 }))).toEqual([]);
    expect(fields(complete({ count: 2 }))).toEqual(["c1's op 4 recorded 2 names as a bare count (at most 32 are recorded by name): the checkers cannot judge the names"]);
    expect(fields(complete({ results: [{ err: "OK" }, { err: "OK", count: 1 }] }))).toEqual(["c1's op 4 (multi result 1) recorded 1 names as a bare count (at most 32 are recorded by name): the checkers cannot judge the names"]);
  });

  it("a handle that ends says why", () => {
    const state = (s: string, cause?: string) => one("client.state", { client: "c1", state: s, session: "0x5", conn: 1, ...(cause !== undefined ? { cause } : {}) });
    expect(fields(state("CLOSED", "expired"))).toEqual([]);
    expect(fields(state("CONNECTING"))).toEqual([]);
    expect(fields(state("AUTH_FAILED"))).toEqual(["c1's handle (session 0x5) became AUTH_FAILED without a cause: the history does not say whether its session ended or it was closed"]);
  });
});
