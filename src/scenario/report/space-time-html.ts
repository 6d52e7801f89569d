/**
 * A self-contained HTML page with a space-time (Lamport) diagram of one run: a summary header
 * (scenario, seed, trace hash, verdict), then an inline SVG laid out by `space-time.ts`, with a
 * little inline CSS and JS for the hover tooltip. No external assets and no URLs: the file
 * opens offline and can be attached to a bug report as is.
 *
 * Every drawn shape carries its events' one-line descriptions in `data-t`; the tooltip shows
 * them. Arrows are `<line class="msg …">`, one per delivery; lanes are `<g class="lane">`.
 */
import { describeEvent, formatUs, type TraceEvent } from "../../sim/trace.js";
import { bookLabel } from "../../zk/server/quorum/zab-vocabulary.js";
import { layoutSpaceTime, SPACE_TIME_MAX_MESSAGES, TOP_PX, type Arrow, type Mark, type SpaceTimeLayout, type Span } from "./space-time.js";
import type { TraceReportMeta } from "./meta.js";

const LANE_PX = 150;
const AXIS_PX = 90;
const HEAD_PX = 28;

export interface SpaceTimeHtmlOptions {
  maxMessages?: number;
}

export function renderSpaceTimeHtml(events: readonly TraceEvent[], meta: TraceReportMeta, options: SpaceTimeHtmlOptions = {}): string {
  const layout = layoutSpaceTime(events, options.maxMessages ?? SPACE_TIME_MAX_MESSAGES);
  const xOf = new Map(layout.lanes.map((n, i) => [n, AXIS_PX + LANE_PX / 2 + i * LANE_PX]));
  const width = AXIS_PX + Math.max(layout.lanes.length, 1) * LANE_PX + 40;
  const body = [
    header(meta, layout),
    `<div class="heads"><svg width="${width}" height="${HEAD_PX}">${laneHeads(layout.lanes, xOf)}</svg></div>`,
    `<svg class="diagram" width="${width}" height="${layout.height}" viewBox="0 0 ${width} ${layout.height}">`,
    DEFS,
    axis(layout, width),
    lanes(layout, xOf),
    layout.world.map((w, i) => worldLine(w.y, w.text, [w.event], width, stacked(layout.world, i))).join(""),
    layout.spans.map((s) => span(s, xOf, layout.height)).join(""),
    layout.arrows.map((a) => arrow(a, xOf)).join(""),
    layout.marks.map((m) => mark(m, xOf)).join(""),
    violationLines(meta, layout, width),
    `</svg>`,
    `<div id="tip"></div>`,
  ].join("\n");
  return page(`zksim ${meta.scenario} seed ${meta.seed}`, body);
}

function header(meta: TraceReportMeta, layout: SpaceTimeLayout): string {
  const verdict = { pass: `<b class="pass">PASS</b>`, expected: `<b class="cut">EXPECTED</b> (only the scenario's documented flaws)`, fail: `<b class="fail">FAIL</b>` }[meta.verdict];
  const violations = meta.violations
    .slice(0, 10)
    .map((v) => `<li>[${esc(v.checker)}] at ${v.atMs}ms (event #${v.eventIndex}): ${esc(v.message)}</li>`)
    .join("");
  const cut = layout.truncated
    ? `<p class="cut">Large trace: showing the first ${layout.messagesShown} delivered messages (events up to #${layout.prefixEvents - 1}, ` +
      `virtual time up to ${formatUs(layout.shownUntilUs)}) of ${meta.events} events.</p>`
    : "";
  return (
    `<header><h1>${esc(meta.scenario)} · seed ${meta.seed}</h1>` +
    `<p>verdict ${verdict} · trace hash <code>${esc(meta.traceHash)}</code> · ${meta.events} events · ${meta.virtualMs} virtual ms · ` +
    `${layout.lanes.length} nodes · ${layout.arrows.length} messages drawn</p>` +
    (violations ? `<ul class="violations">${violations}</ul>` : "") +
    cut +
    `<p class="legend"><span class="k ok"></span>client op ok <span class="k fail"></span>failed <span class="k unknown"></span>unknown ` +
    `<span class="k pending"></span>pending · <span class="k paused"></span>paused <span class="k down"></span>down · ` +
    `arrows: messages (dashed: held by a partition; a quorum message's tooltip gives its name in the book: FOLLOWERINFO = CEPOCH, PROPOSAL = PROPOSE…) · ` +
    `<span class="x">✕</span> dropped · <span class="phase">discovery e2</span>: a server enters the book's ZAB phase · time runs down, idle stretches compressed</p></header>`
  );
}

