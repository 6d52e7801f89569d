/**
 * `commit.blocking` (2PC and 3PC): the book's "synchronous blocking" and "single point of
 * failure" made visible. A participant that voted Yes is in doubt until it applies an outcome;
 * it holds its locks all that time. This checker reports every in-doubt period longer than
 * `boundMs` (default 5 s, several times every protocol timeout), naming the participant, the
 * transaction, the locks it held and what it waited for (the coordinator, and whether the
 * coordinator was down meanwhile) and the client stuck behind it. Periods still open at the end
 * of the run are reported as such. A client waiting on a down coordinator while no participant
 * is in doubt is not blocking in the book's sense (3PC's participants finish without it).
 *
 * 2PC fails this whenever its coordinator stays down past the bound after the votes; 3PC's
 * timeout rules are meant to pass it.
 */
import type { Checker, KindsOf, RunEnd, Violation } from "../checker.js";
import { ViolationLog } from "../checker.js";
import type { TraceEvent } from "../../sim/trace.js";
import { guarded } from "../event-reader.js";
import { COMMIT_KINDS, isCommitEvent, protocolOf, readCommitEvent, secs, type CommitKind } from "./commit-events.js";

export const BLOCKING_BOUND_MS = 5_000;
const LIFECYCLE = ["crash", "start", "restart", "pause", "resume"] as const;
const KINDS = [...COMMIT_KINDS, ...LIFECYCLE] as const;
type Kind = KindsOf<typeof KINDS>;

interface Open {
  firstUs: number;
  /** Up time in doubt before the current stretch; the stretch began at `sinceUs` (undefined while down). */
  accUs: number;
  sinceUs: number | undefined;
  locks: string[];
  protocol: string;
}

export class CommitBlockingChecker implements Checker<Kind> {
  readonly name = "commit.blocking";
  readonly kinds = KINDS;
  readonly log = new ViolationLog(this.name);
  private readonly inDoubt = new Map<string, Map<string, Open>>();
  /** txn → the client waiting for it and since when (until its result). */
  private readonly waiting = new Map<string, { client: string; sinceUs: number; untilUs: number | undefined }>();
  private readonly coordinators = new Set<string>();
  /** node → [downUs, upUs, "down" | "paused"] intervals (upUs undefined while it lasts). */
  private readonly downs = new Map<string, [number, number | undefined, string][]>();

  constructor(private readonly boundMs = BLOCKING_BOUND_MS) {}

  onEvent(e: TraceEvent<Kind>): void {
    if (isCommitEvent(e)) guarded(this.log, e, this, this.onCommitEvent);
    else this.onLifecycle(e);
  }

  private onCommitEvent(e: TraceEvent<CommitKind>): void {
    const ev = readCommitEvent(e);
    const protocol = protocolOf(e.kind);
    switch (ev.kind) {
      case "begin":
        this.coordinators.add(e.node);
        return;
      case "vote":
        if (ev.vote === "yes") table(this.inDoubt, e.node).set(ev.txn, { firstUs: e.atUs, accUs: 0, sinceUs: e.atUs, locks: ev.locks, protocol });
        return;
      case "apply":
        return this.close(e, ev.txn);
      case "recover-participant": {
        const mine = table(this.inDoubt, e.node);
        const keep = new Set(ev.inDoubt);
        for (const txn of [...mine.keys()]) if (!keep.has(txn)) mine.delete(txn);
        return;
      }
      case "request":
        this.waiting.set(ev.txn, { client: e.node, sinceUs: e.atUs, untilUs: undefined });
        return;
      case "result": {
        const w = this.waiting.get(ev.txn);
        if (w !== undefined) w.untilUs = e.atUs;
        return;
      }
      case "decision":
      case "recover-coordinator":
        return;
    }
  }

  private onLifecycle(e: TraceEvent): void {
    const list = this.downs.get(e.node) ?? [];
    this.downs.set(e.node, list);
    const last = list[list.length - 1];
    const stops = e.kind === "crash" || e.kind === "pause";
    if (stops) list.push([e.atUs, undefined, e.kind === "crash" ? "down" : "paused"]);
    else if (last !== undefined && last[1] === undefined) last[1] = e.atUs;
    for (const open of this.inDoubt.get(e.node)?.values() ?? []) {
      if (stops && open.sinceUs !== undefined) {
        // A crash starts the count again (the bound is per incarnation); a pause only stops it.
        open.accUs = e.kind === "crash" ? 0 : open.accUs + e.atUs - open.sinceUs;
        open.sinceUs = undefined;
      } else if (!stops && open.sinceUs === undefined) open.sinceUs = e.atUs;
    }
  }

  private close(e: TraceEvent, txn: string): void {
    const mine = this.inDoubt.get(e.node);
    const open = mine?.get(txn);
    if (open === undefined) return;
    mine!.delete(txn);
    this.judge(e, e.node, txn, open, e.atUs, false);
  }

  private judge(at: RunEnd, node: string, txn: string, open: Open, untilUs: number, atEnd: boolean): void {
    const forUs = open.accUs + (open.sinceUs === undefined ? 0 : untilUs - open.sinceUs);
    if (forUs <= this.boundMs * 1000) return;
    const up = forUs === untilUs - open.firstUs ? "" : " of its own running time";
    const span = atEnd
      ? `since ${secs(open.firstUs)} and still at the end of the run (${secs(forUs)}${up})`
      : `for ${secs(forUs)}${up} (${secs(open.firstUs)} to ${secs(untilUs)})`;
    const locks = open.locks.length === 0 ? "no lock" : `the lock on ${open.locks.join(", ")}`;
    const w = this.waiting.get(txn);
    const client = w === undefined ? "" : `; its client ${w.client} waited from ${secs(w.sinceUs)} ${w.untilUs === undefined ? "to the end, never answered" : `to ${secs(w.untilUs)}`}`;
    this.log.add(at, `${open.protocol} blocking: ${node} was in doubt about ${txn} ${span}, holding ${locks}, waiting for the coordinator's decision${this.coordinatorStory(open.firstUs, untilUs)}${client}`);
  }

  /** Where the coordinators were while someone waited for them. */
  private coordinatorStory(fromUs: number, toUs: number): string {
    const parts: string[] = [];
    for (const c of this.coordinators) {
      for (const [down, up, how] of this.downs.get(c) ?? []) {
        if (down > toUs || (up !== undefined && up < fromUs)) continue;
        parts.push(`${c} was ${how} from ${secs(down)}${up === undefined ? " to the end" : ` to ${secs(up)}`}`);
      }
    }
    return parts.length === 0 ? " (the coordinator was up: its messages were lost or cut off)" : ` (${parts.join("; ")})`;
  }

  finish(end?: RunEnd): Violation[] {
    if (end === undefined) return this.log.violations;
    for (const [node, mine] of this.inDoubt) for (const [txn, open] of mine) this.judge(end, node, txn, open, end.atUs, true);
    return this.log.violations;
  }
}

function table(tables: Map<string, Map<string, Open>>, node: string): Map<string, Open> {
  let m = tables.get(node);
  if (m === undefined) tables.set(node, (m = new Map()));
  return m;
}
