import { describe, expect, it } from "vitest";
import { WatchLeakChecker } from "../../../src/check/zk/watch-leak.js";
import { runCheckers } from "../../../src/check/checker.js";
import { asEvent } from "../../helpers/loose-events.js";

describe("check: zk.watch-leak", () => {
  it("every watch fired into a closed connection is a leak, reported once per server and session; none is a pass", () => {
    const fired = (node: string, session: string, index: number) =>
      asEvent({ index, atUs: index * 1000, kind: "zk.watch.closed-cnxn", node, fields: { client: "c1", session, type: "NodeDataChanged", path: "/a" } });
    const v = runCheckers([new WatchLeakChecker()], [fired("s1", "0x5", 0), fired("s1", "0x5", 1), fired("s2", "0x5", 2)]);
    expect(v.map((x) => x.message)).toEqual([
      "s1 fired a NodeDataChanged watch on /a for c1's closed connection (session 0x5): the server kept that connection's watches past its close",
      "s2 fired a NodeDataChanged watch on /a for c1's closed connection (session 0x5): the server kept that connection's watches past its close",
    ]);
    expect(runCheckers([new WatchLeakChecker()], [])).toEqual([]);
    expect(new WatchLeakChecker().alarm).toBe(true);
  });
});
