/**
 * What sessions a read-only server gives and keeps (3.8's ReadOnlyZooKeeperServer with
 * LearnerSessionTracker; docs/zookeeper.md §3.7), under both settings of `localSessionsEnabled`.
 * read-only-mode and read-only-rw-search only open a fresh local session on a read-only server
 * and leave it at the heal; these two reach the other states.
 *
 * read-only-global-sessions (local sessions off, 3.8's default): c1's session is created on the
 * majority while the minority server m is cut off, so m's tree never hears of it. Then the
 * majority crashes (a down host refuses at once: no probe of c1's search for a read/write server
 * blocks) and the cut heals: c1 re-attaches to m, read-only, with the same session — m tracks
 * nothing and touches succeed (an unknown global session is not expired there) — and reads the
 * tree m holds. A new read-only client gets no session from m (its createSession is refused
 * NOTREADONLY: no local sessions). When the majority restarts, m rejoins and c1 goes back to a
 * read/write server with its session, still alive there.
 *
 * read-only-local-expiry (local sessions on): c1 gets a local session on m, then is paused past
 * its session timeout; m's LocalSessionTracker expires it (no txn: the majority never knew it):
 * m's session dump (what the `dump` four-letter word prints through `zksim serve`) no longer lists
 * it. Resumed, c1 — which has never seen a read/write server, so reconnects with session id 0
 * (3.8's ClientCnxn.primeConnection) — gets a new local session. A second local session closed by
 * its client is answered (OK, before the server closes the connection) and ends cleanly.
 *
 * Canary `read-only-sessions-never-expire`: a read-only server whose local sessions never expire.
 */
import { text, type ScriptDef } from "./script.js";
import { followerWithConfig, handle, minorityServesReadOnly } from "./read-only-mode.js";

export const readOnlyGlobalSessions: ScriptDef = {
  name: "read-only-global-sessions",
  description: "local sessions off: a global session the read-only server never heard of re-attaches there read-only and survives; a new read-only client gets no session",
  clientRange: [2, 2],
  async run(s) {
    const setup = await followerWithConfig(s);
    if (setup === undefined) return;
    const { ens, minority, majority, writer } = setup;

    s.fault({ kind: "partition", groups: [[minority], [...majority, "c1", "c2"]] });
    s.note(`${minority} is cut off from ${majority.join(", ")} and both clients; read-only mode is on, local sessions off`);
    await minorityServesReadOnly(s, ens, minority);

    // A session the majority creates now: the minority's tree never holds it.
    const roaming = handle(s, "c1", [...majority, minority], { canBeReadOnly: true, sessionTimeoutMs: 30_000 });
    if (!s.expect(await s.waitFor(() => roaming.getState() === "CONNECTED", 30_000, "c1 connects to the majority"), "c1 has a read/write session")) return;
    const session = roaming.getSessionId();
    await writer.setData("/config", "v2", -1);
    await writer.close();

    for (const id of majority) s.fault({ kind: "crash", node: id });
    s.fault({ kind: "heal" });
    s.note(`the majority crashed and the cut healed: c1 can reach only ${minority}, read-only`);
    const ro = await s.waitFor(() => roaming.getState() === "CONNECTEDREADONLY", 30_000, `c1 re-attaches to ${minority} read-only`);
    if (!s.expect(ro, "a global session the read-only server never heard of re-attaches there read-only")) return;
    s.expect(roaming.getSessionId() === session, `c1 keeps its session on the read-only server (${roaming.getSessionIdHex()})`);
    s.expectEqual(text((await roaming.getData("/config")).data), "v1", `c1 reads ${minority}'s tree, from before the cut`);
    await s.expectError(roaming.setData("/config", "from-c1", -1), "NOTREADONLY", "setData on a read-only server");

    const fresh = handle(s, "c1", [minority], { canBeReadOnly: true });
    await s.sleepMs(5_000);
    s.expect(fresh.getState() !== "CONNECTEDREADONLY" && fresh.getState() !== "CONNECTED", "with local sessions off a read-only server gives a new client no session");
    s.expect(roaming.getState() === "CONNECTEDREADONLY", "c1's session is not expired by the read-only server, which tracks nothing");

    for (const id of majority) s.fault({ kind: "start", node: id });
    await ens.settled(60_000, "the majority restarts and the ensemble settles");
    const rw = await s.waitFor(() => roaming.getState() === "CONNECTED", 60_000, "c1 goes back to a read/write server");
    if (!s.expect(rw, "c1 is read/write again after the majority restarts")) return;
    s.expect(roaming.getSessionId() === session, `c1 still has the session it re-attached read-only (${roaming.getSessionIdHex()})`);
    await roaming.setData("/config", "v3", -1);
    s.conclude("local sessions off: an unknown global session re-attached read-only and survived; no new session was given");
    await Promise.all([roaming.close(), fresh.close()]);
  },
};

