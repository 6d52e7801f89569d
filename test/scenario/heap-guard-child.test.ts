/**
 * The heap guard in a real process with a small heap (test/helpers/heap-guard.ts), at 48 MB of
 * old generation; `npm run test:deep` runs it at 96 MB too (heap-guard-child.deep.test.ts).
 * Before the guard measured against the old generation's limit, it never fired on such heaps.
 */
import { describe } from "vitest";
import { heapGuardStopsSoak } from "../helpers/heap-guard.js";

describe("heap guard, in a child process", () => {
  heapGuardStopsSoak(48);
});
