/**
 * The heap guard in a real process at 96 MB of old generation (test/helpers/heap-guard.ts): the
 * run goes further before the guard stops it than at `npm test`'s 48 MB.
 */
import { describe } from "vitest";
import { heapGuardStopsSoak } from "../helpers/heap-guard.js";

describe("heap guard, in a child process, a larger heap", () => {
  heapGuardStopsSoak(96);
});
