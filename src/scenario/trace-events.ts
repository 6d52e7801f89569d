/**
 * The trace annotations of the scenario workloads, as types (added to the kernel's schema by
 * module augmentation, see `sim/trace-schema.ts`; `docs/trace.md` describes them).
 */
import "../sim/trace-schema.js";

declare module "../sim/trace-schema.js" {
  interface TraceAnnotations {
    /** kernel-traffic: what a node read back from its journal after a restart. */
    "app.recovered": { file: string; bytes: number; records?: number };
    /** zab-random-faults: the fault phase begins (the anchor of every fault the swarm drew up front). */
    "workload.phase": { phase: string };
  }
}
