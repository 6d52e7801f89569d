import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../../src/cli/scenario-files.js";
import { runScenario } from "../../../../src/scenario/run.js";
import type { TraceEvent } from "../../../../src/sim/trace.js";
import {
  ACK_LD,
  bookLabel,
  QUORUM_PACKET_BOOK,
  SYNC_HISTORY,
  ZAB_STATE_BOOK_PHASE,
  type QuorumPacketType,
} from "../../../../src/zk/server/quorum/zab-vocabulary.js";

/** Every quorum packet type the simulator has (docs/zookeeper.md §7.2). */
const PACKET_TYPES: readonly QuorumPacketType[] = [
  "REQUEST", "PROPOSAL", "ACK", "COMMIT", "PING", "REVALIDATE", "SYNC", "INFORM", "NEWLEADER",
  "FOLLOWERINFO", "UPTODATE", "DIFF", "TRUNC", "SNAP", "OBSERVERINFO", "LEADERINFO", "ACKEPOCH",
  "COMMITANDACTIVATE", "INFORMANDACTIVATE",
];

describe("zk: quorum: the book's ZAB vocabulary", () => {
  it("covers every quorum packet type, each with a phase or a note saying why it has none", () => {
    expect(Object.keys(QUORUM_PACKET_BOOK).sort()).toEqual([...PACKET_TYPES].sort());
    for (const type of PACKET_TYPES) {
      const t = QUORUM_PACKET_BOOK[type];
      expect(t.note.length, type).toBeGreaterThan(0);
      expect([undefined, "discovery", "synchronization", "broadcast"], type).toContain(t.phase);
    }
  });

  it("maps the packets onto the book's messages and phases", () => {
    const expected: [QuorumPacketType, string][] = [
      ["FOLLOWERINFO", "CEPOCH (discovery)"],
      ["LEADERINFO", "NEWEPOCH (discovery)"],
      ["ACKEPOCH", "ACK-E (discovery)"],
      ["NEWLEADER", "NEWLEADER (synchronization)"],
      ["UPTODATE", "COMMIT-LD (synchronization)"],
      ["PROPOSAL", "PROPOSE (broadcast)"],
      ["ACK", "ACK (broadcast)"],
      ["COMMIT", "COMMIT (broadcast)"],
      ["DIFF", "no book name (synchronization)"],
      ["PING", "no book name (outside the phases)"],
    ];
    expect(expected.map(([type]) => [type, bookLabel(QUORUM_PACKET_BOOK[type])])).toEqual(expected);
    expect(bookLabel(ACK_LD)).toBe("ACK-LD (synchronization)");
    expect(bookLabel(SYNC_HISTORY)).toBe("NEWLEADER's Ie′ (synchronization)");
    // All nine of the book's messages have a ZooKeeper counterpart.
    const named = new Set([...Object.values(QUORUM_PACKET_BOOK), ACK_LD].map((t) => t.message));
    for (const m of ["CEPOCH", "NEWEPOCH", "ACK-E", "NEWLEADER", "ACK-LD", "COMMIT-LD", "PROPOSE", "ACK", "COMMIT"]) expect(named, m).toContain(m);
  });

  it("the server's zab.phase values and quorum message types are all in the tables (a real run with a crash, DIFF and TRUNC)", async () => {
    const phases = new Set<string>();
    const quorumTypes = new Set<string>();
    for (const name of ["zab-leader-crash-before-commit", "zab-observer"]) {
      const quorumConns = new Set<number>(); // connection ids are per run
      const onTraceEvent = (e: TraceEvent) => {
        if (e.kind === "zab.phase") phases.add(String(e.fields?.phase));
        if (e.kind !== "send" || e.conn === undefined) return;
        if (e.detail === "FOLLOWERINFO" || e.detail === "OBSERVERINFO") quorumConns.add(e.conn);
        if (quorumConns.has(e.conn)) quorumTypes.add(e.detail!);
      };
      await runScenario(loadScenario(name), { seed: 1, onTraceEvent });
    }
    expect([...phases].sort()).toEqual(Object.keys(ZAB_STATE_BOOK_PHASE).sort());
    expect(ZAB_STATE_BOOK_PHASE.SYNCHRONIZATION).toEqual({ phase: "synchronization", zh: "同步" });
    expect(quorumTypes.size).toBeGreaterThanOrEqual(12);
    for (const type of quorumTypes) expect(PACKET_TYPES, type).toContain(type);
  });
});