/** A red rule at the first drawn instant at or after each violation (the first ten). */
function violationLines(meta: TraceReportMeta, layout: SpaceTimeLayout, width: number): string {
  const out: string[] = [];
  let labelY = -Infinity;
  for (const v of meta.violations.slice(0, 10)) {
    const atUs = Math.round(v.atMs * 1000);
    const tick = layout.ticks.find((t) => t.atUs >= atUs);
    if (tick === undefined || atUs > layout.shownUntilUs) continue;
    const text = `[${v.checker}] at ${v.atMs}ms (event #${v.eventIndex}): ${v.message}`;
    // Labels of rules closer than a line of text would overprint: the first one speaks for them.
    const label = tick.y - labelY >= 14 ? `<text x="${width - 12}" y="${tick.y - 3}">violation: ${esc(v.checker)}</text>` : "";
    if (label) labelY = tick.y;
    out.push(`<g class="violation" data-t="${esc(text)}"><line x1="0" x2="${width - 10}" y1="${tick.y}" y2="${tick.y}"/>${label}</g>`);
  }
  return out.join("");
}

function laneHeads(laneNames: readonly string[], xOf: Map<string, number>): string {
  return laneNames.map((n) => `<text class="head" x="${xOf.get(n)}" y="${HEAD_PX - 9}">${esc(n)}</text>`).join("");
}

function axis(layout: SpaceTimeLayout, width: number): string {
  const out: string[] = [];
  let lastLabelY = -Infinity;
  for (const t of layout.ticks) {
    if (t.gapUs >= 100_000) out.push(`<line class="break" x1="0" x2="${width}" y1="${t.y - 3}" y2="${t.y - 3}"/>`);
    if (t.y - lastLabelY < 28 && t.gapUs < 100_000) continue;
    lastLabelY = t.y;
    out.push(`<text class="t" x="${AXIS_PX - 8}" y="${t.y + 3}">${formatUs(t.atUs)}</text>`);
  }
  return `<g class="axis">${out.join("")}</g>`;
}

function lanes(layout: SpaceTimeLayout, xOf: Map<string, number>): string {
  return layout.lanes
    .map((n) => {
      const x = xOf.get(n)!;
      return `<g class="lane" data-node="${esc(n)}"><line x1="${x}" x2="${x}" y1="${TOP_PX / 2}" y2="${layout.height - TOP_PX}"/></g>`;
    })
    .join("");
}

function worldLine(y: number, text: string, events: readonly TraceEvent[], width: number, level: number): string {
  return (
    `<g class="world" data-t="${tip(events)}"><line x1="${AXIS_PX}" x2="${width - 10}" y1="${y}" y2="${y}"/>` +
    `<text x="${AXIS_PX + 4}" y="${y - 3 - level * 11}">${esc(text)}</text></g>`
  );
}

/** How many earlier world events share this one's row (their labels stack upwards). */
function stacked(world: readonly { y: number }[], i: number): number {
  let level = 0;
  for (let j = i - 1; j >= 0 && world[j]!.y === world[i]!.y; j--) level++;
  return level;
}

function span(s: Span, xOf: Map<string, number>, height: number): string {
  const x = xOf.get(s.node);
  if (x === undefined) return "";
  const y2 = s.y2 ?? height - TOP_PX;
  const h = Math.max(y2 - s.y1, 3);
  if (s.kind === "paused" || s.kind === "down") {
    return `<rect class="state ${s.kind}" x="${x - 7}" y="${s.y1}" width="14" height="${h}" data-t="${tip(s.events)}"/>`;
  }
  const dx = 4 + s.track * 9;
  return (
    `<g class="op ${s.kind}" data-t="${tip(s.events)}"><rect x="${x + dx}" y="${s.y1}" width="7" height="${h}"/>` +
    `<text x="${x + dx + 10}" y="${s.y1 + 9 + s.track * 11}">${esc(s.text)}</text></g>`
  );
}

function arrow(a: Arrow, xOf: Map<string, number>): string {
  const x1 = xOf.get(a.from)!;
  const x2 = xOf.get(a.to)!;
  const cls = `msg${a.send.conn !== undefined ? " conn" : " dgram"}${a.held ? " held" : ""}`;
  // A quorum message's tooltip opens with its name in the book: "PROPOSAL = PROPOSE (broadcast): …".
  const book = a.book === undefined ? "" : esc(`${a.send.detail ?? "?"} = ${bookLabel(a.book)}: ${a.book.note}\n`);
  return `<line class="${cls}" x1="${x1}" y1="${a.y1}" x2="${x2}" y2="${a.y2}" marker-end="url(#ah)" data-t="${book}${tip([a.send, a.deliver])}"/>`;
}

