/**
 * The Paxos and Multi-Paxos stepping adapters: frames name the book's messages (prepare,
 * promise, accept, accepted…) with their ballots and values, and show each node's promised /
 * accepted proposal (Multi-Paxos: the leader, its log by slot, the key-value state); node
 * lines fit 80 columns; datagrams can be delivered out of order, dropped and duplicated;
 * stepping back re-executes to the same frame; a crashed acceptor shows what its disk holds;
 * bad client actions are refused in one line.
 */
import { describe, expect, it } from "vitest";
import { comparable, refused } from "../helpers/stepper.js";
import { Session } from "../../src/stepper/session.js";
import { ADAPTERS, adapterFor } from "../../src/stepper/adapters.js";
import { paxosAdapter } from "../../src/stepper/paxos/paxos-adapter.js";
import { multiPaxosAdapter } from "../../src/stepper/multipaxos/multipaxos-adapter.js";
import { whatIf } from "../../src/stepper/what-if.js";
import { nodeLines } from "../../src/tui/frame-text.js";
import type { Frame, NodeView, PendingEvent } from "../../src/stepper/types.js";

function node(f: Frame, id: string): NodeView {
  return f.nodes.find((n) => n.id === id)!;
}

function field(f: Frame, id: string, name: string): string | undefined {
  return node(f, id).fields.find(([k]) => k === name)?.[1];
}

function messages(f: Frame): Extract<PendingEvent, { kind: "message" }>[] {
  return f.pending.flatMap((p) => (p.kind === "message" ? [p] : []));
}

