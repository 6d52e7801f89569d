/**
 * The coverage tally of one run of a user's script: a checker that never reports, reading the
 * trace kinds the coverage report sums (property/coverage-report.ts) — client operations and
 * their outcomes (`client.invoke`, `client.complete`), disconnects, session expiries and
 * SESSIONMOVED refusals, leaders established, and the user's labels (`user.label`). Read after
 * the run by `userScriptProperty`; it changes nothing in the run (checkers only read).
 */
import type { Checker, Violation } from "../check/checker.js";
import type { TraceEvent } from "../sim/trace.js";
import type { OpOutcomes, RunCoverage } from "../property/coverage-report.js";
import "./trace-events.js";

const KINDS = ["client.invoke", "client.complete", "client.disconnect", "zk.session.expire", "zk.session.moved", "zab.leader.established", "user.label"] as const;
type CoverageKind = (typeof KINDS)[number];

export class CoverageTally implements Checker<CoverageKind> {
  readonly name = "api.coverage";
  readonly kinds = KINDS;
  private readonly opOf = new Map<string, string>();
  private readonly ops = new Map<string, OpOutcomes>();
  private readonly expired = new Set<string>();
  private readonly labels = new Set<string>();
  private disconnects = 0;
  private moved = 0;
  private leaders = 0;

  onEvent(e: TraceEvent<CoverageKind>): void {
    switch (e.kind) {
      case "client.invoke": {
        this.opOf.set(`${e.fields.client}/${e.fields.opId}`, e.fields.op);
        this.outcomes(e.fields.op).pending++;
        return;
      }
      case "client.complete": {
        const op = this.opOf.get(`${e.fields.client}/${e.fields.opId}`);
        if (op === undefined) return;
        const o = this.outcomes(op);
        o.pending--;
        o[e.fields.outcome ?? "ok"]++;
        return;
      }
      case "client.disconnect":
        this.disconnects++;
        return;
      case "zk.session.expire":
        this.expired.add(e.fields.session);
        return;
      case "zk.session.moved":
        this.moved++;
        return;
      case "zab.leader.established":
        this.leaders++;
        return;
      case "user.label":
        this.labels.add(e.fields.name);
        return;
    }
  }

  finish(): Violation[] {
    return [];
  }

  /** What the run covered; `faults` are the kinds its case drew. */
  coverage(faults: readonly string[]): RunCoverage {
    return {
      faults,
      ops: Object.fromEntries(this.ops),
      disconnects: this.disconnects,
      expiries: this.expired.size,
      moved: this.moved,
      leaderChanges: Math.max(0, this.leaders - 1),
      labels: [...this.labels],
    };
  }

  private outcomes(op: string): OpOutcomes {
    let o = this.ops.get(op);
    if (o === undefined) this.ops.set(op, (o = { ok: 0, fail: 0, unknown: 0, pending: 0 }));
    return o;
  }
}
