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
    /**
     * zk workload: the server settings a history checker needs to judge ACL and TTL answers,
     * recorded at the start of a run that sets any of them (superDigest, extendedTypesEnabled),
     * with the address each client node connects from (`"c1=10.0.0.7"`: its \`ip\` identity).
     */
    "workload.zk-config": { superDigest?: string; extendedTypesEnabled?: boolean; clients: string[] };
  }
}
