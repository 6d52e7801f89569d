/**
 * The layout of a space-time (Lamport) diagram of a trace: one vertical lane per node, virtual
 * time running downwards, a message as an arrow from its `send` to each of its `deliver`s
 * (matched by message id), faults as marks, client operations as spans from `client.invoke` to
 * `client.complete`, ZAB role changes, phases and commits as labels. Quorum messages and phases
 * also carry the book's ZAB names (`zab-book.ts`). Pure: events in, shapes out
 * (`space-time-html.ts` draws them).
 *
 * Time is compressed where nothing happens: each distinct drawn instant gets a row, and the gap
 * between two rows grows with the logarithm of the virtual time between them, up to a ceiling,
 * so a 10-second idle stretch costs a few pixels more than a 10-millisecond one.
 *
 * Invariants: the diagram shows a prefix of the trace — every drawn message, mark and span
 * happened before the cut, and the cut comes right after the `maxMessages`-th delivery — so
 * the number of arrows is min(deliveries, maxMessages).
 */
import type { TraceEvent } from "../../sim/trace.js";
import type { BookTerm } from "../../zk/server/quorum/zab-vocabulary.js";
import { bookPhaseOf } from "./zab-book.js";
import { bookTermsOfMessages } from "../../zk/server/quorum/zab-book-terms.js";

export const SPACE_TIME_MAX_MESSAGES = 5_000;

/** Kinds the diagram draws; everything else (timers, disk, connection set-up) is left out. */
const DRAWN = new Set([
  "send", "deliver", "drop", "hold", "start", "crash", "restart", "pause", "resume",
  "partition", "heal", "clog", "unclog", "client.invoke", "client.complete", "zab.state", "zab.phase", "zab.commit",
]);

export interface Arrow {
  from: string;
  to: string;
  y1: number;
  y2: number;
  send: TraceEvent;
  deliver: TraceEvent;
  /** Held by a partition before it was delivered. */
  held: boolean;
  /** For a quorum message: the book's name for it (PROPOSAL → PROPOSE (broadcast), …). */
  book: BookTerm | undefined;
}

export interface Mark {
  node: string;
  y: number;
  kind: "start" | "crash" | "restart" | "pause" | "resume" | "drop" | "zab.state" | "zab.phase" | "zab.commit";
  text: string;
  events: TraceEvent[];
  /** For drops: the intended receiver (the mark sits between the lanes). */
  toward?: string;
  /** For drops: where the message left its sender. */
  ySend?: number;
}

export interface Span {
  node: string;
  y1: number;
  /** Undefined while still open at the end of the drawn prefix. */
  y2: number | undefined;
  /** "ok" | "fail" | "unknown" for client ops; "paused" | "down" for node states. */
  kind: "ok" | "fail" | "unknown" | "pending" | "paused" | "down";
  text: string;
  events: TraceEvent[];
  /** Side-by-side slot among the node's overlapping client ops (0 for node states). */
  track: number;
}

export interface WorldLine {
  y: number;
  text: string;
  event: TraceEvent;
}

export interface AxisTick {
  y: number;
  atUs: number;
  /** Virtual time skipped just before this row (drawn as a break when large). */
  gapUs: number;
}

export interface SpaceTimeLayout {
  lanes: string[];
  arrows: Arrow[];
  marks: Mark[];
  spans: Span[];
  world: WorldLine[];
  ticks: AxisTick[];
  height: number;
  /** Deliveries drawn, and whether the trace went on past the cut. */
  messagesShown: number;
  truncated: boolean;
  /** Events in the drawn prefix of the trace, and the time of its last one. */
  prefixEvents: number;
  shownUntilUs: number;
}

export const TOP_PX = 16;
const ROW_PX = 4;
const GAP_MAX_PX = 48;

export function layoutSpaceTime(events: readonly TraceEvent[], maxMessages = SPACE_TIME_MAX_MESSAGES): SpaceTimeLayout {
  const { prefix, truncated, messagesShown } = drawnPrefix(events, maxMessages);
  const drawn = prefix.filter((e) => DRAWN.has(e.kind));
  const { yOf, ticks, height } = timeScale(drawn);
  const layout: SpaceTimeLayout = {
    lanes: laneOrder(prefix),
    arrows: [],
    marks: [],
    spans: [],
    world: [],
    ticks,
    height,
    messagesShown,
    truncated,
    prefixEvents: prefix.length,
    shownUntilUs: prefix.length > 0 ? prefix[prefix.length - 1]!.atUs : 0,
  };
  placeMessages(drawn, yOf, layout);
  placeNodeEvents(drawn, yOf, layout);
  placeClientOps(drawn, yOf, layout);
  return layout;
}

/** The events up to and including the `maxMessages`-th delivery. */
function drawnPrefix(events: readonly TraceEvent[], maxMessages: number) {
  let delivered = 0;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.kind === "deliver" && ++delivered === maxMessages) {
      return { prefix: events.slice(0, i + 1), truncated: i + 1 < events.length, messagesShown: delivered };
    }
  }
  return { prefix: events.slice(), truncated: false, messagesShown: delivered };
}

/** Nodes in order of first appearance (as the acting node or as the other end). */
function laneOrder(events: readonly TraceEvent[]): string[] {
  const seen = new Set<string>();
  for (const e of events) {
    if (e.node !== "") seen.add(e.node);
    if (e.peer !== undefined && e.peer !== "") seen.add(e.peer);
  }
  return [...seen];
}

