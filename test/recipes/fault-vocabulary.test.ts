/**
 * The recipe plans draw the whole fault vocabulary that makes sense for a recipe (server and
 * client crashes — right after a drawn message too —, pauses past the session timeout, clock
 * skew, disk faults, partitions, clogged and lossy links), declare what they leave out, keep a
 * story that cannot survive its client's crash free of client crashes, and a run with client
 * crashes is the same run twice.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { faultPlanArbitrary, faultsOf, generatedRecipeScenario, RECIPE_FAULTS_LEFT_OUT, runRecipeScenario, type FaultPlan } from "../../src/scenario/scripts/recipe-run.js";
import { FAULT_KINDS, parseFaultSchedule } from "../../src/sim/faults.js";
import { RECIPE_TIMINGS } from "../../src/scenario/scripts/recipe-support.js";

const SERVERS = ["s1", "s2", "s3"];
const CLIENTS = ["c1", "c2", "c3"];
const PLAN_KINDS: FaultPlan["kind"][] = [
  "crash-server", "isolate-server", "partition-client", "pause-client", "create-loss", "crash-client",
  "crash-server-after", "pause-server", "clock-skew", "slow-fsync", "disk-full", "clog", "loss",
];

const plans = (clientCrashes: boolean, n = 400) => fc.sample(faultPlanArbitrary(SERVERS, CLIENTS, 3, clientCrashes), { seed: 33, numRuns: n }).flat();

describe("recipes: the generated plans draw the whole fault vocabulary", () => {
  it("every plan kind is drawn, a client crash after a request too; each plan is a valid schedule inside the fault window", () => {
    const drawn = plans(true);
    expect(new Set(drawn.map((p) => p.kind))).toEqual(new Set(PLAN_KINDS));
    expect(drawn.some((p) => p.kind === "crash-client" && p.afterRequest !== undefined)).toBe(true);
    expect(drawn.some((p) => p.kind === "crash-client" && p.afterRequest === undefined)).toBe(true);
    const faults = faultsOf(drawn, SERVERS, CLIENTS);
    expect(() => parseFaultSchedule(JSON.parse(JSON.stringify(faults)), [...SERVERS, ...CLIENTS], "faults", ["leader"])).not.toThrow();
    for (const f of faults) expect(f.atMs + (f.forMs ?? 0)).toBeLessThanOrEqual(RECIPE_TIMINGS.short.faultWindowEndMs);
  });

  it("every fault kind of the kernel is drawn or declared left out, with a reason", () => {
    const drawn = new Set(faultsOf(plans(true), SERVERS, CLIENTS).map((f) => f.kind));
    const leftOut = new Set(RECIPE_FAULTS_LEFT_OUT.map((l) => l.fault));
    for (const l of RECIPE_FAULTS_LEFT_OUT) expect(l.why.length).toBeGreaterThan(20);
    const undos = new Set(["start", "resume", "heal", "unclog", "clog-node"]);
    for (const kind of FAULT_KINDS) if (!undos.has(kind)) expect(drawn.has(kind) || leftOut.has(kind), kind).toBe(true);
  });

  it("a story that cannot survive its client's crash gets none; a single server gets no crash after a ZAB message", () => {
    expect(plans(false).some((p) => p.kind === "crash-client")).toBe(false);
    const single = fc.sample(faultPlanArbitrary(["s1"], CLIENTS), { seed: 33, numRuns: 300 }).flat();
    expect(single.some((p) => p.kind === "crash-server-after")).toBe(false);
    for (const story of ["recipe-lock-expiry", "recipe-latch-expiry"]) {
      const seeds = Array.from({ length: 60 }, (_, i) => i + 1);
      expect(seeds.some((seed) => generatedRecipeScenario(loadScenario(story), seed).faults.some((f) => f.kind === "crash" && f.node.startsWith("c")))).toBe(false);
    }
  });

  it("a timed story whose expectations need its own faults alone refuses --generate, saying why", () => {
    for (const story of ["recipe-lock-pause", "recipe-lock-pause-unfenced"]) expect(() => generatedRecipeScenario(loadScenario(story), 1)).toThrow(/takes no generated faults: its story times one pause/);
  });

  it("a generated expiry story runs as long as its own fault rounds need (recipe-latch-expiry seed 10307: cut before its check phase at 58.5 s of a 40 s run)", async () => {
    const scenario = generatedRecipeScenario(loadScenario("recipe-latch-expiry"), 10307);
    expect(scenario.durationMs).toBeGreaterThan(RECIPE_TIMINGS.short.durationMs);
    const r = await runRecipeScenario(scenario, { seed: 10307 });
    expect(r.violations).toEqual([]);
    expect(r.narrative.some((line) => line.startsWith("check phase"))).toBe(true);
  }, 120_000);

  it("a generated run with a client crash is the same run twice (same seed, same trace)", async () => {
    const scenario = loadScenario("recipe-double-barrier");
    const seed = [36, 39].find((s) => generatedRecipeScenario(scenario, s).faults.some((f) => f.kind === "crash" && f.node.startsWith("c")))!;
    expect(seed).toBeDefined();
    const ran = generatedRecipeScenario(scenario, seed);
    const [a, b] = [await runRecipeScenario(ran, { seed }), await runRecipeScenario(ran, { seed })];
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.violations).toEqual([]);
  }, 120_000);
});
