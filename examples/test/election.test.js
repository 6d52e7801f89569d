// The leader election under generated partitions and crashes: one leader at a time.
import { test } from "vitest";
import { userScriptProperty } from "zksim";
import { leaderElection } from "../src/scripts.js";

test("the election keeps a single leader under partitions and crashes", async () => {
  await userScriptProperty(leaderElection, { numRuns: 10, seed: 7, outDir: "replay", faults: { kinds: ["partition", "crash"], maxDisruptions: 3 } });
});
