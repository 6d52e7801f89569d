import { describe, expect, it } from "vitest";
import { classifyOutcome, formatOperation, historyFromTrace, type Operation } from "../../../src/check/history/history.js";
import { asEvent, type LooseEvent } from "../../helpers/loose-events.js";
import { checkLinearizable, zkModel } from "../../../src/check/linearizability/index.js";
import { generateLinearizableHistory } from "../../../src/cli/bench-history.js";

/** A hand-written client event (indexed in order by `historyOf`). */
type ClientTraceEvent = Omit<LooseEvent, "index" | "node"> & { node?: string };

/** The history of hand-written events, indexed in the order given. */
const historyOf = (events: readonly ClientTraceEvent[]) => historyFromTrace(events.map((e, index) => asEvent({ index, node: "", ...e })));

/** The reads whose invocation says whether it left a watch. */
const READS: ReadonlySet<string> = new Set(["getData", "exists", "getChildren"]);

/** The trace annotations a client library would record for `ops` (the documented schema). */
function toTrace(ops: readonly Operation[]): ClientTraceEvent[] {
  const events: (ClientTraceEvent & { seq: number })[] = [];
  for (const op of ops) {
    const { data, version, mode, ops: subs } = op.args;
    events.push({
      seq: events.length,
      kind: "client.invoke",
      node: `client-${op.client}`,
      atUs: op.invokeUs,
      fields: { client: op.client, session: op.session, opId: op.id, op: op.op, path: op.path, data, version, mode, ops: subs?.map((sub) => ({ op: sub.op, path: sub.path, ...sub.args })), ...(READS.has(op.op) ? { watch: false } : {}) },
    });
    if (op.completeUs === undefined) continue;
    events.push({
      seq: events.length,
      kind: "client.complete",
      node: `client-${op.client}`,
      atUs: op.completeUs,
      fields: {
        client: op.client,
        session: op.session,
        opId: op.id,
        outcome: op.outcome,
        err: op.err,
        zxid: op.zxid === undefined ? undefined : `0x${op.zxid.toString(16)}`,
        result: op.result === undefined ? undefined : JSON.parse(JSON.stringify(op.result)),
      },
    });
  }
  return events.sort((a, b) => a.atUs - b.atUs || a.seq - b.seq);
}

describe("check: history: ground truth of unknown operations", () => {
  const invoke = (opId: number, atUs: number) => ({ kind: "client.invoke", node: "c1", atUs, fields: { client: "c1", session: "0x100", opId, op: "setData", path: "/a", data: `v${opId}`, version: -1, server: "s2" } });
  const lost = (opId: number, atUs: number, xid: number) => ({ kind: "client.complete", node: "c1", atUs, fields: { client: "c1", session: "0x100", opId, outcome: "unknown", err: "CONNECTIONLOSS", xid } });

  it("says whether a CONNECTIONLOSS op became a txn, from the zk.apply of its session and xid", () => {
    const ops = historyOf([
      invoke(1, 10),
      invoke(2, 11),
      { kind: "zk.apply", node: "s1", atUs: 15, fields: { zxid: "0x100000007", op: "setData", session: "0x100", cxid: 4 } },
      lost(1, 20, 4),
      lost(2, 21, 5),
      { kind: "zk.apply", node: "s2", atUs: 30, fields: { zxid: "0x100000007", op: "setData", session: "0x100", cxid: 4 } },
    ]);
    expect(ops.map((o) => [o.outcome, o.server, o.truth])).toEqual([
      ["unknown", "s2", { applied: true, zxid: 0x100000007n }],
      ["unknown", "s2", { applied: false }],
    ]);
    expect(formatOperation(ops[0]!)).toMatch(/→ unknown \(CONNECTIONLOSS; applied as 0x100000007\)/);
    expect(formatOperation(ops[1]!)).toMatch(/→ unknown \(CONNECTIONLOSS; not applied by the end of the run\)/);
  });

  it("an op whose txn was an error txn (SESSIONMOVED at the leader) was applied as a failure that changed nothing", () => {
    const ops = historyOf([
      invoke(1, 10),
      lost(1, 20, 4),
      { kind: "zk.apply", node: "s1", atUs: 30, fields: { zxid: "0x100000003", op: "error", session: "0x100", cxid: 4, err: "SESSIONMOVED" } },
    ]);
    expect(ops[0]!.truth).toEqual({ applied: true, zxid: 0x100000003n, err: "SESSIONMOVED" });
    expect(formatOperation(ops[0]!)).toMatch(/→ unknown \(CONNECTIONLOSS; applied as 0x100000003 failing with SESSIONMOVED, changing nothing\)/);
  });
});

