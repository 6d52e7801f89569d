/**
 * read-only-rw-search: a read-only client that knows the whole ensemble finds a read/write
 * server by itself (3.8's ClientCnxn.pingRwServer; docs/zookeeper.md §3.7). The two other
 * servers crash, so the last one, alone and LOOKING with read-only mode on, serves read-only:
 * client c1 (which names all three) gets a read-only session there. Then that server is cut off
 * from the other two and they restart and form a quorum: c1's search for a read/write server —
 * a probe of the next host every pingRwTimeout, from 100 ms doubling up to 60 s — finds one, and
 * c1 moves there with a new, global session and writes, while its read-only server is still
 * cut off and read-only.
 *
 * In read-only-mode the client's only server leaves read-only mode at the heal, which gives
 * the client its read/write session whether or not its search works; here nothing but the
 * search can. The majority crashes rather than being cut off from c1: a probe of a host that
 * drops packets blocks 3.8's SendThread for the OS connect timeout (127 s, past the session),
 * while a down host refuses at once. Canary `rw-probe-ignored`.
 */
import { text, type ScriptDef } from "./script.js";
import { followerWithConfig, handle } from "./read-only-mode.js";

/** The longest pingRwTimeout of 3.8's client (`maxPingRwTimeout`), plus a probe's connect and answer. */
const SEARCH_BOUND_MS = 60_000 + 10_000;

export const readOnlyRwSearch: ScriptDef = {
  name: "read-only-rw-search",
  description: "a read-only client that knows every server finds a read/write one by its own probes while its read-only server stays cut off, and moves there with a new session",
  clientRange: [2, 2],
  async run(s) {
    const setup = await followerWithConfig(s);
    if (setup === undefined) return;
    const { ens, minority, majority, writer } = setup;

    for (const id of majority) s.fault({ kind: "crash", node: id });
    s.note(`${majority.join(", ")} crashed; ${minority} is alone with read-only mode on`);
    const started = await s.waitFor(() => ens.peer(minority)?.readOnlyServer !== undefined, 30_000, `${minority} starts its read-only server`);
    if (!s.expect(started, `${minority} serves read-only while LOOKING`)) return;

    const reader = handle(s, "c1", [minority, ...majority], { canBeReadOnly: true });
    const roConnected = await s.waitFor(() => reader.getState() === "CONNECTEDREADONLY", 20_000, "c1 connects read-only");
    if (!s.expect(roConnected, "c1 is connected read-only to the only server up")) return;
    const roSession = reader.getSessionId();
    s.expectEqual(text((await reader.getData("/config")).data), "v1", "c1 reads read-only");
    await s.expectError(reader.setData("/config", "from-c1", -1), "NOTREADONLY", "setData on the read-only server");
    await s.sleepMs(20_000);
    s.expect(reader.getState() === "CONNECTEDREADONLY", "c1 stays read-only while no read/write server is up (its probes are refused)");

    s.fault({ kind: "cut", from: [minority], to: majority });
    for (const id of majority) s.fault({ kind: "restart", node: id });
    s.note(`${minority} is cut off from ${majority.join(", ")}, which restart and form a quorum`);
    const serving = await s.waitFor(() => majority.includes(ens.leader() ?? ""), 60_000, `${majority.join(", ")} elect a leader`);
    if (!s.expect(serving, `${majority.join(", ")} serve as a quorum without ${minority}`)) return;
    const rw = await s.waitFor(() => reader.getState() === "CONNECTED", SEARCH_BOUND_MS, "c1's probes find a read/write server");
    if (!s.expect(rw, `c1 moved to a read/write server within ${SEARCH_BOUND_MS / 1000} s of a quorum serving`)) return;
    s.expect(ens.peer(minority)?.readOnlyServer !== undefined, `${minority} was still read-only when c1 moved: only c1's search moved it`);
    s.expect(reader.getSessionId() !== roSession, "the read/write session is a new one (a read-only session is never re-attached)");
    await reader.setData("/config", "v2", -1);
    const check = await s.connect("c2", { servers: majority });
    s.expectEqual(text((await check.getData("/config")).data), "v2", "c1's write on its read/write server is seen by c2");
    s.conclude("a read-only client found a read/write server by its own probes and moved there with a new session");
    s.fault({ kind: "heal" });
    await Promise.all([reader.close(), check.close(), writer.close()]);
  },
};