function mark(m: Mark, xOf: Map<string, number>): string {
  const x = xOf.get(m.node);
  if (x === undefined) return "";
  const t = tip(m.events);
  switch (m.kind) {
    case "drop": {
      const toward = m.toward !== undefined ? xOf.get(m.toward) : undefined;
      const xe = toward === undefined ? x + 20 : x + (toward - x) / 2;
      const ys = m.ySend ?? m.y;
      return `<g class="drop" data-t="${t}"><line x1="${x}" y1="${ys}" x2="${xe}" y2="${m.y}"/><text class="x" x="${xe}" y="${m.y + 4}">✕</text></g>`;
    }
    case "zab.state":
    case "zab.commit": {
      const cls = m.kind === "zab.state" ? `role ${m.text.toLowerCase()}` : "commit";
      return `<text class="${cls}" x="${x - 6}" y="${m.y + 3}" data-t="${t}">${esc(m.text)}</text>`;
    }
    case "zab.phase":
      return `<text class="phase" x="${x + 6}" y="${m.y + 3}" data-t="${t}">${esc(m.text)}</text>`;
    default:
      return `<g class="fault ${m.kind}" data-t="${t}"><circle cx="${x}" cy="${m.y}" r="4"/><text x="${x - 8}" y="${m.y + 4}">${m.kind}</text></g>`;
  }
}

/** The tooltip text of some events: their one-line descriptions, attribute-escaped. */
function tip(events: readonly TraceEvent[]): string {
  return esc(events.map(describeEvent).join("\n"));
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const DEFS = `<defs><marker id="ah" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#3b6ea5"/></marker></defs>`;

const CSS = `
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fff}
header{padding:10px 16px;border-bottom:1px solid #ddd}
h1{font-size:16px;margin:0 0 4px}
.pass{color:#1a7f37}.fail{color:#c62828}.cut{color:#8a5a00}
.violations{margin:4px 0;color:#c62828}
.heads{position:sticky;top:0;background:#fffd;border-bottom:1px solid #eee;z-index:1}
.head{font-weight:bold;text-anchor:middle}
.lane line{stroke:#bbb;stroke-width:1.5}
.axis .t{font-size:10px;fill:#777;text-anchor:end}
.axis .break{stroke:#eee;stroke-dasharray:2 4}
.msg{stroke:#3b6ea5;stroke-width:1;opacity:.75}.msg.dgram{stroke:#2a8a8a}.msg.held{stroke-dasharray:4 3}
.msg:hover,.op:hover rect,.drop:hover line{stroke-width:3;opacity:1}
.drop line{stroke:#c62828;stroke-dasharray:2 2;opacity:.6}.x,.drop text{fill:#c62828;font-size:11px;text-anchor:middle}
.world line{stroke:#8e44ad;stroke-dasharray:6 3}.world text{fill:#8e44ad;font-size:10px}
.op rect{stroke:none}.op text{font-size:10px;fill:#444}
.ok rect,.k.ok{fill:#2e7d32;background:#2e7d32}.fail rect,.k.fail{fill:#e65100;background:#e65100}
.unknown rect,.k.unknown{fill:#7b1fa2;background:#7b1fa2}.pending rect,.k.pending{fill:#9e9e9e;background:#9e9e9e}
.state.paused,.k.paused{fill:#ffb74d55;background:#ffb74d}.state.down,.k.down{fill:#9e9e9e44;background:#bbb}
.k{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px}
.fault circle{fill:#fff;stroke:#c62828;stroke-width:2}.fault text{font-size:10px;fill:#c62828;text-anchor:end}
.fault.start circle,.fault.restart circle{stroke:#2e7d32}.fault.start text,.fault.restart text{fill:#2e7d32}
.fault.pause circle,.fault.resume circle{stroke:#ef6c00}.fault.pause text,.fault.resume text{fill:#ef6c00}
.role{font-size:10px;font-weight:bold;text-anchor:end;fill:#555}.role.leading{fill:#1565c0}.role.looking{fill:#ad1457}
.commit{font-size:9px;fill:#1565c0;text-anchor:end}
.phase{font-size:9px;font-style:italic;fill:#6a1b9a;color:#6a1b9a}svg .phase{text-anchor:start}
.violation line{stroke:#c62828;stroke-width:2;opacity:.8}.violation text{fill:#c62828;font-size:11px;font-weight:bold;text-anchor:end}
#tip{position:fixed;display:none;max-width:640px;padding:6px 8px;background:#222;color:#eee;font:11px/1.35 monospace;white-space:pre-wrap;border-radius:4px;pointer-events:none;z-index:2}
`;

const JS = `
(function(){var tip=document.getElementById('tip');
document.addEventListener('mousemove',function(ev){var el=ev.target;while(el&&el.getAttribute&&!el.getAttribute('data-t'))el=el.parentNode;
if(!el||!el.getAttribute){tip.style.display='none';return;}
tip.textContent=el.getAttribute('data-t');tip.style.display='block';
var x=ev.clientX+14,y=ev.clientY+14;if(x+tip.offsetWidth>innerWidth)x=ev.clientX-tip.offsetWidth-14;if(y+tip.offsetHeight>innerHeight)y=ev.clientY-tip.offsetHeight-14;
tip.style.left=x+'px';tip.style.top=y+'px';});})();
`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${CSS}</style></head>\n<body>\n${body}\n<script>${JS}</script>\n</body></html>\n`;
}
