/**
 * client-connect-timeout: a client gives a server it cannot reach only its share of the session
 * timeout. 3.8's ClientCnxn sets connectTimeout = negotiated session timeout / number of hosts
 * (`onConnected`): a connection attempt that hears nothing for that long is dropped and the next
 * host is tried, so an unreachable host in the list costs a reconnecting client T/n of its
 * session, never the session itself.
 *
 * c1 lists s1 and s2 only; its links to s2 are cut from the start (a silent network, no reset),
 * so it connects to s1. s1 crashes and comes back a second later: c1 gets the reset, tries s2
 * (its SYN waits on the cut link), gives up after T/2 = 6 s, and is back on s1 with its session
 * well inside the 12 s session timeout; its ephemeral node never went away.
 */
import { CreateMode, Ids } from "../../zk/proto/records.js";
import { EnsembleView } from "./ensemble.js";
import type { ScriptDef } from "./script.js";

const SESSION_MS = 12_000;

export const clientConnectTimeout: ScriptDef = {
  name: "client-connect-timeout",
  description: "a client whose server crashes while the other host of its list is unreachable gives that one T/n and keeps its session",
  clientRange: [2, 2],
  async run(s) {
    const view = new EnsembleView(s.sim, s);
    await view.settled(30_000);
    s.fault({ kind: "cut", from: ["c1"], to: ["s2"] });
    const zk = await s.connect("c1", { sessionTimeoutMs: SESSION_MS, servers: ["s1", "s2"] });
    const other = await s.connect("c2", { servers: ["s3"] });
    const session = zk.getSessionId();
    s.expectEqual(zk.getSessionTimeout(), SESSION_MS, "the session timeout asked for is granted");
    await zk.create("/c1-alive", "", Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    s.note("s1, c1's server, crashes; s2, the other host c1 lists, stays unreachable from c1");
    s.fault({ kind: "crash", node: "s1" });
    await s.sleepMs(1000);
    s.fault({ kind: "restart", node: "s1" });
    const back = await s.waitFor(() => zk.getState() === "CONNECTED", SESSION_MS, "c1 is connected again within its session timeout");
    if (back) s.expectEqual(zk.getSessionId(), session, "c1 reconnected with its own session");
    s.expect((await other.exists("/c1-alive")) !== null, "c1's ephemeral node outlived the crash of its server");
    s.fault({ kind: "heal" });
    await zk.close();
    await other.close();
    s.conclude("the unreachable host cost c1 only its share of the session timeout: it was back on s1 with its session");
  },
};
