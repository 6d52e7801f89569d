/**
 * Coverage: which fault kinds and protocol states a run reached, read from its trace, so that a
 * sweep can say how many of its seeds reached each (per 1,000) and a corner nobody reaches shows.
 *
 * Two sources, one vocabulary of named features:
 * - generic, for every workload: each fault kind the trace shows (a crash, a pause, a clock
 *   skew, a full disk, a slow fsync, message loss, a cut link, a clogged link, a torn write),
 *   split by the node's class when the workload names classes ("crash (client)"), and a crash
 *   right after its node sent or received a message of some type, at the same instant ("crash
 *   right after send PROPOSAL", "… receive fle.notification") — what trace-conditioned crashes aim at;
 * - declared by the workload (`WorkloadDef.coverage`): its protocol states ("sync SNAP",
 *   "leader change", "session expired"), each a predicate over one trace event, or a count of them.
 *
 * Invariants: a feature is reached or not (a run counts once per feature); the list of declared
 * features is fixed per workload, so a sweep can show the ones no seed reached (count 0). Pure
 * reading: a recorder never changes the run, and recording costs one subscription.
 */
import { DEFAULT_DISK } from "../sim/disk.js";
import type { TraceEvent } from "../sim/trace.js";
import { FAULT_EVENT_KINDS, type TraceKind } from "../sim/trace-schema.js";

/** One protocol state a workload declares: reached when `count` (default 1) events satisfy `test`. */
export interface CoverageProbe {
  name: string;
  /** The trace event kinds the probe reads. */
  kinds: readonly TraceKind[];
  /** Called only with events of `kinds`. */
  test(e: TraceEvent): boolean;
  count?: number;
}

/** What a workload declares: its protocol states, and the class of each node for the fault features. */
export interface CoverageDef {
  probes: readonly CoverageProbe[];
  /** The node classes ("server", "client", "coordinator"…) that split the node fault features. */
  classes?: readonly string[];
  /** The message types a crash right after sending or receiving one is listed for, reached or not. */
  messageTypes?: readonly string[];
  nodeClass?(node: string): string | undefined;
}

/** The generic fault features every sweep lists, reached or not (node faults also per class). */
export const FAULT_FEATURES = ["crash", "pause", "clock skew", "disk full", "slow fsync", "torn write", "loss", "cut link", "clogged link", "duplicate", "reorder"] as const;

/** The kinds the generic features read: the fault events, the disk's lost writes, and messages (for "crash right after …"). */
const FAULT_KINDS = [...FAULT_EVENT_KINDS, "disk.lost", "send", "deliver"] as const;
type FaultFeatureKind = (typeof FAULT_KINDS)[number];
const IS_FAULT_KIND: ReadonlySet<TraceKind> = new Set(FAULT_KINDS);

/** Collects one run's reached features from its trace events. */
export class CoverageRecorder {
  private readonly reachedSet = new Set<string>();
  private readonly counts = new Map<CoverageProbe, number>();
  private readonly probesByKind = new Map<TraceKind, CoverageProbe[]>();
  /** The kinds it reads (the generic features' and the probes'). */
  readonly kinds: readonly TraceKind[];
  /** Per node: the last instant it sent or received a message, and those messages (read only at a crash). */
  private readonly lastMessages = new Map<string, { atUs: number; events: TraceEvent[] }>();

  constructor(private readonly def: CoverageDef | undefined) {
    for (const p of def?.probes ?? []) for (const k of p.kinds) this.probesByKind.set(k, [...(this.probesByKind.get(k) ?? []), p]);
    this.kinds = [...new Set<TraceKind>([...FAULT_KINDS, ...this.probesByKind.keys()])];
  }

  onEvent(e: TraceEvent): void {
    if (isFaultFeatureKind(e)) this.fault(e);
    for (const p of this.probesByKind.get(e.kind) ?? []) {
      if (this.reachedSet.has(p.name) || !p.test(e)) continue;
      const n = (this.counts.get(p) ?? 0) + 1;
      this.counts.set(p, n);
      if (n >= (p.count ?? 1)) this.reachedSet.add(p.name);
    }
  }

  /** The features reached, sorted. */
  reached(): string[] {
    return [...this.reachedSet].sort();
  }

  private fault(e: TraceEvent<FaultFeatureKind>): void {
    const of = (feature: string) => {
      this.reachedSet.add(feature);
      const cls = this.def?.nodeClass?.(e.node);
      if (cls !== undefined) this.reachedSet.add(`${feature} (${cls})`);
    };
    switch (e.kind) {
      case "send":
      case "deliver": {
        const at = this.lastMessages.get(e.node);
        if (at === undefined) this.lastMessages.set(e.node, { atUs: e.atUs, events: [e] });
        else if (at.atUs === e.atUs) at.events.push(e);
        else {
          at.atUs = e.atUs;
          at.events.length = 0;
          at.events.push(e);
        }
        return;
      }
      case "crash": {
        of("crash");
        const at = this.lastMessages.get(e.node);
        if (at === undefined || at.atUs !== e.atUs) return;
        for (const m of at.events) this.reachedSet.add(`crash right after ${m.kind === "send" ? "send" : "receive"} ${m.detail ?? "?"}`);
        return;
      }
      case "pause":
        return of("pause");
      case "clock":
        if (e.fields.rate !== 1) of("clock skew");
        return;
      case "disk.fault":
        if (e.detail === "full" && e.id === 1) this.reachedSet.add("disk full");
        if (e.detail === "fsync-latency" && (e.id ?? 0) > DEFAULT_DISK.fsyncLatencyUs) this.reachedSet.add("slow fsync");
        return;
      case "disk.lost":
        if (e.fields.tornBytes > 0) this.reachedSet.add("torn write");
        return;
      case "net.config":
        return this.netConfig(e);
      case "partition":
        return void this.reachedSet.add("cut link");
      case "clog":
        return void this.reachedSet.add("clogged link");
    }
  }

  private netConfig(e: TraceEvent<"net.config">): void {
    const c = e.fields.change;
    if (c === "defaults") return;
    if ((c.lossRate ?? 0) > 0) this.reachedSet.add("loss");
    if ((c.duplicateRate ?? 0) > 0) this.reachedSet.add("duplicate");
    if ((c.reorderRate ?? 0) > 0) this.reachedSet.add("reorder");
  }
}

function isFaultFeatureKind(e: TraceEvent): e is TraceEvent<FaultFeatureKind> {
  return IS_FAULT_KIND.has(e.kind);
}

/** Every feature a sweep lists even when no seed reached it: the fault kinds (node faults per class) and the workload's probes. */
export function declaredFeatures(def: CoverageDef | undefined): string[] {
  const perNode = ["crash", "pause", "clock skew"];
  return [
    ...FAULT_FEATURES,
    ...(def?.classes ?? []).flatMap((c) => perNode.map((f) => `${f} (${c})`)),
    ...(def?.messageTypes ?? []).flatMap((m) => [`crash right after send ${m}`, `crash right after receive ${m}`]),
    ...(def?.probes ?? []).map((p) => p.name),
  ];
}
