/**
 * The long sweep of zab-random-faults (`npm run test:deep`, which CI runs after `npm test`):
 * seeds 1–20 with every checker on, and the swarm's own watches (no txn logged while LOOKING,
 * group commit keeps at most three txn-log fsyncs in flight).
 */
import { describe, expect, it } from "vitest";
import { runWatched } from "./zab-random-faults-watch.js";

describe("ensemble: swarm: zab-random-faults (deep)", () => {
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1);

  it("seeds 1–20 pass with every checker on", async () => {
    const failures: string[] = [];
    for (const seed of seeds) {
      const r = await runWatched(seed);
      for (const v of r.violations) failures.push(`seed ${seed}: ${v}`);
      for (const l of r.loggedWhileLooking) failures.push(`seed ${seed}: logged while LOOKING: ${l}`);
      // Group commit: a server's sync processor has one fsync in flight, the learner's sync path
      // one more, the flush at a role's end a third. One fsync per txn queues up dozens.
      if (r.maxLogFsyncsInFlight > 3) failures.push(`seed ${seed}: ${r.maxLogFsyncsInFlight} txn-log fsyncs in flight on one server`);
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
