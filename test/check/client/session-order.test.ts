import { describe, expect, it } from "vitest";
import { SessionOrderChecker } from "../../../src/check/client/index.js";
import { ClientTrace, S1, S2, runChecker, z } from "./trace-builder.js";

describe("check: client: session order", () => {
  it("in-order completions with growing zxids, across a reconnect to another server, pass", () => {
    const t = new ClientTrace().connected("c1", S1, "s1");
    t.call("c1", S1, "create", "/a", { mode: 0 }, z(3));
    t.event("client.disconnect", "c1", { client: "c1", session: S1, reason: "read timeout" }).connected("c1", S1, "s2");
    t.call("c1", S1, "getData", "/a", {}, z(3));
    t.call("c1", S1, "getData", "/a", {}, z(5));
    // Another session's older zxid is no concern of this one.
    t.connected("c2", S2, "s3").call("c2", S2, "getData", "/a", {}, z(2));
    expect(runChecker(new SessionOrderChecker(), t.events)).toEqual([]);
  });

  it("a session seeing the zxid go backwards after reconnecting is a violation", () => {
    const t = new ClientTrace().connected("c1", S1, "s1");
    t.call("c1", S1, "setData", "/a", { version: -1 }, z(5));
    t.event("client.disconnect", "c1", { client: "c1", session: S1, reason: "read timeout" }).connected("c1", S1, "s2");
    t.call("c1", S1, "getData", "/a", {}, z(3));
    const v = runChecker(new SessionOrderChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/saw zxid 0x3, but .* had already seen 0x5/);
    expect(v[0]!.eventIndex).toBe(t.events.length - 1);
  });

  it("a failed reply's zxid counts too; zxid 0 (not a server state) does not", () => {
    const t = new ClientTrace().connected("c1", S1);
    t.call("c1", S1, "getData", "/a", {}, z(5));
    const id = t.invoke("c1", S1, "delete", "/a", { version: 3 });
    t.complete("c1", S1, id, "fail", { err: "BADVERSION", zxid: z(4) });
    t.call("c1", S1, "getData", "/a", {}, "0x0");
    const v = runChecker(new SessionOrderChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/op 2 \(delete \/a/);
  });

  it("completions out of invocation order are a violation; local answers and unknown outcomes are not", () => {
    const t = new ClientTrace().connected("c1", S1);
    const a = t.invoke("c1", S1, "setData", "/a", { version: -1 });
    const b = t.invoke("c1", S1, "getData", "/a", {});
    t.complete("c1", S1, b, "ok", { zxid: z(3) }).complete("c1", S1, a, "ok", { zxid: z(4) });
    const v = runChecker(new SessionOrderChecker(), t.events);
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/FIFO/);

    const ok = new ClientTrace().connected("c1", S1);
    const x = ok.invoke("c1", S1, "setData", "/a", { version: -1 });
    const empty = ok.invoke("c1", S1, "multi", "", { ops: [] });
    ok.complete("c1", S1, empty, "ok", { local: true });
    const lost = ok.invoke("c1", S1, "getData", "/a", {});
    ok.complete("c1", S1, x, "ok", { zxid: z(3) });
    const y = ok.invoke("c1", S1, "getData", "/a", {});
    ok.complete("c1", S1, y, "ok", { zxid: z(3) }).complete("c1", S1, lost, "unknown", { err: "CONNECTIONLOSS" });
    expect(runChecker(new SessionOrderChecker(), ok.events)).toEqual([]);
  });
});