describe("check: history: from trace", () => {
  it("pairs invocations with completions and parses codes, zxids and modes", () => {
    const ops = historyOf([
      { kind: "client.invoke", node: "c1", atUs: 10, fields: { client: "c1", session: "0x100", opId: 7, op: "create", path: "/a", data: "x", mode: 2 } },
      { kind: "net.deliver", atUs: 11 },
      { kind: "client.invoke", node: "c2", atUs: 12, fields: { client: "c2", session: "0x101", opId: 7, op: "getData", path: "/b", watch: false } },
      { kind: "client.complete", node: "c2", atUs: 15, fields: { client: "c2", session: "0x101", opId: 7, outcome: "fail", err: -101, zxid: "0x100000003" } },
      { kind: "client.complete", node: "c1", atUs: 20, fields: { client: "c1", session: "0x100", opId: 7, outcome: "ok", zxid: "0x100000004", result: { path: "/a0000000000" } } },
      { kind: "client.invoke", node: "c1", atUs: 30, fields: { client: "c1", session: "0x100", opId: 8, op: "setData", path: "/a", data: "y", version: 3 } },
      { kind: "client.complete", node: "c1", atUs: 40, fields: { client: "c1", session: "0x100", opId: 8, outcome: "fail", err: "CONNECTIONLOSS" } },
      { kind: "client.invoke", node: "c2", atUs: 50, fields: { client: "c2", session: "0x101", opId: 9, op: "delete", path: "/b", version: -1 } },
    ]);
    expect(ops.map((o) => [o.id, o.op, o.outcome, o.completeUs])).toEqual([
      [0, "create", "ok", 20],
      [1, "getData", "fail", 15],
      [2, "setData", "unknown", undefined],
      [3, "delete", "unknown", undefined],
    ]);
    expect(ops[0]).toMatchObject({ client: "c1", session: "0x100", node: "c1", args: { data: "x", mode: "PERSISTENT_SEQUENTIAL" }, zxid: 0x100000004n, result: { path: "/a0000000000" } });
    expect(ops[1]).toMatchObject({ err: "NONODE", zxid: 0x100000003n });
    expect(ops[2]).toMatchObject({ args: { data: "y", version: 3 }, err: "CONNECTIONLOSS" });
    expect(classifyOutcome(ops[1]!)).toBe("state-error");
  });

  it("throws on a completion without an invocation", () => {
    expect(() =>
      historyOf([{ kind: "client.complete", atUs: 1, fields: { client: "c1", opId: 1, outcome: "ok" } }]),
    ).toThrow(/historyFromTrace: completion of c1\/1/);
  });

  it("round-trips generated histories through the trace schema, with the same verdict", () => {
    for (let seed = 0; seed < 20; seed++) {
      // A lone "check" is the history's own read (the generator draws it); a client records a
      // check only inside a multi (ClientOps), and a read left out keeps the history linearizable.
      const history = generateLinearizableHistory({ seed, nOps: 80, clients: 4, paths: 3, ephemeralFraction: 0.1, multiFraction: 0.1 }).filter((op) => op.op !== "check");
      const back = historyOf(toTrace(history));
      const byOpId = new Map(back.map((o) => [Number(o.opId), o]));
      for (const op of history) {
        const b = byOpId.get(op.id)!;
        // A multi has no path of its own in the trace (ClientOps: its sub-operations name theirs).
        expect([b.op, b.path, b.outcome, b.invokeUs, b.completeUs, b.zxid, b.err]).toEqual([op.op, op.op === "multi" ? "" : op.path, op.outcome, op.invokeUs, op.completeUs, op.zxid, op.err]);
      }
      expect(checkLinearizable(back, zkModel()).ok).toBe(true);
    }
  });
});

