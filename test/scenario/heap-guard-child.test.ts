/**
 * The heap guard in a real process with a small heap (test/helpers/heap-guard.ts): `soak-tree-100k`
 * at 40 MB of old generation. Its five replicas of a growing tree keep about 3 KB an event, so
 * with a probe every 8,192 events V8 aborted (exit 134) before the first one; the guard now
 * probes more often as the heap nears its limit. `npm run test:deep` runs larger heaps
 * (heap-guard-child.deep.test.ts).
 */
import { describe } from "vitest";
import { heapGuardStops } from "../helpers/heap-guard.js";

describe("heap guard, in a child process", () => {
  heapGuardStops("soak-tree-100k", 40);
});
