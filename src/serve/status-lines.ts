/**
 * What a serve session prints while it runs: one status line per notable trace event (a
 * leader established, a crash or restart, a pause, a partition or heal, a session created or
 * expired) and every checker violation as soon as a checker records it.
 *
 * The online checkers are the ZAB checkers and the client session and watch checkers. A
 * checker hands every violation over in `finish()`, at the end of a run; to print them as they
 * happen, the session listens to each checker's violation stream (`Checker.log`, check/checker.ts)
 * and calls `finish()` once at the end for the judgements that need the whole run (liveness).
 */
import type { Checker, Violation } from "../check/checker.js";
import { ZAB_CHECKERS } from "../check/zab/index.js";
import { CLIENT_CHECKERS } from "../check/client/index.js";
import type { TraceEvent } from "../sim/trace.js";
import type { Simulator } from "../sim/simulator.js";

/** The checkers a serve session runs. */
export const SERVE_CHECKERS: readonly string[] = [...ZAB_CHECKERS.keys(), "client.sessions", "client.watches"];

const STATUS_KINDS = ["crash", "restart", "pause", "resume", "partition", "heal", "clog", "unclog", "zab.leader.established", "zk.session.established", "zk.session.expire"] as const;

function atText(e: TraceEvent): string {
  return `[${(e.atUs / 1e6).toFixed(3)}s]`;
}

/** The status line of a notable event, or undefined for the others. */
export function statusLine(e: TraceEvent): string | undefined {
  switch (e.kind) {
    case "zab.leader.established":
      return `${atText(e)} leader ${e.node} established (epoch ${e.fields.epoch})`;
    case "zk.session.established":
      return `${atText(e)} session ${e.fields.session} established on ${e.node} (timeout ${e.fields.timeoutMs} ms)`;
    case "zk.session.expire":
      return `${atText(e)} session ${e.fields.session} expired (timeout ${e.fields.timeoutMs} ms)`;
    case "partition":
    case "heal":
    case "clog":
    case "unclog":
      return `${atText(e)} ${e.kind} ${e.fields.links.join(" ") || "(no change)"}`;
    case "crash":
    case "restart":
    case "pause":
    case "resume":
      return `${atText(e)} ${e.kind} ${e.node}`;
    default:
      return undefined;
  }
}

/** Subscribes the status printer and the online checkers to the simulator's trace. */
export class OnlineWatch {
  private readonly checkers: Checker[];
  private readonly printed = new Map<Checker, number>();
  violationCount = 0;

  constructor(
    sim: Simulator,
    private readonly out: (line: string) => void,
  ) {
    sim.trace.subscribe((e) => {
      const line = statusLine(e);
      if (line !== undefined) out(line);
    }, STATUS_KINDS);
    this.checkers = SERVE_CHECKERS.map((name) => (ZAB_CHECKERS.get(name) ?? CLIENT_CHECKERS.get(name)!)());
    for (const c of this.checkers) {
      this.printed.set(c, 0);
      sim.trace.subscribe(c.onEvent.bind(c), c.kinds);
      c.log?.onViolation((v) => this.print(c, v));
    }
  }

  /** Ends the checkers (their end-of-run judgements), prints what is new; returns every violation, in checker order. */
  finish(end: { index: number; atUs: number }): Violation[] {
    return this.checkers.flatMap((c) => {
      const violations = c.finish(end);
      this.printNew(c, violations);
      return violations;
    });
  }

  /** Prints what `finish` found beyond what the checker's stream already told. */
  private printNew(c: Checker, violations: readonly Violation[]): void {
    for (const v of violations.slice(this.printed.get(c)!)) this.print(c, v);
  }

  private print(c: Checker, v: Violation): void {
    this.printed.set(c, this.printed.get(c)! + 1);
    this.violationCount++;
    this.out(`[${(v.atMs / 1000).toFixed(3)}s] VIOLATION ${v.checker}: ${v.message}`);
  }
}
