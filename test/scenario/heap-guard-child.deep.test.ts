/**
 * The heap guard in a real process at larger heaps (test/helpers/heap-guard.ts): the runs go
 * further before the guard stops them than at `npm test`'s 40 MB.
 */
import { describe } from "vitest";
import { heapGuardStops } from "../helpers/heap-guard.js";

describe("heap guard, in a child process, larger heaps", () => {
  heapGuardStops("soak-tree-100k", 60);
  heapGuardStops("soak-10m", 96);
});
