/** zoo.cfg for serve: the members, ports and timing a 3.8 config describes; bad values exit 2 with the line named. */
import { describe, expect, it } from "vitest";
import { parseZooCfg, settingsFromFlags, withJoiners, type JoinerZooCfg, type ServeSettings } from "../../src/serve/zoo-cfg.js";
import { UserInputError } from "../../src/sim/errors.js";
import { quorumTimingFrom } from "../../src/serve/quorum-timing-properties.js";
import { buildServeEnsemble } from "../../src/serve/serve-ensemble.js";
import type { QuorumPeer } from "../../src/zk/server/quorum/quorum-peer.js";

const CFG = `# a three-server ensemble with one observer
tickTime=500
initLimit=7
syncLimit=3
dataDir=/var/lib/zookeeper
clientPort=3181
maxClientCnxns=5
minSessionTimeout=1000
maxSessionTimeout=9000
4lw.commands.whitelist=ruok, stat
server.1=localhost:2888:3888
server.2=localhost:2889:3889;4000
server.3=localhost:2890:3890:participant
server.4=localhost:2891:3891:observer;127.0.0.1:4004
jute.maxbuffer=100
`;

describe("serve: zoo.cfg", () => {
  it("serve: zoo.cfg: members, client ports, timing, limits and whitelist", () => {
    const s = parseZooCfg(CFG);
    expect(s.members).toEqual([
      { sid: 1, node: "s1", observer: false, clientPort: 3181, quorumAddress: { host: "localhost", peerPort: 2888, electionPort: 3888 } },
      { sid: 2, node: "s2", observer: false, clientPort: 4000, quorumAddress: { host: "localhost", peerPort: 2889, electionPort: 3889, client: "0.0.0.0:4000" } },
      { sid: 3, node: "s3", observer: false, clientPort: 3183, quorumAddress: { host: "localhost", peerPort: 2890, electionPort: 3890 } },
      { sid: 4, node: "s4", observer: true, clientPort: 4004, quorumAddress: { host: "localhost", peerPort: 2891, electionPort: 3891, client: "127.0.0.1:4004" } },
    ]);
    expect(s).toMatchObject({ tickTimeMs: 500, initLimitTicks: 7, syncLimitTicks: 3, maxClientCnxns: 5, minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 9000 });
    expect([...s.fourLetterWords].sort()).toEqual(["ruok", "srvr", "stat"]);
    expect(s.warnings).toEqual([`zoo.cfg:15: unknown key "jute.maxbuffer" ignored`]);
  });

  it("serve: zoo.cfg: no server lines is a standalone server on clientPort; * enables every word", () => {
    const s = parseZooCfg("clientPort=2500\n4lw.commands.whitelist=*\n");
    expect(s.members).toEqual([{ sid: 1, node: "s1", observer: false, clientPort: 2500 }]);
    expect(s.fourLetterWords.has("mntr") && s.fourLetterWords.has("cons")).toBe(true);
  });

  it("serve: zoo.cfg: bad values are one clear error naming the line", () => {
    const bad: [string, RegExp][] = [
      ["tickTime=fast\n", /zoo\.cfg:1: tickTime: expected a whole number, got "fast"/],
      ["clientPort=70000\n", /clientPort: expected a number in \[1, 65535\]/],
      ["server.1=localhost:2888\n", /zoo\.cfg:1: expected host:peerPort:electionPort/],
      ["server.1=a:1:2:witness\n", /server type must be "participant" or "observer"/],
      ["server.1=a:1:2\nserver.1=a:3:4\n", /zoo\.cfg:2: server\.1 is defined twice/],
      ["server.1=a:1:2;5000\nserver.2=a:3:4;5000\n", /two servers would listen on client port 5000/],
      ["minSessionTimeout=9000\nmaxSessionTimeout=1000\n", /minSessionTimeout \(9000 ms\) is above maxSessionTimeout/],
      ["just words\n", /zoo\.cfg:1: expected key=value/],
    ];
    for (const [text, message] of bad) expect(() => parseZooCfg(text), text).toThrow(message);
    expect(() => parseZooCfg("tickTime=0\n")).toThrow(UserInputError);
  });

  it("serve: zoo.cfg: failover timings become 3.8's system properties; connectToLearnerMasterLimit is zoo.cfg's own", () => {
    const s = parseZooCfg("tickTime=500\nconnectToLearnerMasterLimit=4\nleaderConnectDelayDuringRetryMs=50\nfastleader.minNotificationInterval=300\n");
    expect(s.quorumTiming).toEqual({ connectToLearnerMasterLimitTicks: 4 });
    expect(s.warnings).toEqual([]);
    expect(quorumTimingFrom(s.systemProperties ?? new Map())).toEqual({ leaderConnectDelayDuringRetryMs: 50, minNotificationIntervalMs: 300 });
    expect(quorumTimingFrom(new Map([["zookeeper.observer.election.DelayMs", "0"], ["zookeeper.cnxTimeout", "900"], ["zookeeper.fastleader.maxNotificationInterval", "4000"]]))).toEqual({ observerElectionDelayMs: 0, cnxTimeoutMs: 900, maxNotificationIntervalMs: 4000 });
    expect(() => quorumTimingFrom(new Map([["zookeeper.leaderConnectDelayDuringRetryMs", "-5"]]))).toThrow(/zookeeper\.leaderConnectDelayDuringRetryMs: expected a whole number of ms/);
    expect(() => parseZooCfg("connectToLearnerMasterLimit=x\n")).toThrow(/zoo\.cfg:1: connectToLearnerMasterLimit: expected a whole number of ticks/);
  });

  it("serve: zoo.cfg: flags give voters then observers on consecutive ports", () => {
    expect(settingsFromFlags(3, 1, 2181).members.map((m) => [m.node, m.clientPort, m.observer])).toEqual([["s1", 2181, false], ["s2", 2182, false], ["s3", 2183, false], ["s4", 2184, true]]);
    expect(() => settingsFromFlags(1, 1, 2181)).toThrow(/observers need an ensemble/);
    expect(() => settingsFromFlags(3, 0, 65534)).toThrow(/--base-port/);
  });

  it("serve: zoo.cfg: reconfigEnabled and standaloneEnabled are read (3.8's defaults: off, on); --joiners adds voters outside the config, which need reconfig", () => {
    expect(parseZooCfg("reconfigEnabled=true\nstandaloneEnabled=false\n")).toMatchObject({ reconfigEnabled: true, standaloneEnabled: false, warnings: [] });
    expect(parseZooCfg("clientPort=2181\n")).not.toHaveProperty("reconfigEnabled");
    expect(() => parseZooCfg("reconfigEnabled=yes\n")).toThrow(/zoo\.cfg:1: reconfigEnabled: expected true or false, got "yes"/);
    const flags = settingsFromFlags(3, 1, 2181, 2);
    expect(flags.members.map((m) => [m.node, m.clientPort, m.observer, m.joiner === true])).toEqual([["s1", 2181, false, false], ["s2", 2182, false, false], ["s3", 2183, false, false], ["s4", 2184, true, false], ["s5", 2185, false, true], ["s6", 2186, false, true]]);
    expect(() => settingsFromFlags(1, 0, 2181, 1)).toThrow(/--joiners: joiners need an ensemble/);
    expect(() => buildServeEnsemble(settingsFromFlags(3, 0, 2181, 1), 1)).toThrow(/joiners are added by reconfig, which needs reconfigEnabled/);
  });

  it("serve: the config text names each member by its real addresses (zoo.cfg's, else 127.0.0.1 and 2888/3888 + N − 1) and zoo.cfg's client address; a joiner starts with the config plus itself", () => {
    const { sim } = buildServeEnsemble({ ...settingsFromFlags(3, 0, 2181, 1), reconfigEnabled: true }, 1);
    const configOf = (node: string) => (sim.node(node).process as QuorumPeer).qv.toString();
    const initial = ["server.1=127.0.0.1:2888:3888:participant", "server.2=127.0.0.1:2889:3889:participant", "server.3=127.0.0.1:2890:3890:participant"];
    expect(configOf("s1")).toBe([...initial, "version=0"].join("\n"));
    expect(configOf("s4")).toBe([...initial, "server.4=127.0.0.1:2891:3891:participant", "version=0"].join("\n"));
    sim.runSync({ untilUs: 3_000_000 });
    // ZOOKEEPER-1783: the first leader gives the initial config its NEWLEADER zxid as version,
    // and that established config wins over the joiner's partial one when it syncs.
    for (const node of ["s1", "s2", "s3", "s4"]) expect(configOf(node)).toBe([...initial, "version=100000000"].join("\n"));
    const cfg = parseZooCfg("reconfigEnabled=true\nserver.1=10.0.0.1:2888:3888;2181\nserver.2=10.0.0.2:2888:3888;2182\nserver.3=10.0.0.3:2888:3888:observer;10.0.0.3:2183\n");
    const peer = buildServeEnsemble(cfg, 1).sim.node("s3").process as QuorumPeer;
    expect(peer.qv.toString()).toBe("server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181\nserver.2=10.0.0.2:2888:3888:participant;0.0.0.0:2182\nserver.3=10.0.0.3:2888:3888:observer;10.0.0.3:2183\nversion=0");
  });

  it("serve: zoo.cfg: dynamicConfigFile is followed as 3.8 follows it (its server lines, not the zoo.cfg's); version= in it is refused", () => {
    const files: Record<string, string> = { "/d/zoo.cfg.dynamic": "server.1=127.0.0.1:2888:3888;2181\nserver.2=127.0.0.1:2889:3889;2182\nserver.3=127.0.0.1:2890:3890:observer;2183\n" };
    const read = (path: string) => files[path] ?? "";
    const cfg = parseZooCfg("reconfigEnabled=true\ndynamicConfigFile=/d/zoo.cfg.dynamic\nserver.9=127.0.0.1:1:2\n", "zoo.cfg", read);
    expect(cfg.members.map((m) => [m.node, m.clientPort, m.observer])).toEqual([["s1", 2181, false], ["s2", 2182, false], ["s3", 2183, true]]);
    // Without a reader (a config made in the program), the key is only accepted.
    expect(parseZooCfg("dynamicConfigFile=/d/zoo.cfg.dynamic\n").members.map((m) => m.node)).toEqual(["s1"]);
    expect(() => parseZooCfg("dynamicConfigFile=/d/x\n", "zoo.cfg", () => "server.1=127.0.0.1:1:2\nversion=100000000\n")).toThrow(/^\/d\/x:2: a dynamic config file may not carry version=/);
    expect(() => parseZooCfg("dynamicConfigFile=/d/x\n", "zoo.cfg", () => "server.1=127.0.0.1:1\n")).toThrow(/^\/d\/x:1: expected host:peerPort:electionPort/);
  });

  it("serve: --joiner FILE: the joiner is its own zoo.cfg's server.N outside the ensemble's config (participant or observer; its dataDir's myid when it lists several), its client port its line's or its clientPort", () => {
    const ensemble: ServeSettings = { ...parseZooCfg("reconfigEnabled=true\nserver.1=127.0.0.1:2888:3888;2181\nserver.2=127.0.0.1:2889:3889;2182\nserver.3=127.0.0.1:2890:3890;2183\n"), reconfigEnabled: true };
    const lines = "server.1=127.0.0.1:2888:3888;2181\nserver.2=127.0.0.1:2889:3889;2182\nserver.3=127.0.0.1:2890:3890;2183\n";
    const joiner = (file: string, text: string, myid?: string): JoinerZooCfg => ({ file, text, readMyid: (dir) => (dir === "/data" ? myid : undefined) });
    const both = withJoiners(ensemble, [
      joiner("j4.cfg", `${lines}server.4=127.0.0.1:2891:3891:participant;2184\n`),
      // Observers listed together (the reconfig guide's first way); myid picks this one; its line has no ;port, so its clientPort is its port.
      joiner("j5.cfg", `clientPort=2190\ndataDir=/data\n${lines}server.5=127.0.0.1:2892:3892:observer\nserver.6=127.0.0.1:2893:3893:observer\n`, "5\n"),
    ]);
    expect(both.members.map((m) => [m.node, m.clientPort, m.observer, m.joiner === true])).toEqual([["s1", 2181, false, false], ["s2", 2182, false, false], ["s3", 2183, false, false], ["s4", 2184, false, true], ["s5", 2190, true, true]]);
    const { sim } = buildServeEnsemble(both, 1);
    expect((sim.node("s5").process as QuorumPeer).qv.toString()).toBe(`${lines.replaceAll("3888;", "3888:participant;0.0.0.0:").replaceAll("3889;", "3889:participant;0.0.0.0:").replaceAll("3890;", "3890:participant;0.0.0.0:")}server.5=127.0.0.1:2892:3892:observer\nversion=0`);
    const bad = (j: JoinerZooCfg, base = ensemble) => () => withJoiners(base, [j]);
    expect(bad(joiner("j.cfg", lines))).toThrow(/^--joiner j\.cfg: every server\.N line is in the ensemble's config; a joiner's zoo\.cfg adds its own/);
    expect(bad(joiner("j.cfg", "clientPort=2184\n"))).toThrow(/^--joiner j\.cfg: no server\.N lines/);
    expect(bad(joiner("j.cfg", `${lines}server.5=127.0.0.1:1:2:observer;2185\nserver.6=127.0.0.1:3:4:observer;2186\n`))).toThrow(/^--joiner j\.cfg: lists servers 5, 6 outside the ensemble's config, and no dataDir\/myid says which one it is$/);
    expect(bad(joiner("j.cfg", `dataDir=/data\n${lines}server.5=127.0.0.1:1:2;2185\n`, "7"))).toThrow(/^--joiner j\.cfg: its dataDir's myid is "7", which is not one of its server\.N lines outside the ensemble's config \(5\)$/);
    expect(bad(joiner("j.cfg", `${lines}server.4=127.0.0.1:1:2;2183\n`))).toThrow(/^j\.cfg: two servers would listen on client port 2183/);
    expect(bad(joiner("j.cfg", `server.1=127.0.0.1:2888:3888;2181\nserver.4=127.0.0.1:1:2;2183\n`))).toThrow(/^--joiner j\.cfg: server\.4's client port 2183 is s3's too/);
    expect(bad(joiner("j.cfg", `${lines}server.4=127.0.0.1:1:2\n`))).toThrow(/client port 2181 is s1's too/);
    expect(bad(joiner("j.cfg", "server.4=127.0.0.1:1:2;soon\n"))).toThrow(/^j\.cfg:1: client port: expected a whole number, got "soon"$/);
    expect(() => withJoiners(ensemble, [joiner("a.cfg", `${lines}server.4=127.0.0.1:1:2;2184\n`), joiner("b.cfg", `${lines}server.4=127.0.0.1:1:2;2185\n`)])).toThrow(/^--joiner b\.cfg: server\.4 is declared by another --joiner file too$/);
    expect(bad(joiner("j.cfg", "server.2=127.0.0.1:1:2;2185\n"), settingsFromFlags(1, 0, 2181))).toThrow(/^--joiner j\.cfg: joiners need an ensemble/);
    expect(() => buildServeEnsemble({ ...withJoiners(ensemble, [joiner("j.cfg", `${lines}server.4=127.0.0.1:1:2;2184\n`)]), reconfigEnabled: false }, 1)).toThrow(/joiners are added by reconfig, which needs reconfigEnabled/);
    expect(withJoiners(ensemble, [])).toBe(ensemble);
  });
});
