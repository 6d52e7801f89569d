/**
 * The Paxos BALLOTS pane: for each ballot, who proposed it, which acceptors promised it and
 * which accepted its value — so a majority, and the acceptor two majorities share, can be
 * seen at a glance. Folded from the trace (`paxos.prepare`, `paxos.promised`,
 * `paxos.accepted`), like the checkers read it; ✓ marks a ballot a majority accepted (chosen).
 */
import type { TraceEvent } from "../../sim/trace.js";
import { PANEL_ROWS, type Panel } from "../types.js";

interface BallotRow {
  ballot: number;
  proposer: string;
  promised: string[];
  accepted: string[];
  value: string | undefined;
}


export class BallotFold {
  private readonly rows = new Map<number, BallotRow>();

  constructor(private readonly acceptors: number) {}

  static readonly KINDS = ["paxos.prepare", "paxos.promised", "paxos.accepted"] as const;

  onEvent(e: TraceEvent<(typeof BallotFold.KINDS)[number]>): void {
    const ballot = e.fields.ballot;
    const row = this.rows.get(ballot) ?? { ballot, proposer: "?", promised: [], accepted: [], value: undefined };
    this.rows.set(ballot, row);
    switch (e.kind) {
      case "paxos.prepare":
        row.proposer = e.node;
        return;
      case "paxos.promised":
        if (!row.promised.includes(e.node)) row.promised.push(e.node);
        return;
      case "paxos.accepted":
        if (!row.accepted.includes(e.node)) row.accepted.push(e.node);
        row.value = String(e.fields.value);
        return;
    }
  }

  panel(): Panel {
    const all = [...this.rows.values()].sort((a, b) => a.ballot - b.ballot);
    const shown = all.slice(-PANEL_ROWS);
    const majority = Math.floor(this.acceptors / 2) + 1;
    const title = `BALLOTS (a majority is ${majority} of ${this.acceptors})${all.length > shown.length ? ` — the last ${shown.length} of ${all.length}` : ""}`;
    const lines = shown.map((r) => {
      const accepted = r.accepted.length === 0 ? "accepted —" : `accepted ${r.accepted.sort().join(" ")} [${r.ballot}, ${r.value}]`;
      return `${r.accepted.length >= majority ? "✓" : " "} b${r.ballot} ${r.proposer}  promised ${r.promised.sort().join(" ") || "—"}  ${accepted}${r.accepted.length >= majority ? "  chosen" : ""}`;
    });
    return { title, lines: lines.length > 0 ? lines : ["  no ballot yet"] };
  }
}
