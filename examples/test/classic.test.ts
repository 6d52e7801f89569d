// The versioned config store of src/classic.ts under generated partitions (TypeScript, as it is:
// vitest loads it, and so does `npx zksim … --module ./src/classic.ts`). Read without `sync`, c2
// misses a version c1 already had confirmed: the built-in, opt-in readAfterConfirmedWrite checker
// catches it, the case is shrunk and reported with the command that replays it. With `sync`
// before the read, the same property passes.
import { expect, test } from "vitest";
import { FAULT_MIXES, SimulationFailure, userScriptProperty } from "zksim";
import { staleConfig, syncedConfig } from "../src/classic.ts";

const options = { numRuns: 20, seed: 17, outDir: "replay", faults: FAULT_MIXES.partition };

test("a config read after sync sees every confirmed version", async () => {
  await userScriptProperty(syncedConfig, options);
});

test("a config read without sync is caught, shrunk and reported with its replay command", async () => {
  const failure = await userScriptProperty(staleConfig, { ...options, maxShrinkRuns: 10 }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(SimulationFailure);
  const { message } = failure as SimulationFailure;
  console.log(message);
  expect(message).toMatch(/client\.read-after-confirmed-write/);
  expect(message).toMatch(/replay: npx zksim replay \S+ --module \.\/src\/classic\.ts/);
});
