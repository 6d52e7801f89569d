/**
 * The 2PC and 3PC stepping adapters: frames name the book's messages (Prepare, Yes/No,
 * Commit; canCommit, preCommit, doCommit) and show each node's phase, locks and durable log;
 * the learner's interventions (deliver out of order, drop, crash, restart, fire a timer) act
 * on the datagrams and nodes; stepping back re-executes to the same frame; a crash keeps only
 * the fsynced log; what-if names the participants it would leave blocked; bad client actions
 * are refused in one line.
 */
import { describe, expect, it } from "vitest";
import { comparable, refused } from "../helpers/stepper.js";
import { Session } from "../../src/stepper/session.js";
import { ADAPTERS, adapterFor } from "../../src/stepper/adapters.js";
import { threePcAdapter, twoPcAdapter } from "../../src/stepper/commit/commit-adapter.js";
import { whatIf } from "../../src/stepper/what-if.js";
import { nodeLines } from "../../src/tui/frame-text.js";
import type { Action, Frame, NodeView } from "../../src/stepper/types.js";

const TXN: Action = { kind: "client", client: "c1", op: "txn", key: "x", value: "1", noVoteFrom: [] };

function node(f: Frame, id: string): NodeView {
  return f.nodes.find((n) => n.id === id)!;
}

function field(f: Frame, id: string, name: string): string | undefined {
  return node(f, id).fields.find(([k]) => k === name)?.[1];
}

async function steps(s: Session, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await s.forward();
}

