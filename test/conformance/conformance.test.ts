/**
 * The conformance suite in `npm test`: every op script runs through the project's TCP client
 * against `zksim serve` (one simulated server on the wall clock), and its transcript must equal
 * the golden one recorded from a real ZooKeeper 3.8.0 (`npm run conformance` re-records them),
 * step for step, except the differences explained in src/conformance/known-differences.ts.
 * The ensemble scripts (dynamic reconfiguration, failover) each run on a fresh served ensemble of
 * their shape, and the property scripts on a fresh server started with their system properties.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { startServe, type ServeSession } from "../../src/serve/serve-session.js";
import { CONFORMANCE_SCRIPTS, conformanceServeSettings } from "../../src/conformance/scripts.js";
import { memberPortNames, runScript, type ConformanceScript } from "../../src/conformance/runner.js";
import { ENSEMBLE_CONFORMANCE_SCRIPTS, runEnsembleScriptOnServe } from "../../src/conformance/ensemble-scripts.js";
import { PROPERTY_CONFORMANCE_SCRIPTS, runPropertyScriptOnServe } from "../../src/conformance/property-scripts.js";
import { clientPortIn } from "../../src/serve/client-gateway.js";
import { normalise, type Transcript } from "../../src/conformance/transcript.js";
import { compareSuite, readGolden } from "../../src/conformance/suite.js";
import { KNOWN_DIFFERENCES } from "../../src/conformance/known-differences.js";
import { JavaHashSet, javaStringHashCode } from "../../src/zk/server/java-hash-set.js";

const GOLDEN_DIR = fileURLToPath(new URL("../../conformance/golden/", import.meta.url));

/**
 * The scripts that spend their time waiting on the wall clock (a 4 s session's expiry, the
 * wire's answer timeouts, the 10–20 s sessionless-connection expiry) each run on a fresh server
 * of their own. Every script writes under its own root and the transcript names zxids and
 * sessions relative to its own, so a script's transcript does not depend on which scripts ran
 * on its server before it.
 */
const OWN_SERVER = ["sessions", "wire-protocol", "held-connect"];

let serve: ServeSession;
let port: number;

/**
 * Most of this file's time is the clock's, not the CPU's, so its scripts run in lanes started
 * together (docs/testing.md, "Where the time goes"): the suite's own server runs the rest of the
 * single-server scripts one after another, as the golden ones were recorded, while each
 * OWN_SERVER script and the chain of ensemble and property scripts (each on a fresh served
 * ensemble or server) run beside it. Each test waits for its script's transcript.
 */
const transcripts = new Map<string, Promise<Transcript>>();

/** Starts `run` now; its transcript is what the script's test later awaits (a failure is reported there). */
function lane(names: readonly string[], run: (name: string) => Promise<Transcript>): void {
  let previous: Promise<unknown> = Promise.resolve();
  for (const name of names) {
    const transcript = previous.then(() => run(name));
    transcript.catch(() => {}); // reported by the script's own test
    transcripts.set(name, transcript);
    previous = transcript.catch(() => {});
  }
}

async function onOwnServer(script: ConformanceScript): Promise<Transcript> {
  const own = await startServe({ settings: conformanceServeSettings(0), seed: 1, out: () => {} });
  try {
    return await runScript(script, { host: "127.0.0.1", port: [...own.clientPorts.values()][0]! });
  } finally {
    await own.close();
  }
}

function transcriptOf(name: string): Promise<Transcript> {
  const transcript = transcripts.get(name);
  if (transcript === undefined) throw new Error(`no lane runs the conformance script ${name}`);
  return transcript;
}

const byName = <S extends { name: string }>(scripts: readonly S[]) => (name: string) => scripts.find((s) => s.name === name)!;

beforeAll(async () => {
  serve = await startServe({ settings: conformanceServeSettings(0), seed: 1, out: () => {} }); // as the real server was started
  port = [...serve.clientPorts.values()][0]!;
  const single = byName(CONFORMANCE_SCRIPTS);
  lane(CONFORMANCE_SCRIPTS.map((s) => s.name).filter((name) => !OWN_SERVER.includes(name)), (name) => runScript(single(name), { host: "127.0.0.1", port }));
  for (const name of OWN_SERVER) lane([name], (n) => onOwnServer(single(n)));
  const ensemble = byName(ENSEMBLE_CONFORMANCE_SCRIPTS);
  const property = byName(PROPERTY_CONFORMANCE_SCRIPTS);
  lane(ENSEMBLE_CONFORMANCE_SCRIPTS.map((s) => s.name), (name) => runEnsembleScriptOnServe(ensemble(name)));
  lane(PROPERTY_CONFORMANCE_SCRIPTS.map((s) => s.name), (name) => runPropertyScriptOnServe(property(name)));
});
afterAll(async () => {
  await Promise.allSettled(transcripts.values());
  await serve?.close();
});