describe("stepper: Paxos and Multi-Paxos adapters", () => {
  it("stepper: paxos: paxos and multipaxos have adapters and are no longer planned", () => {
    expect(adapterFor("paxos").protocol).toBe("paxos");
    expect(adapterFor("multipaxos").protocol).toBe("multipaxos");
    expect([...ADAPTERS.keys()]).toContain("paxos");
    expect([...ADAPTERS.keys()]).toContain("multipaxos");
  });

  it("stepper: paxos: phase 1 and 2 in the book's names, each acceptor's promised and accepted proposal", async () => {
    const s = await Session.begin(paxosAdapter, { seed: 1 });
    expect(s.frame().pending.map((p) => (p.kind === "timer" ? `${p.node} ${p.book}` : ""))).toEqual(["p1 start: begin phase 1", "p2 start: begin phase 1"]);
    await s.runFor(3);
    expect(messages(s.frame()).map((m) => `${m.book} ${m.from}→${m.to} ${m.detail}`).sort()).toEqual(["prepare p1→a1 ballot 1", "prepare p1→a2 ballot 1", "prepare p1→a3 ballot 1"]);
    expect(node(s.frame(), "p1").fields).toEqual([["phase", "1 prepare"], ["ballot", "1"], ["promises", "0/2"]]);
    await s.runFor(20);
    const f = s.frame();
    for (const a of ["a1", "a2", "a3"]) expect([field(f, a, "promised"), field(f, a, "accepted")]).toEqual(["1", "[1, A]"]);
    expect(field(f, "p1", "chosen")).toBe("A");
    expect(field(f, "l1", "learned")).toBe("A");
    expect(f.verdicts.map((v) => [v.checker, v.ok])).toEqual([["paxos.agreement", true], ["paxos.validity", true], ["paxos.learned-chosen", true]]);
    for (const line of nodeLines(f, 200)) expect(line.length).toBeLessThanOrEqual(80);
  });

  it("stepper: paxos: any datagram can go next, be dropped or duplicated; back re-executes to the same frame", async () => {
    const s = await Session.begin(paxosAdapter, { seed: 1 });
    await s.runFor(3);
    const prepares = messages(s.frame());
    const last = prepares[prepares.length - 1]!;
    s.act({ kind: "deliver", msg: last.msg });
    await s.forward();
    expect(s.frame().recent.some((r) => r.event.kind === "deliver" && r.event.node === last.to)).toBe(true);
    s.act({ kind: "drop", msg: prepares[0]!.msg });
    s.act({ kind: "duplicate", msg: prepares[1]!.msg });
    expect(messages(s.frame()).filter((m) => m.msg === prepares[1]!.msg || m.book === "prepare").length).toBe(2);
    await s.forward();
    await s.forward();
    const here = comparable(s.frame());
    await s.forward();
    await s.back();
    expect(comparable(s.frame())).toEqual(here);
  });

  it("stepper: paxos: a crashed acceptor shows its disk; the twin promise-before-fsync shows memory ahead of the disk", async () => {
    const s = await Session.begin(paxosAdapter, { seed: 1 });
    await s.runFor(20);
    s.act({ kind: "fault", fault: { kind: "crash", node: "a2" } });
    expect(node(s.frame(), "a2").fields).toEqual([["disk: promised", "1"], ["disk: accepted", "[1, A]"]]);
    const twin = await Session.begin(paxosAdapter, { seed: 1, variant: "promise-before-fsync" });
    let ahead: string | undefined;
    while (ahead === undefined && (await twin.forward())) ahead = twin.frame().nodes.map((n) => n.fields.find(([k]) => k === "disk")?.[1]).find((v) => v !== undefined);
    expect(ahead).toBe("— —");
  });

  it("stepper: paxos: no clients (one clear refusal); what-if names the chosen majority", async () => {
    const s = await Session.begin(paxosAdapter, { seed: 1 });
    expect(refused(() => s.act({ kind: "client", client: "c1", op: "get", path: "/x" }))).toMatch(/^paxos has no clients \(asked for "c1"\): each proposer proposes its own value/);
    await s.runFor(13);
    const lines = await whatIf(s, { kind: "fault", fault: { kind: "crash", node: "p1" } }, 100);
    expect(lines).toContain("[1, A] is accepted by a1, a2, a3 — a majority: it is chosen, and any majority a later prepare reaches includes one of them");
    expect(lines).toContain("l1 has learned A 0.1 s later");
  });

  it("stepper: multipaxos: ready with one leader; a client's put is accepted and chosen in slot 0 by phase 2 only", async () => {
    const s = await Session.begin(multiPaxosAdapter, { seed: 1 });
    const f = s.frame();
    expect(f.nodes.map((n) => `${n.id} ${n.role}`)).toEqual(["r1 follower", "r2 follower", "r3 leader", "c1 client", "c2 client"]);
    expect(field(f, "r1", "leader")).toBe("r3");
    s.act({ kind: "client", client: "c1", op: "create", path: "/k", data: "a" });
    expect(refused(() => s.act({ kind: "client", client: "c1", op: "set", path: "/k", data: "b" }))).toMatch(/^c1 still waits for the answer to its last request/);
    expect(refused(() => s.act({ kind: "client", client: "c2", op: "delete", path: "/k" }))).toMatch(/no delete/);
    expect(refused(() => s.act({ kind: "client", client: "r1", op: "get", path: "/k" }))).toMatch(/^no client "r1"/);
    await s.runFor(30);
    const g = s.frame();
    for (const r of ["r1", "r2", "r3"]) expect([field(g, r, "log"), field(g, r, "kv")]).toEqual(["0:c1#1", "/k=a"]);
    expect(field(g, "c1", "ops")).toBe("put /k=a ok");
    expect(g.recent.some((r) => r.event.kind === "multipaxos.prepare" && r.event.atUs >= f.nowUs)).toBe(false);
    expect(g.verdicts.map((v) => [v.checker, v.ok])).toEqual([["multipaxos.slot-agreement", true], ["multipaxos.state-machine-safety", true], ["multipaxos.linearizable", true]]);
    for (const line of nodeLines(g, 200)) expect(line.length).toBeLessThanOrEqual(80);
    const here = comparable(g);
    await s.forward();
    await s.back();
    expect(comparable(s.frame())).toEqual(here);
  });

  it("stepper: multipaxos: what-if of a leader crash names the slot only it accepted and where leadership goes", async () => {
    const s = await Session.begin(multiPaxosAdapter, { seed: 1 });
    s.act({ kind: "client", client: "c1", op: "create", path: "/k", data: "a" });
    await s.runFor(16);
    for (const m of messages(s.frame()).filter((x) => x.book === "accept" && x.to !== "r3")) s.act({ kind: "drop", msg: m.msg });
    await s.runFor(3);
    const lines = await whatIf(s, { kind: "fault", fault: { kind: "crash", node: "r3" } }, 1_000);
    expect(lines).toContain("slot 0 (c1#1@3) is accepted only by r3: a new leader whose majority misses it fills the slot with a no-op");
    expect(lines.some((l) => /^leadership moves from r3 to r[12] \(ballot \d+\), after its phase 1$/.test(l))).toBe(true);
  });

  it("stepper: multipaxos: the no-lease twin's stale read turns linearizability ✗ live", async () => {
    const s = await Session.begin(multiPaxosAdapter, { seed: 1, variant: "no-lease" });
    s.act({ kind: "client", client: "c1", op: "create", path: "/k", data: "a" });
    await s.runFor(50);
    // The old leader keeps c1; the others elect a new leader, c2 writes there, c1 reads the old value.
    s.act({ kind: "fault", fault: { kind: "cut", from: ["r3"], to: ["r1", "r2", "c2"] } });
    await s.runFor(600);
    s.act({ kind: "client", client: "c2", op: "set", path: "/k", data: "b" });
    await s.runFor(400);
    s.act({ kind: "client", client: "c1", op: "get", path: "/k" });
    await s.runFor(100);
    const f = s.frame();
    expect(field(f, "c1", "ops")).toBe("put /k=a ok; get /k → a");
    expect(f.verdicts.find((v) => v.checker === "multipaxos.linearizable")).toMatchObject({ ok: false });
  });
});
