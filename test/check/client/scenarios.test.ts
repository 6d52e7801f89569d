import { describe, expect, it } from "vitest";
import { CLIENT_CHECKERS, ClientLinearizabilityChecker, clientCheckers } from "../../../src/check/client/index.js";
import { runCheckers, type Violation } from "../../../src/check/checker.js";
import { loadScenario } from "../../../src/cli/scenario-files.js";
import { runScenarioWithSim } from "../../../src/scenario/run.js";
import type { Canary } from "../../../src/scenario/types.js";
import type { TraceEvent } from "../../../src/sim/trace.js";

/** Runs a real scenario with the client checkers listening; returns what they found. */
async function clientViolations(name: string, seed: number, canary?: Canary): Promise<Violation[]> {
  const checkers = clientCheckers();
  const events: TraceEvent[] = [];
  await runScenarioWithSim(loadScenario(name), { seed, onTraceEvent: (e) => events.push(e), ...(canary !== undefined ? { canary } : {}) });
  return runCheckers(checkers, events);
}

const SCENARIOS = [
  "standalone-basics",
  "session-expiry",
  "watch-semantics",
  "reconnect-watches",
  "watch-removal",
  "acl-enforcement",
  "server-restart-recovery",
  "ensemble-session-expiry",
  "ensemble-reconnect-watches",
  "zab-leader-crash-before-commit",
  "zab-isolated-leader",
  "ensemble-session-moved",
  "zab-follower-cross-epoch-snap",
  "client-pipeline",
  "client-connect-timeout",
];

describe("check: client: real scenarios raise nothing", () => {
  for (const name of SCENARIOS) {
    for (const seed of [1, 2, 3]) {
      it(`${name} (seed ${seed})`, async () => {
        expect(await clientViolations(name, seed)).toEqual([]);
      }, 60_000);
    }
  }
});

describe("check: client: histories from a real run", () => {
  it("recipe-lock: c1's lock create whose reply is cut is unknown to c1, and settled as applied by the leader's apply of it", async () => {
    const events: TraceEvent[] = [];
    await runScenarioWithSim(loadScenario("recipe-lock"), { seed: 1, onTraceEvent: (e) => events.push(e) });
    const c = new ClientLinearizabilityChecker();
    runCheckers([c], events);
    const lost = c.history().filter((o) => o.client === "c1" && o.op === "create" && o.err === "CONNECTIONLOSS");
    expect(lost.length).toBeGreaterThan(0);
    expect(lost[0]!.truth).toMatchObject({ applied: true });
    expect(lost[0]!.outcome).toBe("ok");
    expect(lost[0]!.zxid).toBeDefined();
    expect(lost[0]!.server).toMatch(/^s[123]$/);
  });
});

describe("check: client: SESSIONMOVED in a real run", () => {
  it("ensemble-session-moved: both ops lost on an old connection failed SESSIONMOVED at the leader, so they changed nothing and leave the history; the retries applied", async () => {
    const events: TraceEvent[] = [];
    await runScenarioWithSim(loadScenario("ensemble-session-moved"), { seed: 1, onTraceEvent: (e) => events.push(e) });
    const c = new ClientLinearizabilityChecker();
    expect(runCheckers([c], events)).toEqual([]);
    const writes = c.history().filter((o) => o.client === "c1" && o.path === "/moved/race" && (o.op === "create" || o.op === "setData"));
    expect(writes.map((o) => [o.op, o.outcome, o.err, o.truth?.err])).toEqual([
      ["create", "ok", undefined, undefined],
      ["setData", "ok", undefined, undefined],
    ]);
  });
});

describe("check: client: checkers", () => {
  it("CLIENT_CHECKERS names every checker and makes fresh instances", () => {
    expect([...CLIENT_CHECKERS.keys()]).toEqual([
      "client.linearizability", "client.session-order", "client.sessions", "client.watches",
      "client.server-watches", "client.watch-triggers", "client.watch-removal", "client.timeliness", "client.session-failover", "client.liveness",
      "client.history-fields",
    ]);
    const a = clientCheckers();
    const b = clientCheckers();
    expect(a.map((c) => c.name)).toEqual([...CLIENT_CHECKERS.keys()]);
    a.forEach((c, i) => expect(c).not.toBe(b[i]));
  });

  it("canary watch-not-fired: watch-semantics reads the new data without the event, and client.watches says so", async () => {
    const v = await clientViolations("watch-semantics", 1, "watch-not-fired");
    expect(v.length).toBeGreaterThan(0);
    expect(new Set(v.map((x) => x.checker))).toEqual(new Set(["client.watches"]));
    expect(v[0]!.message).toMatch(/shows mzxid .* but that watch has not fired/);
  }, 60_000);
});