describe("conformance: zksim serve against the real ZooKeeper 3.8.0's golden transcripts", () => {
  it("the scripts run on a server of their own are single-server scripts", () => {
    for (const name of OWN_SERVER) expect(CONFORMANCE_SCRIPTS.map((s) => s.name)).toContain(name);
  });

  it.each(CONFORMANCE_SCRIPTS.map((s) => [s.name, s] as const))("%s", async (_name, script) => {
    const golden = readGolden(GOLDEN_DIR, script.name);
    expect(golden.recordedFrom).toMatch(/^Zookeeper version: 3\.8\.0/);
    expect(golden.steps.length).toBeGreaterThan(0);
    const report = compareSuite([golden], [await transcriptOf(script.name)]);
    expect(report.unexplained).toEqual([]);
    expect(report.matches + report.explained.length).toBe(report.total);
  }, 60_000);

  it("every known difference names a step that exists and still differs", async () => {
    for (const k of KNOWN_DIFFERENCES) {
      const golden = readGolden(GOLDEN_DIR, k.script);
      expect(golden.steps.some((s) => s.step === k.step)).toBe(true);
      expect(transcripts.has(k.script)).toBe(true);
      const report = compareSuite([golden], [await transcriptOf(k.script)]);
      expect(report.explained.map((d) => d.step)).toContain(k.step);
    }
  }, 60_000);
});

describe("conformance: zksim serve ensembles against a real 3.8.0 ensemble's golden transcripts (dynamic reconfiguration)", () => {
  it.each(ENSEMBLE_CONFORMANCE_SCRIPTS.map((s) => [s.name, s] as const))("%s", async (_name, script) => {
    const golden = readGolden(GOLDEN_DIR, script.name);
    expect(golden.recordedFrom).toMatch(/^Zookeeper version: 3\.8\.0/);
    expect(golden.steps.length).toBeGreaterThan(0);
    const report = compareSuite([golden], [await transcriptOf(script.name)]);
    expect(report.unexplained).toEqual([]);
    expect(report.matches + report.explained.length).toBe(report.total);
  }, 60_000);

  it("config text is compared with the members' ports named and its version relative; other text is left alone", () => {
    const members = [{ sid: 1, spec: "127.0.0.1:25001:25002:participant;127.0.0.1:25000" }];
    const n = { baseZxid: 0x100000002n, sessions: new Map(), root: "/r", ports: memberPortNames(members) };
    expect(normalise("server.1=127.0.0.1:25001:25002:participant;127.0.0.1:25000\nversion=100000005", n)).toBe("server.1=127.0.0.1:quorum1:election1:participant;127.0.0.1:client1\nversion=z+3");
    expect(normalise("server.1=127.0.0.1:25001:25002:participant;127.0.0.1:25009\nversion=0", n)).toBe("server.1=127.0.0.1:quorum1:election1:participant;127.0.0.1:25009\nversion=z-4294967298");
    expect(normalise("/r/a:25001", n)).toBe("$root/a:25001");
  });
});

describe("conformance: zksim serve started with other system properties against a real 3.8.0 started with them", () => {
  it.each(PROPERTY_CONFORMANCE_SCRIPTS.map((s) => [s.name, s] as const))("%s", async (_name, script) => {
    const golden = readGolden(GOLDEN_DIR, script.name);
    expect(golden.recordedFrom).toMatch(/^Zookeeper version: 3\.8\.0/);
    const report = compareSuite([golden], [await transcriptOf(script.name)]);
    expect(report.unexplained).toEqual([]);
    expect(report.matches).toBe(report.total);
  }, 60_000);
});

describe("a member's client port in config text (the re-bind after a reconfig)", () => {
  it("reads `;host:port` and `;port`, and nothing from a line without one or another server's", () => {
    const config = "server.1=127.0.0.1:2888:3888:participant;127.0.0.1:2181\nserver.2=127.0.0.1:2889:3889:participant;2190\nserver.3=127.0.0.1:2890:3890:participant\nversion=100000003";
    expect([1, 2, 3, 4].map((sid) => clientPortIn(config, sid))).toEqual([2181, 2190, undefined, undefined]);
  });
});

describe("JavaHashSet: the iteration order of Java's HashSet<String>", () => {
  it("String.hashCode as Java computes it", () => {
    expect(javaStringHashCode("")).toBe(0);
    expect(javaStringHashCode("a")).toBe(97);
    expect([javaStringHashCode("Aa"), javaStringHashCode("BB")]).toEqual([2112, 2112]);
    expect(javaStringHashCode("polygenelubricants")).toBe(-2147483648);
  });

  it("gives the children order a real 3.8.0 server gave (golden children-order), through growth and a removal", () => {
    const golden = readGolden(GOLDEN_DIR, "children-order");
    const answer = (step: string) => {
      const s = golden.steps.find((x) => x.step === step)!;
      return "ok" in s ? s.ok : undefined;
    };
    const set = new JavaHashSet(8);
    for (const name of ["zeta", "alpha", "m1", "b", "lock-0000000010", "lock-0000000002", "x"]) set.add(name);
    expect([...set]).toEqual(answer("getChildren (7)"));
    for (let i = 0; i < 12; i++) set.add(`n${i}`);
    expect([...set]).toEqual(answer("getChildren (19)"));
    set.delete("alpha");
    expect([...set]).toEqual((answer("getChildren2 (18)") as { children: string[] }).children);
    expect([...set]).not.toEqual([...set].sort());
  });
});