describe("history: a write sent before its handle's handshake and never answered (api-swarm-standalone seed 10308)", () => {
  const S3 = "0x19b76daf17f0003";
  const S4 = "0x19b76daf17f0004";
  const S5 = "0x19b76daf17f0005";
  const invoke = (atUs: number, client: string, session: string, opId: number, op: string, rest: Record<string, unknown>): ClientTraceEvent => ({ kind: "client.invoke", node: client, atUs, fields: { client, session, opId, op, ...rest } });
  const complete = (atUs: number, client: string, session: string, opId: number, rest: Record<string, unknown>): ClientTraceEvent => ({ kind: "client.complete", node: client, atUs, fields: { client, session, opId, ...rest } });
  const connected = (atUs: number, session: string, conn: number): ClientTraceEvent => ({ kind: "client.state", node: "c1", atUs, fields: { client: "c1", state: "CONNECTED", session, conn } });
  const apply = (atUs: number, session: string, cxid: number, zxid: string, op: string, err?: string): ClientTraceEvent => ({ kind: "zk.apply", node: "s1", atUs, fields: { zxid, op, session, cxid, ...(err === undefined ? {} : { err }) } });
  const stat = { czxid: "0x35", mzxid: "0x35", pzxid: "0x35", ctime: 1, mtime: 1, version: 0, cversion: 0, aversion: 0, ephemeralOwner: S5, dataLength: 1, numChildren: 0 };
  /** c1's three handles connect with no session; two had a write queued; c1 crashes before the replies; c2 reads the ephemeral. */
  function trace(secondCreate: boolean, crashAtUs = 35): ClientTraceEvent[] {
    return [
      { kind: "crash", node: "c1", atUs: crashAtUs },
      invoke(1, "c2", "0x7", 1, "create", { path: "/a", mode: 0, data: "" }),
      apply(2, "0x7", 1, "0x33", "create"),
      complete(3, "c2", "0x7", 1, { outcome: "ok", zxid: "0x33", result: { path: "/a" } }),
      invoke(10, "c1", "0x0", 60, "create", { path: "/a/s-", mode: 3, data: "v" }),
      secondCreate
        ? invoke(11, "c1", "0x0", 63, "create", { path: "/b/s-", mode: 3, data: "w" })
        : invoke(11, "c1", "0x0", 63, "multi", { ops: [{ op: "setData", path: "/b", data: "w", version: -1 }] }),
      connected(20, S4, 42),
      connected(21, S3, 41),
      connected(22, S5, 43),
      secondCreate ? apply(30, S4, 1, "0x34", "error", "NONODE") : apply(30, S4, 1, "0x34", "multi", "NONODE"),
      apply(31, S5, 1, "0x35", "create"),
      invoke(40, "c2", "0x7", 2, "getData", { path: "/a/s-0000000000", watch: false }),
      complete(41, "c2", "0x7", 2, { outcome: "ok", zxid: "0x35", result: { data: "v", stat } }),
    ];
  }

  it("takes the session the server ran it in: the one of its client's new sessions with an unaccounted apply of its kind", () => {
    const ops = historyOf(trace(false));
    const create = ops.find((op) => op.opId === "60")!;
    expect(create.session).toBe(S5);
    expect(ops.find((op) => op.opId === "63")!.session).toBe(S4);
    // The ephemeral's owner, read later, is the create's session: linearizable.
    expect(checkLinearizable(ops, zkModel()).ok).toBe(true);
  });

  it("keeps no session when two such writes compete for the sessions (the trace does not say which handle sent which)", () => {
    const ops = historyOf(trace(true));
    expect(ops.find((op) => op.opId === "60")!.session).toBe("0x0");
    expect(ops.find((op) => op.opId === "63")!.session).toBe("0x0");
  });

  it("keeps no session when its process crashed before any handle established one (a crash ends its handles)", () => {
    const events = trace(false, 15).sort((a, b) => a.atUs - b.atUs);
    const ops = historyOf(events);
    expect(ops.find((op) => op.opId === "60")!.session).toBe("0x0");
  });
});

describe("check: history: the credentials an op carried", () => {
  const auth = (session: string) => ({ kind: "client.auth", node: "c1", atUs: 1, fields: { client: "c1", session, scheme: "digest", auth: "bob:hunter2" } });
  const state = (session: string, state: string, atUs: number) => ({ kind: "client.state", node: "c1", atUs, fields: { client: "c1", state, session, conn: 1, ...(state === "CONNECTED" ? {} : { cause: state === "CLOSED" ? "closed" : "authFailed" }) } });
  const create = (opId: number, atUs: number) => [
    { kind: "client.invoke", node: "c1", atUs, fields: { client: "c1", session: "0x5", opId, op: "create", path: `/a${opId}`, data: "", mode: 0 } },
    { kind: "client.complete", node: "c1", atUs: atUs + 1, fields: { client: "c1", session: "0x5", opId, outcome: "fail", err: "NOAUTH", zxid: "0x3" } },
  ];

  // api-swarm-standalone seed 11814: a handle added bob's digest, went AUTH_FAILED, and a new handle
  // reattached its session: the server keeps credentials per connection (ServerCnxn.authInfo) and
  // a handle re-sends only its own, so the new handle's create carries none.
  it("are the handle's: a handle that ended (AUTH_FAILED, CLOSED, its process crashed) takes them with it", () => {
    const [before] = historyOf([state("0x5", "CONNECTED", 0), auth("0x5"), ...create(1, 2)]);
    expect(before!.credentials).toEqual([{ scheme: "digest", auth: "bob:hunter2" }]);
    for (const end of [[state("0x5", "AUTH_FAILED", 5)], [state("0x5", "CLOSED", 5)], [{ kind: "crash", node: "c1", atUs: 5 }]]) {
      const ops = historyOf([state("0x5", "CONNECTED", 0), auth("0x5"), ...end, state("0x5", "CONNECTED", 10), ...create(1, 12)]);
      expect(ops[0]!.credentials, JSON.stringify(end)).toBeUndefined();
    }
    // Another session's handle ending leaves this one's.
    const [kept] = historyOf([state("0x5", "CONNECTED", 0), auth("0x5"), state("0x6", "CLOSED", 5), ...create(1, 12)]);
    expect(kept!.credentials).toEqual([{ scheme: "digest", auth: "bob:hunter2" }]);
  });
});
