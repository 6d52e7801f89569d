/**
 * The documented fault mixes of `userScriptProperty` (docs/api.md, "Choosing a fault mix"):
 * named `PropertyFaultOptions`, measured against the classic user bugs of
 * examples/src/classic.ts by scripts/fault-mix.mjs. `default` is what a property draws when
 * `faults` is left out.
 */
import type { PropertyFaultOptions } from "./user-property.js";

export const FAULT_MIXES = {
  /**
   * Every disruption kind, up to 4 (the default), with a server isolated from the other servers
   * drawn three times as often as any other kind: the stale-read class (a server behind its
   * quorum that keeps serving its clients) needs it, and the other kinds keep connection losses
   * and session expiries frequent.
   */
  default: { weights: { isolate: 3 } },
  /** Partitions only. */
  partition: { kinds: ["partition"] },
  /** Process faults: crashes and pauses. */
  process: { kinds: ["crash", "pause"] },
  /** The network: partitions, cuts, clogs, loss. */
  network: { kinds: ["partition", "cut", "clog", "loss"] },
} as const satisfies Record<string, PropertyFaultOptions>;

export type FaultMixName = keyof typeof FAULT_MIXES;
