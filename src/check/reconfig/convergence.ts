/**
 * reconfig.convergence: when the run ends, every running server has committed the last config a
 * leader committed — through COMMITANDACTIVATE, at UPTODATE from its leader's NEWLEADER, or by
 * the election's config gossip after it was away. A server stuck on an older config elects and
 * counts quorums by the wrong membership.
 *
 * Read from the trace: the configs proposed (`zab.config.next` on the proposing leader, paired
 * with its `zab.propose`), the leaders' commits (`zab.commit`), each server's activations
 * (`zab.config.activated`), crashes and starts. Judged at the end of the run only, and only
 * when the run ends quiet (the scenario healed and waited): a run cut short mid-transition
 * proves nothing either way.
 */
import type { TraceEvent } from "../../sim/trace.js";
import { ViolationLog, type Checker, type KindsOf, type RunEnd, type Violation } from "../checker.js";
import { guarded, stringField, zxidField } from "../event-reader.js";
import { readConfig } from "./config-view.js";

const KINDS = ["zab.config.activated", "zab.config.next", "zab.propose", "zab.commit", "crash", "start"] as const;
type Kind = KindsOf<typeof KINDS>;

/** How long the run must have been free of config changes for convergence to be judged (virtual µs). */
const QUIET_US = 30_000_000;

export class ConvergenceChecker implements Checker<Kind> {
  readonly name = "reconfig.convergence";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly activated = new Map<string, bigint>();
  private readonly up = new Set<string>();
  /** Per leader node, the reconfig versions it proposed (a next config announced just before its propose). */
  private readonly nextOf = new Map<string, bigint>();
  private readonly reconfigZxids = new Set<bigint>();
  private lastCommitted: { version: bigint; atUs: number; event: TraceEvent } | undefined;
  private lastChangeUs = 0;

  onEvent(e: TraceEvent<Kind>): void {
    switch (e.kind) {
      case "zab.config.activated":
        return guarded(this.log, e, this, this.onActivated);
      case "zab.config.next":
        return guarded(this.log, e, this, this.onNext);
      case "zab.propose":
        return guarded(this.log, e, this, this.onPropose);
      case "zab.commit":
        return guarded(this.log, e, this, this.onCommit);
      case "crash":
        this.up.delete(e.node);
        return;
      case "start":
        this.up.add(e.node);
        return;
    }
  }

  private onActivated(e: TraceEvent): void {
    const c = readConfig(stringField(e, "config"));
    if (typeof c === "string") return this.log.add(e, `zab.config.activated carries an unreadable config: ${c}`);
    this.activated.set(e.node, c.version);
    this.up.add(e.node);
    this.lastChangeUs = e.atUs;
  }

  private onNext(e: TraceEvent): void {
    this.nextOf.set(e.node, zxidField(e, "version"));
  }

  private onPropose(e: TraceEvent): void {
    const zxid = zxidField(e, "zxid");
    if (this.nextOf.get(e.node) === zxid) this.reconfigZxids.add(zxid);
  }

  private onCommit(e: TraceEvent): void {
    const zxid = zxidField(e, "zxid");
    if (!this.reconfigZxids.has(zxid)) return;
    if (this.lastCommitted === undefined || zxid > this.lastCommitted.version) this.lastCommitted = { version: zxid, atUs: e.atUs, event: e };
    this.lastChangeUs = e.atUs;
  }

  finish(end?: RunEnd): Violation[] {
    const last = this.lastCommitted;
    if (end === undefined || last === undefined || end.atUs - this.lastChangeUs < QUIET_US) return this.log.violations;
    const behind = [...this.up].filter((node) => this.activated.has(node) && this.activated.get(node)! < last.version).sort();
    if (behind.length > 0) {
      this.log.add(
        end,
        `the run ended ${((end.atUs - this.lastChangeUs) / 1e6).toFixed(0)} s after the last config change with ${behind.join(", ")} still on an older config than 0x${last.version.toString(16)}, ` +
          `the last one a leader committed; every running server must learn it (COMMITANDACTIVATE, its leader's NEWLEADER, or the election's config gossip)`,
      );
    }
    return this.log.violations;
  }
}