function timeScale(drawn: readonly TraceEvent[]) {
  const yOf = new Map<number, number>();
  const ticks: AxisTick[] = [];
  let y = TOP_PX;
  let prev: number | undefined;
  for (const e of drawn) {
    if (yOf.has(e.atUs)) continue;
    const gapUs = prev === undefined ? 0 : e.atUs - prev;
    if (prev !== undefined) y += ROW_PX + gapPx(gapUs);
    yOf.set(e.atUs, y);
    ticks.push({ y, atUs: e.atUs, gapUs });
    prev = e.atUs;
  }
  return { yOf, ticks, height: y + TOP_PX * 2 };
}

/** Pixels for an idle stretch: logarithmic in the virtual time skipped, capped. */
function gapPx(gapUs: number): number {
  return Math.min(GAP_MAX_PX, Math.round(6 * Math.log2(1 + gapUs / 1000)));
}

function placeMessages(drawn: readonly TraceEvent[], yOf: Map<number, number>, out: SpaceTimeLayout): void {
  const sends = new Map<number, TraceEvent>();
  const held = new Set<number>();
  const book = bookTermsOfMessages(drawn);
  for (const e of drawn) {
    if (e.id === undefined) continue;
    if (e.kind === "send") {
      sends.set(e.id, e);
    } else if (e.kind === "hold") {
      held.add(e.id);
    } else if (e.kind === "deliver") {
      const s = sends.get(e.id);
      if (s === undefined || s.peer === undefined) continue;
      out.arrows.push({ from: s.node, to: s.peer, y1: yOf.get(s.atUs)!, y2: yOf.get(e.atUs)!, send: s, deliver: e, held: held.has(e.id), book: book.get(e.id) });
    } else if (e.kind === "drop") {
      const s = sends.get(e.id);
      const events = s ? [s, e] : [e];
      const from = s?.node ?? e.node;
      const to = s?.peer ?? e.peer;
      out.marks.push({
        node: from,
        y: yOf.get(e.atUs)!,
        kind: "drop",
        text: `drop (${e.detail ?? "?"})`,
        events,
        ...(to !== undefined ? { toward: to } : {}),
        ...(s ? { ySend: yOf.get(s.atUs)! } : {}),
      });
    }
  }
}

function placeNodeEvents(drawn: readonly TraceEvent[], yOf: Map<number, number>, out: SpaceTimeLayout): void {
  const open = new Map<string, Span>();
  const openSpan = (node: string, kind: "paused" | "down", e: TraceEvent) => {
    const span: Span = { node, y1: yOf.get(e.atUs)!, y2: undefined, kind, text: kind, events: [e], track: 0 };
    open.set(`${kind}/${node}`, span);
    out.spans.push(span);
  };
  const closeSpan = (node: string, kind: "paused" | "down", e: TraceEvent) => {
    const span = open.get(`${kind}/${node}`);
    if (span === undefined) return;
    span.y2 = yOf.get(e.atUs)!;
    span.events.push(e);
    open.delete(`${kind}/${node}`);
  };
  for (const e of drawn) {
    const y = yOf.get(e.atUs)!;
    switch (e.kind) {
      case "partition":
      case "heal":
      case "clog":
      case "unclog":
        out.world.push({ y, text: worldText(e.kind, e.fields.links), event: e });
        break;
      case "start":
      case "crash":
      case "restart":
      case "pause":
      case "resume":
        out.marks.push({ node: e.node, y, kind: e.kind, text: e.kind, events: [e] });
        if (e.kind === "crash") openSpan(e.node, "down", e);
        if (e.kind === "restart" || e.kind === "start") closeSpan(e.node, "down", e);
        if (e.kind === "pause") openSpan(e.node, "paused", e);
        if (e.kind === "resume") closeSpan(e.node, "paused", e);
        break;
      case "zab.state":
        out.marks.push({ node: e.node, y, kind: e.kind, text: e.fields.state, events: [e] });
        break;
      case "zab.phase": {
        // The book's phase, as it names it; ZooKeeper's ZabState stays in the tooltip.
        const phase = bookPhaseOf(e);
        if (phase !== undefined) out.marks.push({ node: e.node, y, kind: e.kind, text: `${phase.phase} e${e.fields.epoch}`, events: [e] });
        break;
      }
      case "zab.commit":
        out.marks.push({ node: e.node, y, kind: e.kind, text: `commit ${e.fields.zxid}`, events: [e] });
        break;
    }
  }
}

/** "partition s3 | s1 s2 …": the cut links, shortened. */
function worldText(kind: string, links: readonly string[]): string {
  const shown = links.slice(0, 6).join(" ");
  const more = links.length > 6 ? ` … (${links.length} links)` : "";
  return links.length === 0 ? kind : `${kind} ${shown}${more}`;
}

/** Client ops as spans; ops a client has in flight at once (pipelined) sit side by side. */
function placeClientOps(drawn: readonly TraceEvent[], yOf: Map<number, number>, out: SpaceTimeLayout): void {
  const open = new Map<string, Span>();
  const busy = new Map<string, Set<number>>();
  for (const e of drawn) {
    if (e.kind !== "client.invoke" && e.kind !== "client.complete") continue;
    const key = `${e.node}/${e.fields.opId}`;
    let tracks = busy.get(e.node);
    if (tracks === undefined) busy.set(e.node, (tracks = new Set()));
    if (e.kind === "client.invoke") {
      let track = 0;
      while (tracks.has(track)) track++;
      tracks.add(track);
      const text = "path" in e.fields ? `${e.fields.op} ${e.fields.path}` : e.fields.op;
      const span: Span = { node: e.node, y1: yOf.get(e.atUs)!, y2: undefined, kind: "pending", text, events: [e], track };
      open.set(key, span);
      out.spans.push(span);
      continue;
    }
    const span = open.get(key);
    if (span === undefined) continue;
    open.delete(key);
    tracks.delete(span.track);
    span.y2 = yOf.get(e.atUs)!;
    span.events.push(e);
    span.kind = e.fields.outcome ?? "unknown";
  }
}
