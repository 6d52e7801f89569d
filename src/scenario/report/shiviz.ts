/**
 * A trace in the ShiViz log format (as ShiViz's Input page describes it): line 1 is the
 * parser regex, line 2 the multiple-executions delimiter (empty: one execution), then one line
 * per event, `<host> <vector clock JSON> <description>`.
 *
 * Vector clocks follow Lamport/Fidge: each event on a host increments the host's own entry by
 * exactly one (ShiViz insists the first is 1 and each next is +1); a `deliver` first merges the
 * clock its message carried at `send` (matched by message id, so a duplicated datagram merges
 * the same clock twice). World events (partitions, heals, clogs) happen on a pseudo-host,
 * `nemesis`. Timer firings are left out: they are local and outnumber everything else. A quorum
 * message's send and delivery, and a `zab.phase`, end with the book's name for them
 * (`[book: PROPOSE (broadcast)]`, `[book: discovery 发现]`; see `zab-book.ts`).
 */
import { describeEvent, type TraceEvent } from "../../sim/trace.js";
import { bookLabel, type BookTerm } from "../../zk/server/quorum/zab-vocabulary.js";
import { bookPhaseOf } from "./zab-book.js";
import { bookTermsOfMessages } from "../../zk/server/quorum/zab-book-terms.js";

export const SHIVIZ_REGEX = String.raw`(?<host>\S+) (?<clock>\{[^}]*\}) (?<event>.*)`;
export const SHIVIZ_MAX_EVENTS = 20_000;
export const WORLD_HOST = "nemesis";

export interface ShivizLog {
  text: string;
  /** Event lines written, and whether more events were left out by the cap. */
  written: number;
  truncated: boolean;
}

/** Whether the log includes an event at all (the CLI retains only these). */
export function shivizIncludes(e: TraceEvent): boolean {
  return e.kind !== "timer";
}

export function renderShiviz(events: readonly TraceEvent[], maxEvents = SHIVIZ_MAX_EVENTS): ShivizLog {
  const clocks = new Map<string, Map<string, number>>();
  const carried = new Map<number, Map<string, number>>();
  const lines = [SHIVIZ_REGEX, ""];
  const book = bookTermsOfMessages(events);
  let written = 0;
  let truncated = false;
  for (const e of events) {
    if (!shivizIncludes(e)) continue;
    if (written === maxEvents) {
      truncated = true;
      break;
    }
    const host = e.node === "" ? WORLD_HOST : e.node;
    let vc = clocks.get(host);
    if (vc === undefined) clocks.set(host, (vc = new Map([[host, 0]])));
    if (e.kind === "deliver" && e.id !== undefined) {
      const sent = carried.get(e.id);
      if (sent !== undefined) for (const [h, t] of sent) if (t > (vc.get(h) ?? 0)) vc.set(h, t);
    }
    vc.set(host, vc.get(host)! + 1);
    if (e.kind === "send" && e.id !== undefined) carried.set(e.id, new Map(vc));
    lines.push(`${host} ${clockJson(vc)} ${describeEvent(e).replace(/[\r\n]+/g, " ")}${bookSuffix(e, book)}`);
    written++;
  }
  return { text: lines.join("\n") + "\n", written, truncated };
}

/** " [book: PROPOSE (broadcast)]" for a quorum message, " [book: discovery 发现]" for a phase, else "". */
function bookSuffix(e: TraceEvent, book: ReadonlyMap<number, BookTerm>): string {
  if ((e.kind === "send" || e.kind === "deliver") && e.id !== undefined) {
    const term = book.get(e.id);
    return term === undefined ? "" : ` [book: ${bookLabel(term)}]`;
  }
  const phase = bookPhaseOf(e);
  return phase === undefined ? "" : ` [book: ${phase.phase} ${phase.zh}]`;
}

/** The clock as JSON, the host's own entry first, then the others in order of first contact. */
function clockJson(vc: Map<string, number>): string {
  return JSON.stringify(Object.fromEntries(vc));
}
