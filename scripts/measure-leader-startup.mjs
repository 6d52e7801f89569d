#!/usr/bin/env node
/**
 * Measures, on a real ZooKeeper 3.8 ensemble on this machine, what serve's loopback timing
 * profile models as `leaderStartupMs` (src/serve/serve-timing.ts, docs/serve.md "Timing
 * profiles"): how long a newly elected leader takes from its decision (QuorumPeer's `LEADING`)
 * to having bound its quorum port (Leader's constructor binds it; `Leader.lead()` logs
 * `LEADING - LEADER ELECTION TOOK` right after), and whether the followers' first connect to it
 * was refused (Learner's `Unexpected exception, tries=0`), and how long the follower took from
 * its own decision (`FOLLOWING`) to that first connect (`learnerStartupMs`).
 *
 * It also measures the two steps of the sync that serve models as `learnerSyncMs` and
 * `leaderServingStartupMs` (src/zk/server/quorum/quorum-timing.ts): the follower's handling of
 * NEWLEADER in `Learner.syncWithLeader` (`Learner received NEWLEADER message` to the leader's
 * `Have quorum of supporters`, logged once the follower's NEWLEADER ACK completed its quorum: the
 * follower's snapshot or log work, `startupWithoutServing`, and one hop), and the leader's
 * `Leader.startZkServer` (`Have quorum of supporters` to `Peer state changed: leading -
 * broadcast`), the wait of every LearnerHandler before it sends UPTODATE. With them the
 * follower's whole sync (`following - synchronization` to `following - broadcast`, what 3.8's
 * `zk_follower_sync_time` counts) and the leader's serving after its decision.
 *
 * Three members (Debian's package, as `zksim bench serve` starts them) log at INFO through
 * slf4j-simple (the package ships slf4j without a binding, so it logs nothing by itself), each
 * to its own file. Each round: `kill -9` of the leader (found by `srvr`), wait until a new
 * leader serves with a follower, start the killed member again, wait until it follows. Then the
 * logs are read; one line per round and the medians are printed.
 *
 *   npm run build && nice -n 5 node scripts/measure-leader-startup.mjs [rounds=12]
 *
 * Real processes and the wall clock: a measurement tool, outside the simulation.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { ZK_SERVER_SH, freePorts, spawnProcessGroup, stopProcessGroup } from "../dist/conformance/real-zookeeper.js";
import { askFourLetterWord } from "../dist/conformance/runner.js";

const SLF4J_SIMPLE = "/usr/share/java/slf4j-simple.jar";
const rounds = Number(process.argv[2] ?? 12);
if (!existsSync(ZK_SERVER_SH) || !existsSync(SLF4J_SIMPLE)) {
  console.error(`needs ${ZK_SERVER_SH} and ${SLF4J_SIMPLE} (apt-get install -y zookeeper libslf4j-java)`);
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(join(tmpdir(), "zksim-leader-startup-"));
const ports = await freePorts(9);
const clientPorts = ports.slice(0, 3);
const servers = [1, 2, 3].map((sid) => `server.${sid}=127.0.0.1:${ports[2 + sid]}:${ports[5 + sid]}`);
const logOf = (sid, incarnation) => join(dir, `s${sid}`, `log.${incarnation}`);
const incarnations = [0, 0, 0];
const start = (sid) => {
  const home = join(dir, `s${sid}`);
  const flags = [
    `-cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar:${SLF4J_SIMPLE}`,
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
    "-Dorg.slf4j.simpleLogger.showDateTime=true",
    "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSZ",
    `-Dorg.slf4j.simpleLogger.logFile=${logOf(sid, ++incarnations[sid - 1])}`,
  ].join(" ");
  return spawnProcessGroup(ZK_SERVER_SH, ["start-foreground", join(home, "zoo.cfg")], { ...process.env, ZOO_LOG_DIR: home, SERVER_JVMFLAGS: flags });
};
const children = [1, 2, 3].map((sid) => {
  const home = join(dir, `s${sid}`);
  mkdirSync(join(home, "data"), { recursive: true });
  writeFileSync(join(home, "data", "myid"), `${sid}\n`);
  writeFileSync(join(home, "zoo.cfg"), ["tickTime=2000", "initLimit=10", "syncLimit=5", `dataDir=${join(home, "data")}`, `clientPort=${clientPorts[sid - 1]}`, "clientPortAddress=127.0.0.1", "4lw.commands.whitelist=srvr", "admin.enableServer=false", ...servers, ""].join("\n"));
  return start(sid);
});
const modes = () => Promise.all(clientPorts.map((port) => askFourLetterWord({ host: "127.0.0.1", port }, "srvr", 2000).then((a) => /^Mode: (\w+)$/m.exec(a)?.[1] ?? "", () => "")));
async function waitFor(pred, what) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = await modes();
    if (pred(m)) return m;
    if (Date.now() > deadline) throw new Error(`${what}: modes ${m.join(",")}`);
    await sleep(20);
  }
}
const kills = [];
try {
  let m = await waitFor((m) => m.filter((x) => x === "leader").length === 1 && m.every((x) => x === "leader" || x === "follower"), "start");
  for (let round = 1; round <= rounds; round++) {
    const leader = m.indexOf("leader");
    await sleep(1000);
    kills.push({ sid: leader + 1, atMs: Date.now(), load: loadavg()[0] });
    await stopProcessGroup(children[leader], "SIGKILL");
    await waitFor((m) => m.includes("leader") && m.includes("follower"), `round ${round}`);
    children[leader] = start(leader + 1);
    m = await waitFor((m) => m.filter((x) => x === "leader").length === 1 && m.every((x) => x === "leader" || x === "follower"), `round ${round} rejoin`);
  }
} finally {
  await Promise.all(children.map((c) => stopProcessGroup(c)));
}

// Every member's log lines with their times (ms since the epoch), all incarnations.
const lines = [];
for (const sid of [1, 2, 3]) {
  for (let i = 1; i <= incarnations[sid - 1]; i++) {
    if (!existsSync(logOf(sid, i))) continue;
    for (const line of readFileSync(logOf(sid, i), "utf8").split("\n")) {
      const t = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}) /.exec(line);
      if (t) lines.push({ sid, incarnation: i, atMs: Date.parse(t[1].replace(/([+-]\d\d)(\d\d)$/, "$1:$2")), text: line });
    }
  }
}
lines.sort((a, b) => a.atMs - b.atMs);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rows = [];
for (let r = 0; r < kills.length; r++) {
  const from = kills[r].atMs;
  const to = r + 1 < kills.length ? kills[r + 1].atMs : Infinity;
  const inRound = lines.filter((l) => l.atMs >= from && l.atMs < to);
  const first = (sid, re) => inRound.find((l) => (sid === undefined || l.sid === sid) && re.test(l.text));
  const leading = first(undefined, /\bLEADING$/);
  if (!leading) continue;
  const bound = first(leading.sid, /LEADING - LEADER ELECTION TOOK/);
  const broadcast = first(leading.sid, /Peer state changed: leading - broadcast/);
  const follower = [1, 2, 3].find((s) => s !== leading.sid && s !== kills[r].sid);
  const following = first(follower, /\bFOLLOWING$/);
  const refused = inRound.filter((l) => l.sid === follower && /Unexpected exception, tries=\d/.test(l.text));
  const connected = first(follower, /Successfully connected to leader/);
  const firstTry = refused[0] ?? connected;
  const syncBegins = first(follower, /Peer state changed: following - synchronization$/);
  const newLeader = first(follower, /Learner received NEWLEADER message/);
  const quorum = first(leading.sid, /Have quorum of supporters/);
  const upToDate = first(follower, /Learner received UPTODATE message/);
  const followerBroadcast = first(follower, /Peer state changed: following - broadcast/);
  const between = (a, b) => (a && b ? b.atMs - a.atMs : NaN);
  // Whether this JVM had led before (its classes loaded and JIT-compiled by an earlier leadership).
  const ledBefore = lines.some((l) => l.sid === leading.sid && l.incarnation === leading.incarnation && l.atMs < leading.atMs && /\bLEADING$/.test(l.text));
  rows.push({
    round: r + 1,
    load: kills[r].load.toFixed(1),
    leader: leading.sid,
    firstLeadershipOfJvm: !ledBefore,
    decideMs: leading.atMs - from,
    bindAfterDecideMs: bound ? bound.atMs - leading.atMs : NaN,
    followerDecidedAfterLeaderMs: following ? following.atMs - leading.atMs : NaN,
    firstConnectAfterOwnDecideMs: firstTry && following ? firstTry.atMs - following.atMs : NaN,
    refusedConnects: refused.length,
    connectedAfterDecideMs: connected ? connected.atMs - leading.atMs : NaN,
    broadcastAfterDecideMs: broadcast ? broadcast.atMs - leading.atMs : NaN,
    followerSyncMs: between(syncBegins, followerBroadcast),
    syncToNewLeaderMs: between(syncBegins, newLeader),
    learnerNewLeaderMs: between(newLeader, quorum),
    leaderServingStartupMs: between(quorum, broadcast),
    upToDateAfterServingMs: between(broadcast, upToDate),
  });
}
console.table(rows);
const pick = (f, rs = rows) => rs.map(f).filter((x) => !Number.isNaN(x));
console.log(`rounds ${rows.length}; decide→bind median ${median(pick((r) => r.bindAfterDecideMs))} ms (min ${Math.min(...pick((r) => r.bindAfterDecideMs))}, max ${Math.max(...pick((r) => r.bindAfterDecideMs))}); first leadership of a JVM: median ${median(pick((r) => r.bindAfterDecideMs, rows.filter((r) => r.firstLeadershipOfJvm)))} ms over ${rows.filter((r) => r.firstLeadershipOfJvm).length}, later ones ${median(pick((r) => r.bindAfterDecideMs, rows.filter((r) => !r.firstLeadershipOfJvm)))} ms over ${rows.filter((r) => !r.firstLeadershipOfJvm).length}`);
console.log(`the follower's first connect after its own decision: median ${median(pick((r) => r.firstConnectAfterOwnDecideMs))} ms (min ${Math.min(...pick((r) => r.firstConnectAfterOwnDecideMs))}, max ${Math.max(...pick((r) => r.firstConnectAfterOwnDecideMs))})`);
console.log(`rounds whose follower's first connect was refused: ${rows.filter((r) => r.refusedConnects > 0).length} of ${rows.length}; connected after decide median ${median(pick((r) => r.connectedAfterDecideMs))} ms; leading - broadcast after decide median ${median(pick((r) => r.broadcastAfterDecideMs))} ms`);
const quartile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))];
};
for (const key of ["followerSyncMs", "syncToNewLeaderMs", "learnerNewLeaderMs", "leaderServingStartupMs", "upToDateAfterServingMs"]) {
  const xs = pick((r) => r[key]);
  console.log(`${key}: median ${median(xs)} ms (p25 ${quartile(xs, 0.25)}, p75 ${quartile(xs, 0.75)}, min ${Math.min(...xs)}, max ${Math.max(...xs)}) over ${xs.length}`);
}
console.log(`load average at the kills: ${kills.map((k) => k.load.toFixed(1)).join(" ")}`);
if (process.env.KEEP_LOGS) console.log(`logs kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
