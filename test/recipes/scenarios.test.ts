import { describe, expect, it } from "vitest";
import { loose, type LooseEvent } from "../helpers/loose-events.js";
import { loadScenario, scenarioNames } from "../../src/cli/scenario-files.js";
import { runRecipeScenario } from "../../src/scenario/scripts/recipe-run.js";
import { offer, reads } from "../../src/check/checker.js";
import type { TraceKind } from "../../src/sim/trace.js";
import { LockHerdChecker } from "../../src/check/recipes/lock.js";
import { makeChecker } from "../../src/scenario/registry.js";

/** A scenario per recipe, and the combined stories (recipe-services, recipe-election's selector + latch check). */
const PASSING = [
  "recipe-lock",
  "recipe-lock-pause",
  "recipe-election",
  "recipe-leader-latch",
  "recipe-counter",
  "recipe-queue",
  "recipe-queue-priority",
  "recipe-barrier",
  "recipe-double-barrier",
  "recipe-services",
  "recipe-config",
  "recipe-group-membership",
  "recipe-naming",
  "recipe-2pc",
  "recipe-rw-lock",
  "recipe-revocable-lock",
  "recipe-lock-bench",
  "recipe-latch-expiry",
  "recipe-lock-expiry",
  "recipe-queue-pause",
  "recipe-acl",
];

/** Naive variants and the checker that must catch each. */
const CAUGHT: Record<string, string> = {
  "recipe-lock-naive-herd": "recipe.lock-herd",
  "recipe-lock-naive-retry": "recipe.lock-mutex",
  "recipe-lock-pause-unfenced": "recipe.lock-fencing",
  "recipe-counter-naive": "recipe.counter",
  "recipe-revocable-lock-naive": "recipe.revocation",
  "recipe-barrier-naive-poll": "recipe.barrier-polling",
  "recipe-queue-priority-naive": "recipe.priority-queue",
  "recipe-double-barrier-naive": "recipe.barrier",
  "recipe-naming-naive": "recipe.naming",
};

// Recipe scenarios run with a server canary, and the recipe checker that must notice: src/scenario/canaries.ts (test/scenario/canaries.test.ts).

/** The recipe annotations (`recipe.*` trace kinds) a run writes, gathered as it runs. */
function recipeKindsWritten(): { written: Set<TraceKind>; onTraceEvent: (e: { kind: TraceKind }) => void } {
  const written = new Set<TraceKind>();
  return { written, onTraceEvent: (e) => void (e.kind.startsWith("recipe.") && written.add(e.kind)) };
}

/** The scenario's default recipe checkers read every recipe annotation its run wrote, and each reads some of them. */
function expectCheckersReadAnnotations(name: string, written: ReadonlySet<TraceKind>): void {
  const mine = loadScenario(name)
    .checkers.filter((c) => c.startsWith("recipe."))
    .map((c) => makeChecker(c));
  for (const kind of written) expect(mine.filter((c) => reads(c, kind)).map((c) => c.name), `${name}: ${kind}`).not.toEqual([]);
  for (const c of mine) expect([...written].some((kind) => reads(c, kind)), `${name}: ${c.name} reads nothing of this run`).toBe(true);
}