describe("stepper: 2PC and 3PC adapters", () => {
  it("stepper: commit: 2pc and 3pc have adapters and are no longer planned", () => {
    expect(adapterFor("2pc").protocol).toBe("2pc");
    expect(adapterFor("3pc").protocol).toBe("3pc");
    expect([...ADAPTERS.keys()]).toContain("2pc");
    expect([...ADAPTERS.keys()]).toContain("3pc");
  });

  it("stepper: commit: 2PC's phase 1 in the book's names — Prepare out, Yes back, the coordinator's votes and each participant's lock and log", async () => {
    const s = await Session.begin(twoPcAdapter, { seed: 1, setup: [TXN] });
    await steps(s, 5);
    const f = s.frame();
    expect(f.pending.filter((p) => p.kind === "message").map((p) => (p.kind === "message" ? p.book : ""))).toEqual(["Prepare", "Prepare"]);
    expect(node(f, "co").fields[0]).toEqual(["c1-1", "phase 1: votes"]);
    expect(field(f, "co", "votes")).toBe("p1:? p2:? p3:?");
    expect(field(f, "co", "log")).toBe("begin");
    await steps(s, 11);
    const g = s.frame();
    expect(field(g, "co", "votes")).toBe("p1:Y p2:Y p3:Y");
    for (const p of ["p1", "p2", "p3"]) {
      expect(node(g, p).fields[0]).toEqual(["c1-1", "in doubt (Yes)"]);
      expect(field(g, p, "locks")).toBe("x");
      expect(field(g, p, "log")).toBe("prepared");
    }
    expect(g.verdicts.map((v) => v.checker)).toEqual(["commit.atomicity", "commit.validity", "commit.durability", "commit.blocking", "kernel.no-delivery-across-cut"]);
  });

  it("stepper: commit: a record awaiting its fsync is marked …; a crash keeps only the durable log", async () => {
    const s = await Session.begin(twoPcAdapter, { seed: 1, setup: [TXN] });
    await steps(s, 16); // every vote in: the Commit decision is being fsynced
    expect(field(s.frame(), "co", "log")).toBe("begin commit…");
    s.act({ kind: "fault", fault: { kind: "crash", node: "co" } });
    const f = s.frame();
    expect(node(f, "co").status).toBe("down");
    expect(field(f, "co", "log")).toBe("begin");
  });

  it("stepper: commit: datagrams are delivered in any order and dropped by the learner", async () => {
    const s = await Session.begin(twoPcAdapter, { seed: 1, setup: [TXN] });
    await steps(s, 4);
    const prepares = s.frame().pending.flatMap((p) => (p.kind === "message" && p.book === "Prepare" ? [p] : []));
    expect(prepares.map((p) => p.to)).toEqual(["p3", "p2", "p1"]);
    s.act({ kind: "deliver", msg: prepares[2]!.msg });
    await s.forward();
    expect(s.frame().recent.some((r) => r.event.kind === "deliver" && r.event.node === "p1")).toBe(true);
    s.act({ kind: "drop", msg: prepares[0]!.msg });
    expect(s.frame().recent.some((r) => r.narration === "Prepare co→p3 is lost (injected)")).toBe(true);
  });

  it("stepper: commit: stepping back re-executes to the same frame", async () => {
    const s = await Session.begin(threePcAdapter, { seed: 2, setup: [TXN] });
    const frames: Frame[] = [s.frame()];
    for (let i = 0; i < 24; i++) {
      await s.forward();
      if (i === 10) s.act({ kind: "fault", fault: { kind: "crash", node: "p2" } });
      frames.push(s.frame());
    }
    for (let i = 23; i >= 0; i -= 3) {
      await s.goto(i);
      expect(comparable(s.frame())).toEqual(comparable(frames[i]!));
    }
  });

  it("stepper: commit: 3PC's phases and states — uncertain after canCommit, precommitted after preCommit", async () => {
    const s = await Session.begin(threePcAdapter, { seed: 1, setup: [TXN] });
    await steps(s, 16);
    expect(node(s.frame(), "p1").fields[0]).toEqual(["c1-1", "uncertain (Yes)"]);
    await steps(s, 11);
    const f = s.frame();
    for (const p of ["p1", "p2", "p3"]) expect(node(f, p).fields[0]).toEqual(["c1-1", "precommitted"]);
    expect(field(f, "p1", "log")).toBe("ready preCommit");
    expect(f.pending.some((p) => p.kind === "message" && p.book === "Ack" && p.detail === "c1-1 of preCommit")).toBe(true);
  });

  it("stepper: commit: what-if names the participants a coordinator crash would leave blocked (2PC), and not in 3PC", async () => {
    const two = await Session.begin(twoPcAdapter, { seed: 1, setup: [TXN] });
    await steps(two, 16);
    const blocked = await whatIf(two, { kind: "fault", fault: { kind: "crash", node: "co" } }, 3_000);
    expect(blocked.join("\n")).toMatch(/3 s on, still without an outcome, holding locks: p1 \(x\), p2 \(x\), p3 \(x\) — blocked/);
    expect(two.branch.interventions).toHaveLength(1); // the preview left the live run alone
    const three = await Session.begin(threePcAdapter, { seed: 1, setup: [TXN] });
    await steps(three, 30);
    const finishes = await whatIf(three, { kind: "fault", fault: { kind: "crash", node: "co" } }, 3_000);
    expect(finishes.join("\n")).toMatch(/within 3 s p1, p2, p3 reach an outcome: nobody is blocked/);
  });

  it("stepper: commit: bad client actions are refused in one line", async () => {
    const s = await Session.begin(twoPcAdapter, { seed: 1 });
    expect(refused(() => s.act({ kind: "client", client: "c9", op: "txn", key: "x", value: "1", noVoteFrom: [] }))).toMatch(/^no client "c9" \(clients: c1, c2\)$/);
    expect(refused(() => s.act({ kind: "client", client: "c1", op: "txn", key: "x", value: "1", noVoteFrom: ["p7"] }))).toMatch(/p7 is not a participant/);
    expect(refused(() => s.act({ kind: "client", client: "c1", op: "create", path: "/a", data: "1" }))).toMatch(/clients run transactions/);
    s.act({ kind: "fault", fault: { kind: "crash", node: "c2" } });
    expect(refused(() => s.act({ kind: "client", client: "c2", op: "txn", key: "x", value: "1", noVoteFrom: [] }))).toBe("client c2 is down");
    await expect(Session.begin(twoPcAdapter, { seed: 1, variant: "nope" })).rejects.toThrow(/2pc: unknown variant "nope" \(known: standard, cooperative, abort-in-doubt/);
  });

  it("stepper: commit: node lines fit 80 columns through a lesson-sized run", async () => {
    for (const adapter of [twoPcAdapter, threePcAdapter]) {
      const s = await Session.begin(adapter, { seed: 1, setup: [TXN] });
      for (let i = 0; i < 60 && (await s.forward()); i++) {
        if (i === 20) s.act({ kind: "client", client: "c2", op: "txn", key: "y", value: "22", noVoteFrom: ["p3"] });
        for (const line of nodeLines(s.frame(), 200)) expect(line.length, line).toBeLessThanOrEqual(80);
      }
    }
  });
});
