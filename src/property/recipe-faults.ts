/**
 * The recipe properties' fault preset (test/recipes/property-*.test.ts): up to `maxFaults` of
 * crash/restart a server, partition a client from every server, pause a client (up to 9 s: past
 * its 4 s session timeout), each inside the recipe fault window [FAULT_WINDOW_START_MS,
 * FAULT_WINDOW_END_MS]. The values are general `Disruption`s (schedule them with `faultsOf`).
 *
 * Kept draw-for-draw as it was first written (a record per kind, then mapped), so a recipe
 * property's fast-check seed still generates the same cases.
 */
import fc from "fast-check";
import { FAULT_WINDOW_END_MS, FAULT_WINDOW_START_MS } from "../scenario/scripts/recipe-support.js";
import type { Disruption } from "./disruptions.js";

export function faultPlanArbitrary(servers: readonly string[], clients: readonly string[], maxFaults = 3): fc.Arbitrary<Disruption[]> {
  const span = (maxForMs: number) => ({ atMs: fc.integer({ min: FAULT_WINDOW_START_MS, max: FAULT_WINDOW_END_MS - maxForMs }), forMs: fc.integer({ min: 500, max: maxForMs }) });
  const one: fc.Arbitrary<Disruption> = fc.oneof(
    fc.record({ kind: fc.constant("crash" as const), node: fc.constantFrom(...servers), ...span(7000) }),
    fc
      .record({ kind: fc.constant("partition-client" as const), node: fc.constantFrom(...clients), ...span(9000) })
      .map(({ node, atMs, forMs }) => ({ kind: "cut" as const, from: [node], to: [...servers], oneWay: false, atMs, forMs })),
    fc.record({ kind: fc.constant("pause" as const), node: fc.constantFrom(...clients), ...span(9000) }),
  );
  return fc.array(one, { minLength: 0, maxLength: maxFaults });
}