export const readOnlyLocalExpiry: ScriptDef = {
  name: "read-only-local-expiry",
  description: "local sessions on: a read-only server expires a local session whose client went silent, and answers one its client closes",
  clientRange: [2, 2],
  async run(s) {
    const setup = await followerWithConfig(s);
    if (setup === undefined) return;
    const { ens, minority, majority, writer } = setup;

    s.fault({ kind: "partition", groups: [[minority, "c1"], [...majority, "c2"]] });
    s.note(`${minority} is cut off from ${majority.join(", ")} with client c1; read-only mode and local sessions are on`);
    await minorityServesReadOnly(s, ens, minority);

    const silent = handle(s, "c1", [minority], { canBeReadOnly: true, sessionTimeoutMs: 6_000 });
    if (!s.expect(await s.waitFor(() => silent.getState() === "CONNECTEDREADONLY", 20_000, "c1 connects read-only"), "c1 has a local session")) return;
    const closing = handle(s, "c1", [minority], { canBeReadOnly: true });
    if (!s.expect(await s.waitFor(() => closing.getState() === "CONNECTEDREADONLY", 20_000, "c1's second handle connects read-only"), "c1 has a second local session")) return;
    // 3.8's FinalRequestProcessor answers a closeSession, then closes the connection: the close
    // of a local session is answered OK, not cut off (CONNECTIONLOSS) by the server's own close.
    const closingSession = closing.getSessionIdHex();
    let closeOutcome: unknown;
    const stopWatching = s.sim.trace.subscribe((e) => {
      if (e.kind === "client.complete" && e.node === "c1" && e.fields?.session === closingSession) closeOutcome = e.fields.outcome;
    });
    await closing.close();
    stopWatching();
    s.expectEqual(closeOutcome, "ok", "the read-only server answers the close of a local session before it closes the connection");
    s.expect(closing.getState() === "CLOSED", "a local session its client closes ends closed");

    const first = silent.getSessionId();
    const tracked = (): boolean => {
      const dump = ens.peer(minority)?.readOnlyServer?.sessionDump();
      if (dump === undefined) return false;
      return dump.kind === "global-sessions" ? dump.sessions.some(([id]) => id === first) : dump.buckets.some((b) => b.sessions.includes(first));
    };
    s.expect(tracked(), `${minority}'s session dump lists c1's local session`);
    s.fault({ kind: "pause", node: "c1" });
    await s.sleepMs(20_000);
    s.note(`c1 was paused for 20 s, past its 6 s session timeout`);
    // What \`dump\` on the read-only server prints (zksim serve): the expired session is gone.
    s.expect(!tracked(), `${minority} expired the local session of a silent client (its session dump no longer lists it)`);
    s.fault({ kind: "resume", node: "c1" });
    // A client that has never seen a read/write server reconnects with session id 0 (3.8's primeConnection).
    const again = await s.waitFor(() => silent.getState() === "CONNECTEDREADONLY" && silent.getSessionId() !== first, 30_000, "c1 reconnects read-only with a new session");
    s.expect(again, "c1, which never saw a read/write server, gets a new local session after its pause");

    s.fault({ kind: "heal" });
    await ens.settled(60_000, "the minority server rejoins after the heal");
    await writer.setData("/config", "v2", -1);
    s.conclude("local sessions on: a silent client's local session expired on the read-only server; a closed one ended cleanly");
    await Promise.all([silent.close(), writer.close()]);
  },
};
