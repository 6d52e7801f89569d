// Generated partitions against the two lock holders: the careful one survives; the trusting
// one is caught by our checker, shrunk to a minimal fault schedule, and reported with the
// command that replays it.
import { expect, test } from "vitest";
import { SimulationFailure, userScriptProperty } from "zksim";
import { carefulLock, trustingLock } from "../src/scripts.js";

const partitions = { kinds: /** @type {const} */ (["partition"]), maxDisruptions: 3 };

test("the careful lock holder never works after losing the lock", async () => {
  await userScriptProperty(carefulLock, { numRuns: 10, seed: 42, outDir: "replay", faults: partitions });
});

test("the trusting lock holder is caught, shrunk and reported with its replay command", async () => {
  const failure = await userScriptProperty(trustingLock, { numRuns: 100, seed: 42, outDir: "replay", faults: partitions, maxShrinkRuns: 30 }).catch((/** @type {unknown} */ err) => err);
  expect(failure).toBeInstanceOf(SimulationFailure);
  const message = /** @type {SimulationFailure} */ (failure).message;
  console.log(message);
  expect(message).toMatch(/example\.lock-exclusive/);
  expect(message).toMatch(/replay: npx zksim replay \S+ --module \.\/src\/scripts\.js/);
});
