/**
 * The "served" workload's exactness, without sockets or wall clock: inputs injected through
 * `ClientLinks` between simulator steps, as serve injects them, replay to the same trace hash —
 * including inputs that enter at an instant where events scheduled after the previous input ran
 * first live (the replay driver must queue itself behind them: its `events` positions).
 */
import { describe, expect, it } from "vitest";
import { ClientLinks } from "../../src/serve/client-links.js";
import { buildServeEnsemble } from "../../src/serve/serve-ensemble.js";
import { SERVE_REGISTRY, servedScenario, recordInput, settingsFromRecord, settingsToRecord, type RecordedInput } from "../../src/serve/served-workload.js";
import { parseZooCfg, settingsFromFlags } from "../../src/serve/zoo-cfg.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { scenarioToDocument } from "../../src/scenario/replay-file.js";

describe("served workload", () => {
  it("served workload: inputs at instants where later-scheduled events ran first live replay to the same trace hash", async () => {
    const settings = { ...settingsFromFlags(3, 0, 2181), tickTimeMs: 200 };
    const seed = 3;
    const { sim, ...ensemble } = buildServeEnsemble(settings, seed);
    const recorded: RecordedInput[] = [];
    const links = new ClientLinks({ sim, ...ensemble }, (input, atUs, events) => recorded.push(recordInput(input, atUs, events)));
    const runInstants = (n: number) => {
      for (let i = 0; i < n; i++) sim.runSync({ untilUs: sim.nextEventTimeUs() });
    };
    sim.runSync({ untilUs: 3_000_000 });
    for (let conn = 1; conn <= 6; conn++) {
      links.inject({ kind: "connect", conn, server: `s${1 + (conn % 3)}` });
      runInstants(conn); // the next input enters exactly at the instant of an event run live
      links.inject({ kind: "close", conn });
      runInstants(2);
    }
    sim.runSync({ untilUs: sim.nowUs + 500_000 });
    const live = sim.trace.hash();
    expect(recorded).toHaveLength(12);
    const replay = await runScenario(servedScenario(settings, recorded, [], sim.nowUs, seed), { seed, registry: SERVE_REGISTRY });
    expect(replay.traceHash).toBe(live);
    expect(replay.counts["conn.close"]).toBe(sim.trace.kindCounts()["conn.close"]);
  });

  it("served workload: a recording keeps reconfigEnabled, standaloneEnabled, the joiners and the members' addresses (the config text real clients read)", () => {
    const cfg = parseZooCfg("reconfigEnabled=true\nstandaloneEnabled=false\nserver.1=10.0.0.1:2888:3888;2181\nserver.2=10.0.0.2:2888:3888\n");
    const settings = { ...cfg, members: [...cfg.members, { sid: 3, node: "s3", observer: false, clientPort: 2183, joiner: true }] };
    const back = settingsFromRecord(JSON.parse(JSON.stringify(settingsToRecord(settings))));
    expect(back.members).toEqual(settings.members);
    expect(back).toMatchObject({ reconfigEnabled: true, standaloneEnabled: false });
    expect(() => settingsFromRecord({ ...settingsToRecord(settings), reconfigEnabled: "yes" })).toThrow(/workload\.settings\.reconfigEnabled must be true or false/);
    expect(() => settingsFromRecord({ ...settingsToRecord(settings), members: [{ sid: 1, node: "s1", observer: false, clientPort: 1, quorumAddress: { host: "", peerPort: 1, electionPort: 2 } }] })).toThrow(/members\[0\]\.quorumAddress\.host/);
  });

  it("served workload: inputs at impossible positions (out of order, negative, beyond the run's end) are refused in one line naming the input", () => {
    const settings = settingsFromFlags(3, 0, 2181);
    const at = (atUs: number, events: number, conn: number, kind: "connect" | "close"): RecordedInput => (kind === "connect" ? { atUs, events, conn, kind, server: "s1" } : { atUs, events, conn, kind });
    const inputs = [at(1000, 10, 1, "connect"), at(2000, 20, 1, "close"), at(3000, 30, 2, "connect")];
    const doc = (xs: RecordedInput[], endUs = 5000) => scenarioToDocument(servedScenario(settings, xs, [], endUs, 1));
    const parse = (xs: RecordedInput[], endUs?: number) => () => parseScenario(doc(xs, endUs), "served.json", SERVE_REGISTRY);
    expect(parse(inputs)).not.toThrow();
    expect(parse([inputs[0]!, { ...inputs[1]!, atUs: 500 }, inputs[2]!])).toThrow(/workload\.inputs\[1\]\.atUs must be a whole number ≥ 1000, got 500/);
    expect(parse([inputs[0]!, { ...inputs[1]!, events: 5 }, inputs[2]!])).toThrow(/workload\.inputs\[1\]\.events must be a whole number ≥ 10, got 5/);
    expect(parse([{ ...inputs[0]!, atUs: -1 }, ...inputs.slice(1)])).toThrow(/inputs\[0\]\.atUs/);
    expect(parse([{ ...inputs[0]!, events: -3 }, ...inputs.slice(1)])).toThrow(/inputs\[0\]\.events/);
    expect(parse(inputs, 2500)).toThrow(/served\.json: "workload": an input recorded at 3000 µs is beyond the end of the run \("durationMs" 2\.5\)/);
  });

  it("served workload: a recording keeps the servers' authentication (super digest, providers, SASL users), so a replay authenticates alike", () => {
    const auth = {
      superDigest: "super:D/InIHSb7yEEbrWz8b9l71RjZJU=",
      authProviders: new Set(["ip", "digest", "sasl"]),
      saslUsers: new Map([["bob", "bobsecret"], ["alice", "alicesecret"]]),
      saslSuperUsers: ["admin"],
    };
    const settings = { ...settingsFromFlags(3, 0, 2181), auth, systemProperties: new Map([["zookeeper.superUser", "admin"]]) };
    const back = settingsFromRecord(JSON.parse(JSON.stringify(settingsToRecord(settings))));
    expect(back.auth).toEqual(auth);
    expect(back.members).toEqual(settings.members);
    expect(() => settingsFromRecord({ ...settingsToRecord(settings), auth: { authProviders: ["ip"], saslUsers: [["bob"]] } })).toThrow(/auth\.saslUsers must be a list of \[user, password\]/);
  });

  it("served workload: a recording keeps the failover timings; one made before serve ran 3.8's replays with the classic ones", () => {
    const settings = { ...settingsFromFlags(3, 0, 2181), quorumTiming: { leaderConnectDelayDuringRetryMs: 50 } };
    const back = settingsFromRecord(JSON.parse(JSON.stringify(settingsToRecord(settings))));
    expect([back.quorumTimingProfile, back.quorumTiming]).toEqual(["zookeeper-3.8", { leaderConnectDelayDuringRetryMs: 50 }]);
    const { quorumTimingProfile: _, ...older } = settingsToRecord(settingsFromFlags(3, 0, 2181));
    expect(settingsFromRecord(older).quorumTimingProfile).toBe("zksim-classic");
    expect(() => settingsFromRecord({ ...older, quorumTiming: { leaderConnectDelayMs: 5 } })).toThrow(/quorumTiming/);
    expect(() => settingsFromRecord({ ...older, quorumTimingProfile: "fast" })).toThrow(/quorumTimingProfile must be one of/);
  });
});