// Each scenario's seed-1 run also gives the recipe annotations its checkers must read (a run of its
// own per scenario cost this file 7 s).
describe("recipes: scenarios (N=3)", () => {
  for (const name of PASSING) {
    it(`${name}: passes every checker for seeds 1-3, deterministically; its recipe checkers read every recipe annotation it writes`, async () => {
      const scenario = loadScenario(name);
      const kinds = recipeKindsWritten();
      for (const seed of [1, 2, 3]) {
        const r = await runRecipeScenario(scenario, { seed, ...(seed === 1 ? { onTraceEvent: kinds.onTraceEvent } : {}) });
        expect(r.violations, `${name} seed ${seed}`).toEqual([]);
        if (seed === 1) expect((await runRecipeScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
      }
      expectCheckersReadAnnotations(name, kinds.written);
    });
  }

  it("the recipe scenarios tagged expect-fail (`zksim list`: fails on purpose) are exactly the caught naive ones", () => {
    const tagged = scenarioNames().filter((name) => name.startsWith("recipe-") && loadScenario(name).tags.includes("expect-fail"));
    expect(tagged).toEqual(Object.keys(CAUGHT).sort());
  });

  for (const [name, checker] of Object.entries(CAUGHT)) {
    it(`${name}: the flaw is caught by ${checker}; its recipe checkers read every recipe annotation it writes`, async () => {
      const kinds = recipeKindsWritten();
      for (const seed of [1, 2]) {
        const r = await runRecipeScenario(loadScenario(name), { seed, ...(seed === 1 ? { onTraceEvent: kinds.onTraceEvent } : {}) });
        expect(r.violations.map((v) => v.checker), `${name} seed ${seed}`).toContain(checker);
      }
      expectCheckersReadAnnotations(name, kinds.written);
    });
  }

  it("recipe-election: LeaderSelector terms rotate — every client leads in turn and resigns when its callback returns; the latches then agree on one leader", async () => {
    const events: { client: string; event: string }[] = [];
    const r = await runRecipeScenario(loadScenario("recipe-election"), {
      seed: 1,
      onTraceEvent: (e) => void (e.kind === "recipe.election" && events.push({ client: String(e.fields?.client), event: String(e.fields?.event) })),
    });
    expect(r.violations).toEqual([]);
    const elected = events.filter((e) => e.event === "elected");
    expect(new Set(elected.map((e) => e.client))).toEqual(new Set(["c1", "c2", "c3", "c4"]));
    // Each term ends before the next one begins for the same client: elected, then resigned/withdrawn/lost.
    for (const c of ["c1", "c2", "c3", "c4"]) {
      const mine = events.filter((e) => e.client === c && e.event !== "candidate" && e.event !== "suspended").map((e) => e.event);
      for (let i = 0; i < mine.length - 1; i++) if (mine[i] === "elected") expect(["resigned", "withdrawn", "lost"], `${c}: ${mine.join(" ")}`).toContain(mine[i + 1]);
    }
    expect(elected.length).toBeGreaterThan(8);
  });

  it("herd metric: the herd-free lock wakes at most one waiter per lock-node deletion, the herd lock several", async () => {
    const metric = async (name: string) => {
      const herd = new LockHerdChecker();
      await runRecipeScenario(loadScenario(name), { seed: 1, onTraceEvent: (e) => offer(herd, e) });
      const m = herd.metrics().get("/app/lock")!;
      return m.notifications / m.acquisitions;
    };
    const good = await metric("recipe-lock");
    const bad = await metric("recipe-lock-naive-herd");
    expect(good).toBeLessThanOrEqual(1);
    expect(bad).toBeGreaterThan(2 * good);
  });

  it("recipe-lock-pause: the stale holder really acts while another holds the lock, and is refused", async () => {
    const events: { kind: string; fields: NonNullable<LooseEvent["fields"]> }[] = [];
    const r = await runRecipeScenario(loadScenario("recipe-lock-pause"), {
      seed: 1,
      onTraceEvent: (e) => {
        if (e.kind === "recipe.resource" || e.kind === "recipe.lock") events.push({ kind: e.kind, fields: loose(e).fields! });
      },
    });
    expect(r.violations).toEqual([]);
    const writes = events.filter((e) => e.kind === "recipe.resource" && e.fields.outcome !== "begin").map((e) => `${String(e.fields.client)}:${String(e.fields.token)}:${String(e.fields.outcome)}`);
    expect(writes).toEqual(["c2:1:accepted", "c1:0:rejected"]);
    const c1Began = events.findIndex((e) => e.kind === "recipe.resource" && e.fields.client === "c1" && e.fields.outcome === "begin");
    const c2Released = events.findIndex((e) => e.kind === "recipe.lock" && e.fields.client === "c2" && e.fields.event === "released");
    expect(c1Began).toBeLessThan(c2Released); // c1 acted while c2 held the lock
  });
});
