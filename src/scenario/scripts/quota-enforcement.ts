/**
 * quota-enforcement: ZooKeeper 3.8's quotas with `zookeeper.enforceQuota=true` (docs/zookeeper.md
 * §1.7), set as the `setquota` command sets them — `/zookeeper/quota/<path>/zookeeper_limits`
 * ("count=…,bytes=…,countHardLimit=…,byteHardLimit=…") beside its `zookeeper_stats` — and
 * checked by `PrepRequestProcessor.checkQuota` on create and setData: a hard limit fails the
 * request QUOTAEXCEEDED, a soft one (`count`, `bytes`) only warns; the count includes the quota
 * root itself and every node under it, the bytes are their data; a nested path is judged by its
 * nearest quota root; paths outside every quota root are never limited. Canary
 * `quota-root-uncounted` (the root left out of its own count).
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ZooKeeper } from "../../zk/client/index.js";
import type { ScriptDef } from "./script.js";

/** What `setquota` writes: the limits node and, beside it, the stats node the server keeps. */
async function setQuota(zk: ZooKeeper, path: string, limits: string): Promise<void> {
  const root = `/zookeeper/quota${path}`;
  let at = "/zookeeper/quota";
  for (const part of path.split("/").slice(1)) {
    at = `${at}/${part}`;
    if ((await zk.exists(at)) === null) await zk.create(at, "", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }
  await zk.create(`${root}/zookeeper_stats`, "count=0,bytes=0", Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  await zk.create(`${root}/zookeeper_limits`, limits, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
}

export const quotaEnforcement: ScriptDef = {
  name: "quota-enforcement",
  description: "enforced quotas: hard count and byte limits fail QUOTAEXCEEDED, soft ones only warn; the root counts itself; the nearest quota root judges",
  async run(s) {
    const zk = await s.connect("c1");
    const other = await s.connect("c2");
    const open = Ids.OPEN_ACL_UNSAFE;
    const persistent = CreateMode.PERSISTENT;

    await zk.create("/app", "", open, persistent);
    await setQuota(zk, "/app", "count=-1,bytes=-1,countHardLimit=3,byteHardLimit=10");
    await zk.create("/app/a", "", open, persistent);
    await other.create("/app/b", "", open, persistent);
    await s.expectError(zk.create("/app/c", "", open, persistent), "QUOTAEXCEEDED", "a fourth node under a hard count limit of 3 (/app counts itself)");
    await s.expectError(other.create("/app/a/deep", "", open, persistent), "QUOTAEXCEEDED", "a grandchild counts against the same root");
    s.expectEqual(await zk.exists("/app/c"), null, "the refused create left no node");

    await zk.setData("/app/a", "12345678", -1);
    await s.expectError(other.setData("/app/b", "12345", -1), "QUOTAEXCEEDED", "8 + 5 bytes over a hard byte limit of 10");
    await other.setData("/app/b", "12", -1);
    await s.expectError(zk.setData("/app/a", "123456789", -1), "QUOTAEXCEEDED", "growing /app/a by one byte: 9 + 2 > 10");
    await zk.setData("/app/a", "1", -1);
    s.note("the hard limits of /app held: count 3 with the root, 10 bytes");

    await other.delete("/app/b", -1);
    await zk.create("/app/c", "", open, persistent);
    s.note("after a delete the count has room again");

    await zk.create("/soft", "", open, persistent);
    await setQuota(zk, "/soft", "count=2,bytes=1,countHardLimit=-1,byteHardLimit=-1");
    for (const name of ["x", "y", "z"]) await other.create(`/soft/${name}`, "over the soft byte limit", open, persistent);
    s.expectEqual((await zk.getChildren("/soft")).length, 3, "soft limits only warn: every create went through");

    await s.expectError(zk.create("/app/c/nested", "", open, persistent), "QUOTAEXCEEDED", "a node under the new /app/c: /app is full again");
    await zk.create("/free", "", open, persistent);
    for (let i = 0; i < 5; i++) await other.create(`/free/n${i}`, "no quota above this path", open, persistent);
    s.expectEqual((await zk.getChildren("/free")).length, 5, "a path under no quota root is not limited");
    s.conclude("enforced quotas as 3.8: hard limits refuse QUOTAEXCEEDED, soft ones warn, the root counts itself");
    await Promise.all([zk.close(), other.close()]);
  },
};
