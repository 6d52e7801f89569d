/**
 * hash-orders: the orders ZooKeeper 3.8 leaves to Java hash sets, as a real 3.8.0 server gives
 * them (docs/conformance.md, "Orders left to hash sets"). A client that assumes getChildren is
 * sorted, or that a closing session's ephemerals vanish in creation order, works on a small test
 * and breaks in production; the simulator must hand out the production orders, or it hides that.
 *
 * Every expected order below is the real server's answer to the same steps, recorded by the
 * conformance suite (`npm run conformance`, conformance/golden/children-order.json,
 * ephemeral-order.json and acl.json; test/scenario/zk-standalone.test.ts checks they still agree):
 *
 * 1. getChildren / getChildren2 through the children set's growth (`DataNode.children`, a
 *    `HashSet<String>(8)`: 7 names, 19 after it doubled, 18 after a delete).
 * 2. A session's ephemerals (a `HashSet<String>` per session in DataTree): getEphemerals, and the
 *    NodeDeleted events another session gets when it closes, in the order of the clone
 *    PrepRequestProcessor lists in the closeSession txn. The paths are the recording's, root
 *    `/conformance-ephemeral-order`: the set hashes whole paths.
 * 3. A connection's auth identities (a set backed by a `ConcurrentHashMap`, in the bins of the
 *    `Id` record's hash): two digest ids for alice (a wrong password is added too), which
 *    CREATOR_ALL_ACL expands in that order, the second added first.
 */
import { CreateMode, Ids, Perms } from "../../zk/proto/records.js";
import { EventLog, utf8, type ScriptDef } from "./script.js";

const OPEN = Ids.OPEN_ACL_UNSAFE;

/** The real 3.8.0 server's answers (conformance/golden/children-order.json). */
export const CHILDREN_ORDER = {
  created: ["zeta", "alpha", "m1", "b", "lock-0000000010", "lock-0000000002", "x"],
  seven: ["zeta", "b", "m1", "alpha", "x", "lock-0000000010", "lock-0000000002"],
  nineteen: ["zeta", "b", "n0", "n1", "m1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "alpha", "x", "lock-0000000010", "lock-0000000002"],
  afterDelete: ["zeta", "b", "n0", "n1", "m1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "x", "lock-0000000010", "lock-0000000002"],
};

/** The real 3.8.0 server's answers (conformance/golden/ephemeral-order.json), relative to the root. */
export const EPHEMERAL_ORDER = {
  root: "/conformance-ephemeral-order",
  created: ["x1", "eph-a", "eph-c", "eph-b", "eph-d"],
  getEphemerals: ["x1", "eph-d", "eph-c", "eph-b", "eph-a"],
  eventsOnClose: ["NodeDeleted x1", "NodeChildrenChanged .", "NodeDeleted eph-d", "NodeDeleted eph-c", "NodeDeleted eph-b", "NodeDeleted eph-a"],
};

/** The real 3.8.0 server's answer (conformance/golden/acl.json): getACL of a CREATOR_ALL node. */
export const CREATOR_ALL_ORDER = {
  added: ["alice:wrong", "alice:secret"],
  acl: ["alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=", "alice:9ussi3jBkbd4no1raUvxHSkUEN8="],
};

export const hashOrders: ScriptDef = {
  name: "hash-orders",
  description: "getChildren, getEphemerals, a closing session's deletes and CREATOR_ALL's ids in the orders a real 3.8.0 server gives (Java hash sets, not sorted)",
  async run(s) {
    const c1 = await s.connect("c1");
    const w = await s.connect("c2");

    await c1.create("/children", null, OPEN, CreateMode.PERSISTENT);
    for (const name of CHILDREN_ORDER.created) await c1.create(`/children/${name}`, null, OPEN, CreateMode.PERSISTENT);
    s.expectEqual(await c1.getChildren("/children"), CHILDREN_ORDER.seven, "getChildren of 7 children in 3.8.0's order (a HashSet of 16 buckets)");
    for (let i = 0; i < 12; i++) await c1.create(`/children/n${i}`, null, OPEN, CreateMode.PERSISTENT);
    s.expectEqual(await c1.getChildren("/children"), CHILDREN_ORDER.nineteen, "getChildren of 19 children in 3.8.0's order (the set doubled)");
    await c1.delete("/children/alpha", -1);
    s.expectEqual((await c1.getChildren2("/children")).children, CHILDREN_ORDER.afterDelete, "getChildren2 after a delete in 3.8.0's order");

    const root = EPHEMERAL_ORDER.root;
    const owner = await s.connect("c3");
    await c1.create(root, null, OPEN, CreateMode.PERSISTENT);
    for (const name of EPHEMERAL_ORDER.created) await owner.create(`${root}/${name}`, null, OPEN, CreateMode.EPHEMERAL);
    const log = new EventLog();
    for (const name of EPHEMERAL_ORDER.created) await w.exists(`${root}/${name}`, log.watcher);
    await w.getChildren(root, log.watcher);
    s.expectEqual(await owner.getEphemerals("/"), EPHEMERAL_ORDER.getEphemerals.map((n) => `${root}/${n}`), "getEphemerals in 3.8.0's order (the clone of the session's set)");
    await owner.close();
    await w.sync(root);
    await w.exists(root);
    const relative = (e: string) => e.replace(`${root}/`, "").replace(root, ".");
    s.expectEqual(log.nodeEvents().map(relative), EPHEMERAL_ORDER.eventsOnClose, "a closing session's ephemerals are deleted in 3.8.0's order");

    const [wrong, secret] = CREATOR_ALL_ORDER.added;
    c1.addAuthInfo("digest", utf8(wrong!));
    c1.addAuthInfo("digest", utf8(secret!));
    await c1.create("/creator", null, Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
    const acl = (await c1.getACL("/creator")).acl;
    s.expectEqual(
      acl.map((a) => [a.perms, a.id.scheme, a.id.id]),
      CREATOR_ALL_ORDER.acl.map((id) => [Perms.ALL, "digest", id]),
      "CREATOR_ALL_ACL expands a connection's two digest ids in 3.8.0's order",
    );
    s.conclude("children, a session's ephemerals and a connection's ids came out in the orders a real 3.8.0 server gives");
    await c1.close();
    await w.close();
  },
};
