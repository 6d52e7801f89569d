import { describe, expect, it } from "vitest";
import { ClientLinearizabilityChecker, ServerWatchesChecker, SessionOrderChecker, SessionsChecker, WatchRemovalChecker, WatchTriggersChecker, WatchesChecker } from "../../../src/check/client/index.js";
import { runCheckers, type Checker } from "../../../src/check/checker.js";
import { ClientTrace, S1, runChecker, z } from "./trace-builder.js";

const CHECKERS: [string, () => Checker][] = [
  ["client.linearizability", () => new ClientLinearizabilityChecker()],
  ["client.session-order", () => new SessionOrderChecker()],
  ["client.sessions", () => new SessionsChecker()],
  ["client.watches", () => new WatchesChecker()],
  ["client.server-watches", () => new ServerWatchesChecker()],
];

/** A well-formed create, then `broken` (a client event whose fields break the schema). */
function withBroken(broken: (t: ClientTrace) => void): ClientTrace {
  const t = new ClientTrace().standalone().connected("c1", S1);
  t.call("c1", S1, "create", "/k", { mode: 0, data: "" }, z(2), { path: "/k" });
  broken(t);
  return t;
}

const MALFORMED: [string, (t: ClientTrace) => void, RegExp][] = [
  ["a completion whose zxid is not a zxid", (t) => t.complete("c1", S1, t.invoke("c1", S1, "getData", "/k", {}), "ok", { zxid: "0xnope" }), /malformed client\.complete event #\d+ on c1: field "zxid" = "0xnope", expected a zxid/],
  ["a completion with no outcome", (t) => t.complete("c1", S1, t.invoke("c1", S1, "getData", "/k", {}), "", {}), /field "outcome"/],
  ["an invocation with no op", (t) => t.event("client.invoke", "c1", { client: "c1", session: S1, opId: 50, path: "/k" }), /field "op" is missing/],
  ["an invocation with no session", (t) => t.event("client.invoke", "c1", { client: "c1", opId: 51, op: "getData", path: "/k" }), /field "session" is missing/],
];

describe("check: client: malformed events are violations, never skipped", () => {
  for (const [name, make] of CHECKERS) {
    for (const [what, broken, message] of MALFORMED) {
      it(`${name}: ${what}`, () => {
        const v = runChecker(make(), withBroken(broken).events);
        expect(v.some((x) => x.checker === name && message.test(x.message))).toBe(true);
      });
    }
    it(`${name}: the well-formed trace alone passes (the canaries above fail for the fault they carry)`, () => {
      expect(runChecker(make(), withBroken(() => undefined).events)).toEqual([]);
    });
  }

  it("client.sessions: an expiry or a closeSession apply without a session is reported", () => {
    const t = withBroken((t) => t.event("zk.session.expire", "s1", { timeoutMs: 4000 }).event("zk.apply", "s1", { op: "closeSession", zxid: z(3) }));
    const v = runChecker(new SessionsChecker(), t.events);
    expect(v.map((x) => x.message)).toEqual([expect.stringMatching(/^malformed zk\.session\.expire event #\d+ on s1: field "session" is missing/), expect.stringMatching(/^malformed zk\.apply event #\d+ on s1: field "session" is missing/)]);
  });

  it("a malformed invocation is one violation: its completion is not reported again as completing nothing", () => {
    for (const [name, make] of CHECKERS) {
      const t = withBroken((t) => t.complete("c1", S1, t.invoke("c1", S1, "setData", "/k", { version: "nope" }), "ok", { zxid: z(3) }));
      const v = runChecker(make(), t.events).filter((x) => x.checker === name);
      expect(v.map((x) => x.message), name).toEqual([expect.stringMatching(/^malformed client\.invoke event #\d+ on c1: field "version"/)]);
    }
  });

  it("client.watches: a watch event without a type is reported", () => {
    const v = runChecker(new WatchesChecker(), withBroken((t) => t.event("client.watch", "c1", { client: "c1", session: S1, path: "/k", watchers: 1 })).events);
    expect(v.map((x) => x.message)).toEqual([expect.stringMatching(/^malformed client\.watch event #\d+ on c1: field "type" is missing/)]);
  });

  it("the watch checkers of one run pair operations in one table (run-ops.ts): each still reports every malformed event, and a completion of nothing, in its own log", () => {
    const t = withBroken((t) => {
      for (const [, broken] of MALFORMED) broken(t);
      t.complete("c1", S1, t.invoke("c1", S1, "setData", "/k", { version: "nope" }), "ok", { zxid: z(3) });
      t.complete("c1", S1, 77, "ok", { zxid: z(4) });
    });
    const watchers: (() => Checker)[] = [() => new WatchesChecker(), () => new ServerWatchesChecker(), () => new WatchTriggersChecker(), () => new WatchRemovalChecker()];
    const alone = watchers.flatMap((make) => runChecker(make(), t.events));
    expect(alone.filter((v) => v.checker === "client.watch-removal").map((v) => v.message)).toEqual([
      ...MALFORMED.map(([, , message]) => expect.stringMatching(message)),
      expect.stringMatching(/^malformed client\.invoke event #\d+ on c1: field "version"/),
      expect.stringMatching(/completion of op c1\/77 without an invocation/),
    ]);
    const together = runCheckers(watchers.map((make) => make()), t.events);
    expect(together).toEqual(alone);
  });
});
