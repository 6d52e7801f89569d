import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenarioWithSim } from "../../src/scenario/run.js";
import { bookTermsOfMessages, renderShiviz, renderSpaceTimeHtml } from "../../src/scenario/report/index.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import { bookLabel } from "../../src/zk/server/quorum/zab-vocabulary.js";

/** Sends on one connection, in order: [node, peer, packet type]. */
function sends(conn: number, msgs: [string, string, string][]): TraceEvent[] {
  return msgs.map(([node, peer, detail], i) => ({ index: i, atUs: i * 1000, kind: "send", node, peer, id: 100 + i, detail, conn }));
}

describe("scenario: report: the book's ZAB names", () => {
  it("names each quorum message by where it travels: history pairs, early-forwarded proposals, ACK-LD, the ACK of UPTODATE", () => {
    const L = "s1";
    const F = "s2";
    const events = sends(7, [
      [F, L, "FOLLOWERINFO"], [L, F, "LEADERINFO"], [F, L, "ACKEPOCH"],
      [L, F, "DIFF"], [L, F, "PROPOSAL"], [L, F, "COMMIT"], // a txn of the history Ie′
      [L, F, "PROPOSAL"], // outstanding, forwarded before NEWLEADER (startForwarding)
      [L, F, "NEWLEADER"], [F, L, "ACK"], [L, F, "UPTODATE"], [F, L, "ACK"],
      [L, F, "PROPOSAL"], [F, L, "ACK"], [L, F, "COMMIT"], [L, F, "PING"],
    ]);
    // Another connection whose first message is no FOLLOWERINFO: not quorum traffic.
    events.push({ index: 99, atUs: 99_000, kind: "send", node: "c1", peer: "s1", id: 999, detail: "COMMIT", conn: 8 });
    const terms = bookTermsOfMessages(events);
    const labels = events.map((e) => (terms.has(e.id!) ? bookLabel(terms.get(e.id!)!) : undefined));
    expect(labels).toEqual([
      "CEPOCH (discovery)", "NEWEPOCH (discovery)", "ACK-E (discovery)",
      "no book name (synchronization)", "NEWLEADER's Ie′ (synchronization)", "NEWLEADER's Ie′ (synchronization)",
      "PROPOSE (broadcast)",
      "NEWLEADER (synchronization)", "ACK-LD (synchronization)", "COMMIT-LD (synchronization)", "no book name (synchronization)",
      "PROPOSE (broadcast)", "ACK (broadcast)", "COMMIT (broadcast)", "no book name (outside the phases)",
      undefined,
    ]);
  });

  it("the space-time diagram and the ShiViz log show the book's names for quorum messages and phases", async () => {
    const { sim, result } = await runScenarioWithSim(loadScenario("zab-observer"), { seed: 1, retainTrace: true });
    const events = sim.trace.events;
    const html = renderSpaceTimeHtml(events, result);
    const shown = [
      "FOLLOWERINFO = CEPOCH (discovery)",
      "LEADERINFO = NEWEPOCH (discovery)",
      "ACKEPOCH = ACK-E (discovery)",
      "NEWLEADER = NEWLEADER (synchronization)",
      "ACK = ACK-LD (synchronization)",
      "UPTODATE = COMMIT-LD (synchronization)",
      "PROPOSAL = PROPOSE (broadcast)",
      "COMMIT = COMMIT (broadcast)",
      "PROPOSAL = NEWLEADER&#39;s Ie′ (synchronization)", // a DIFF's PROPOSAL+COMMIT pairs
    ];
    for (const label of shown) expect(html).toContain(label);
    const phases = events.filter((e) => e.kind === "zab.phase");
    expect(html.split(`<text class="phase"`).length - 1).toBe(phases.length);
    for (const p of ["discovery", "synchronization", "broadcast"]) expect(html).toMatch(new RegExp(`<text class="phase"[^>]*>${p} e\\d+</text>`));

    const log = renderShiviz(events.filter((e) => e.kind !== "timer")).text;
    expect(log).toMatch(/ send s\d → s\d FOLLOWERINFO .*\[book: CEPOCH \(discovery\)\]$/m);
    expect(log).toMatch(/ deliver s\d → s\d PROPOSAL .*\[book: PROPOSE \(broadcast\)\]$/m);
    expect(log).toMatch(/ zab\.phase s\d .*"phase":"SYNCHRONIZATION".*\[book: synchronization 同步\]$/m);
  });
});
