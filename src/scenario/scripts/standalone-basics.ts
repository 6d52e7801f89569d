/**
 * standalone-basics: the data model end to end through the client library — create modes,
 * sequential names from the parent's counter, versions and BADVERSION, Stat fields, children,
 * multi (all or nothing), and the error codes a user meets first.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { Op } from "../../zk/client/index.js";
import { text, type ScriptDef } from "./script.js";

export const standaloneBasics: ScriptDef = {
  name: "standalone-basics",
  description: "create/get/set/delete, versions, sequential names, children, multi and common errors on one server",
  async run(s) {
    const zk = await s.connect("c1");
    s.note(`c1 connected with session ${zk.getSessionIdHex()} (negotiated timeout ${zk.getSessionTimeout()} ms)`);
    const open = Ids.OPEN_ACL_UNSAFE;

    s.expectEqual(await zk.create("/app", "v0", open, CreateMode.PERSISTENT), "/app", "create returns the path");
    await s.expectError(zk.create("/app", "again", open, CreateMode.PERSISTENT), "NODEEXISTS", "create of an existing node");
    await s.expectError(zk.create("/missing/child", "", open, CreateMode.PERSISTENT), "NONODE", "create under a missing parent");

    const v1 = await zk.setData("/app", "v1", 0);
    s.expectEqual(v1.version, 1, "setData bumps version");
    await s.expectError(zk.setData("/app", "stale", 0), "BADVERSION", "setData with a stale version");
    const got = await zk.getData("/app");
    s.expectEqual(text(got.data), "v1", "getData returns the last written data");
    s.expectEqual([got.stat.version, got.stat.dataLength, got.stat.numChildren], [1, 2, 0], "Stat version/dataLength/numChildren");
    s.expect(got.stat.mzxid > got.stat.czxid, "mzxid moved past czxid after setData");

    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push(await zk.create("/app/job-", "", open, CreateMode.PERSISTENT_SEQUENTIAL));
    await zk.create("/app/plain", "", open, CreateMode.PERSISTENT);
    names.push(await zk.create("/app/job-", "", open, CreateMode.PERSISTENT_SEQUENTIAL));
    s.expectEqual(names, ["/app/job-0000000000", "/app/job-0000000001", "/app/job-0000000002", "/app/job-0000000004"], "sequential names count every child creation");
    await zk.delete("/app/plain", -1);
    s.expectEqual((await zk.getChildren("/app")).sort(), ["job-0000000000", "job-0000000001", "job-0000000002", "job-0000000004"], "children after a delete");
    const parent = await zk.exists("/app");
    s.expectEqual(parent?.cversion, 6, "visible cversion = 2*creations - children (5 creations, 4 children → 6)");
    await s.expectError(zk.delete("/app", -1), "NOTEMPTY", "delete of a node with children");
    s.expectEqual(await zk.exists("/nowhere"), null, "exists on a missing node is null");

    const results = await zk.multi([Op.create("/m", "", open, CreateMode.PERSISTENT), Op.create("/m/a", "", open, CreateMode.PERSISTENT), Op.setData("/m", "x", -1)]);
    s.expectEqual(results.length, 3, "a successful multi returns one result per op");
    await s.expectError(zk.multi([Op.create("/n", "", open, CreateMode.PERSISTENT), Op.delete("/nope", -1)]), "NONODE", "a failing multi reports its first error");
    s.expectEqual(await zk.exists("/n"), null, "a failed multi applies nothing");

    const eph = await zk.create("/app/me", "", open, CreateMode.EPHEMERAL);
    s.expectEqual((await zk.exists(eph))?.ephemeralOwner, zk.getSessionId(), "an ephemeral's owner is the session");
    await s.expectError(zk.create("/app/me/child", "", open, CreateMode.PERSISTENT), "NOCHILDRENFOREPHEMERALS", "ephemerals have no children");
    s.expectEqual(await zk.getEphemerals("/"), ["/app/me"], "getEphemerals lists the session's ephemerals");
    s.conclude("data model checks done: versions, sequence numbers, cversion, multi and error codes behaved as ZooKeeper 3.8");
    await zk.close();
    s.expectEqual(zk.getState(), "CLOSED", "close() ends the session");
  },
};
