/**
 * zab-rolling-restart: every server is restarted in turn (leader included) while a client keeps
 * writing. The service survives each restart; every acknowledged write is there at the end and
 * all servers converge on the same tree.
 */
import { isKeeperException } from "../../zk/client/keeper-exception.js";
import { CreateMode, Ids } from "../../zk/proto/records.js";
import type { ScriptDef } from "./script.js";
import { EnsembleView } from "./ensemble.js";

export const zabRollingRestart: ScriptDef = {
  name: "zab-rolling-restart",
  description: "restart every server in turn under writes; nothing acknowledged is lost",
  async run(s) {
    const ens = new EnsembleView(s.sim, s);
    if ((await ens.settled(30_000)) === undefined) return;
    const zk = await s.connect("c1", { sessionTimeoutMs: 30_000 });
    const open = Ids.OPEN_ACL_UNSAFE;
    await zk.create("/roll", "", open, CreateMode.PERSISTENT);
    const acked: string[] = [];
    let n = 0;
    for (const id of s.servers) {
      for (let i = 0; i < 5; i++) {
        const name = `/roll/w${n++}`;
        try {
          await zk.create(name, "", open, CreateMode.PERSISTENT);
          acked.push(name.slice(6));
        } catch (err) {
          // CONNECTIONLOSS (or OPERATIONTIMEOUT) during a restart: unknown, not acknowledged.
          // Anything else is no part of this story and fails the run.
          if (!(isKeeperException(err) && err.recoverable)) throw err;
        }
      }
      s.fault({ kind: "restart", node: id });
      s.note(`restarted ${id}`);
      await ens.settled(60_000, `the ensemble settles after restarting ${id}`);
    }
    await zk.sync("/roll");
    const children = await zk.getChildren("/roll");
    for (const a of acked) s.expect(children.includes(a), `acknowledged /roll/${a} survived the rolling restart`);
    s.conclude(`${acked.length} acknowledged writes all survived ${s.servers.length} restarts`);
  },
};
