/**
 * The stepping interface: frames are a function of (seed, interventions, position); stepping
 * back re-executes to the same frame; acting in the past opens a branch and keeps the old
 * future; TCP's rules (head only, no drop, no duplicate) and datagrams' (any order, drop,
 * duplicate) hold; a saved session re-opens at the same frame; a what-if preview leaves the
 * live run untouched. Exercised on ZAB and on a small datagram protocol written here as its
 * own adapter — the shape every teaching protocol will have.
 */
import { describe, expect, it } from "vitest";
import { Simulator } from "../../src/sim/simulator.js";
import type { NodeContext } from "../../src/sim/node-context.js";
import { comparable, refused } from "../helpers/stepper.js";
import { Session } from "../../src/stepper/session.js";
import { zabAdapter } from "../../src/stepper/zab/zab-adapter.js";
import { whatIf } from "../../src/stepper/what-if.js";
import type { Action, Frame, ProtocolAdapter, World } from "../../src/stepper/types.js";

// ---- a tiny datagram protocol: each node pings the next, every ping is answered ----------------

declare module "../../src/sim/trace-schema.js" {
  interface TraceAnnotations {
    "ping.got": { kind: string; from: string };
  }
}

class Pinger {
  pongs = 0;
  constructor(readonly ctx: NodeContext, readonly next: string) {
    ctx.setTimerMs(10, () => ctx.send(next, { kind: "PING", n: 1 }), "ping");
  }
  onDatagram(from: string, m: { kind: string; n: number }): void {
    if (m.kind === "PING") this.ctx.send(from, { kind: "PONG", n: m.n });
    else if (++this.pongs < 20) this.ctx.send(from, { kind: "PING", n: m.n + 1 });
    this.ctx.annotate("ping.got", { kind: m.kind, from });
  }
  inspect(): Record<string, string> {
    return { pongs: String(this.pongs) };
  }
}

interface PingWorld extends World {
  ids: string[];
}

const pingAdapter: ProtocolAdapter<PingWorld> = {
  protocol: "ping",
  title: "ping over datagrams",
  variants: ["default"],
  build(seed) {
    const sim = new Simulator({ seed });
    const ids = ["n1", "n2", "n3"];
    ids.forEach((id, i) => sim.addNode(id, (ctx) => new Pinger(ctx, ids[(i + 1) % ids.length]!)));
    for (const id of ids) sim.start(id);
    return { sim, ids, liveCheckers: [] };
  },
  ready: (w) => w.sim.nowUs >= 10_000,
  bookName: (m) => ({ book: m.type, detail: "" }),
  timerName: (label) => label,
  bookOfType: (type) => type,
  nodeViews: (w) => w.ids.map((id) => ({ id, status: w.sim.node(id).status, role: "pinger", fields: Object.entries((w.sim.node(id).process as unknown as Pinger | undefined)?.inspect() ?? {}) })),
  narrate: (e) => (e.kind === "ping.got" ? `${e.node} got ${String(e.fields?.kind)}` : undefined),
  clientAction: () => {
    throw new Error("no clients");
  },
};

function pendingMessages(f: Frame) {
  return f.pending.flatMap((p) => (p.kind === "message" ? [p] : []));
}

describe("stepper: a datagram protocol through its own adapter", () => {
  it("stepper: datagrams can be delivered in any order, dropped and duplicated", async () => {
    const s = await Session.begin(pingAdapter, { seed: 3 });
    await s.forward();
    await s.forward();
    const msgs = pendingMessages(s.frame());
    expect(msgs.length).toBeGreaterThanOrEqual(2);
    const last = msgs[msgs.length - 1]!;
    s.act({ kind: "deliver", msg: last.msg });
    await s.forward();
    const delivered = s.frame().recent.find((r) => r.event.kind === "deliver" && r.event.id === last.msg);
    expect(delivered).toBeDefined();
    const victim = pendingMessages(s.frame())[0]!;
    s.act({ kind: "drop", msg: victim.msg });
    expect(pendingMessages(s.frame()).some((m) => m.msg === victim.msg)).toBe(false);
    expect(s.frame().recent.some((r) => r.event.kind === "drop" && r.event.id === victim.msg && r.event.detail === "injected")).toBe(true);
    const twin = pendingMessages(s.frame())[0]!;
    s.act({ kind: "duplicate", msg: twin.msg });
    expect(pendingMessages(s.frame()).filter((m) => m.msg === twin.msg)).toHaveLength(2);
  });

  it("stepper: back re-executes to the frame the step had, interventions included", async () => {
    const s = await Session.begin(pingAdapter, { seed: 5 });
    await s.forward();
    const m = pendingMessages(s.frame())[0]!;
    s.act({ kind: "drop", msg: m.msg });
    const frames: Frame[] = [s.frame()];
    while (frames.length < 7 && (await s.forward())) frames.push(s.frame());
    expect(frames).toHaveLength(7);
    for (let i = 5; i >= 0; i--) {
      await s.back();
      expect(comparable(s.frame())).toEqual(comparable(frames[i]!));
    }
  });
});

describe("stepper: ZAB", () => {
  it("stepper: ZAB: the same seed and interventions give the same frames; back equals a fresh re-execution", async () => {
    const script: Action[] = [{ kind: "client", client: "c1", op: "create", path: "/a", data: "1" }];
    const a = await Session.begin(zabAdapter, { seed: 7, setup: script });
    const b = await Session.begin(zabAdapter, { seed: 7, setup: script });
    for (let i = 0; i < 12; i++) {
      await a.forward();
      await b.forward();
    }
    expect(comparable(a.frame())).toEqual(comparable(b.frame()));
    const at8 = (await (async () => {
      const c = await Session.begin(zabAdapter, { seed: 7, setup: script });
      for (let i = 0; i < 8; i++) await c.forward();
      return c.frame();
    })());
    for (let i = 0; i < 4; i++) await a.back();
    expect(a.step).toBe(8);
    expect(comparable(a.frame())).toEqual(comparable(at8));
    expect(a.reexecutions).toBe(4);
  });

  it("stepper: ZAB: a connection delivers its head only, and never drops or duplicates one segment", async () => {
    const s = await Session.begin(zabAdapter, { seed: 1 });
    s.act({ kind: "client", client: "c1", op: "create", path: "/a", data: "1" });
    s.act({ kind: "client", client: "c1", op: "create", path: "/b", data: "2" });
    const f = s.frame();
    const onConn = pendingMessages(f).filter((m) => m.channel === "connection");
    const behind = onConn.find((m) => !m.head);
    expect(behind, "two requests on one connection: the second is behind the first").toBeDefined();
    expect(refused(() => s.act({ kind: "deliver", msg: behind!.msg }))).toMatch(/not the head of its connection: TCP delivers in order/);
    expect(refused(() => s.act({ kind: "drop", msg: onConn[0]!.msg }))).toMatch(/connection \(TCP\).*never lost alone/);
    expect(refused(() => s.act({ kind: "duplicate", msg: onConn[0]!.msg }))).toMatch(/never duplicated alone/);
    expect(s.branch.interventions).toHaveLength(2); // refusals change nothing
    const head = onConn.find((m) => m.head)!;
    s.act({ kind: "delay", msg: head.msg, delayMs: 50 });
    const after = pendingMessages(s.frame()).find((m) => m.msg === head.msg)!;
    expect(after.atUs).toBe(head.atUs + 50_000);
  });

  it("stepper: ZAB: acting in the past opens a branch and keeps the old future", async () => {
    const s = await Session.begin(zabAdapter, { seed: 1 });
    for (let i = 0; i < 6; i++) await s.forward();
    const oldEnd = s.frame();
    await s.back();
    await s.back();
    s.act({ kind: "fault", fault: { kind: "crash", node: "s1" } });
    expect(s.branches).toHaveLength(2);
    expect(s.frame().branch).toBe(1);
    expect(s.branch.marks).toHaveLength(s.startStep + 5); // the ready steps, the start, 4 steps after it
    await s.switchBranch(0);
    expect(comparable(s.frame())).toEqual(comparable({ ...oldEnd, branches: 2 }));
  });

  it("stepper: ZAB: a saved session re-opens at the same frame", async () => {
    const s = await Session.begin(zabAdapter, { seed: 2 });
    s.act({ kind: "fault", fault: { kind: "crash", node: "s2" } });
    for (let i = 0; i < 5; i++) await s.forward();
    await s.back();
    const file = JSON.parse(JSON.stringify(s.save()));
    const t = await Session.open(zabAdapter, file);
    expect(comparable(t.frame())).toEqual(comparable(s.frame()));
  });

  it("stepper: ZAB: the what-if preview names the new leader and leaves the live run untouched", async () => {
    const s = await Session.begin(zabAdapter, { seed: 1 });
    const before = comparable(s.frame());
    const leader = s.frame().nodes.find((n) => n.role === "leader")!.id;
    const lines = await whatIf(s, { kind: "fault", fault: { kind: "crash", node: leader } });
    expect(lines.some((l) => /^leadership moves from s\d to s\d/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith("✓ no committed txn is lost"))).toBe(true);
    expect(comparable(s.frame())).toEqual(before);
  });

  it("stepper: ZAB: the minority-commit canary breaks an invariant the panel names", async () => {
    const s = await Session.begin(zabAdapter, { seed: 1, variant: "minority-commit" });
    s.act({ kind: "fault", fault: { kind: "crash", node: "s1" } });
    s.act({ kind: "fault", fault: { kind: "crash", node: "s2" } });
    s.act({ kind: "client", client: "c1", op: "create", path: "/x", data: "1" });
    await s.runFor(500);
    s.act({ kind: "fault", fault: { kind: "crash", node: "s3" } });
    s.act({ kind: "fault", fault: { kind: "start", node: "s1" } });
    s.act({ kind: "fault", fault: { kind: "start", node: "s2" } });
    await s.runFor(8000);
    const bad = s.frame().verdicts.filter((v) => !v.ok).map((v) => v.checker);
    expect(bad.length).toBeGreaterThan(0);
  });
});

describe("stepper: prepared step back", () => {
  it("stepper: ZAB: a step back prepared ahead is a swap and gives the same frame as a re-execution", async () => {
    const a = await Session.begin(zabAdapter, { seed: 4 });
    const b = await Session.begin(zabAdapter, { seed: 4 });
    for (let i = 0; i < 6; i++) {
      await a.forward();
      await b.forward();
    }
    await a.prepareBack();
    const before = a.reexecutions;
    await a.back();
    await b.back();
    expect(a.reexecutions).toBe(before);
    expect(comparable(a.frame())).toEqual(comparable(b.frame()));
    a.act({ kind: "fault", fault: { kind: "crash", node: "s1" } }); // in the past: a new branch
    await a.prepareBack();
    await a.back();
    expect(a.step).toBe(4);
    expect(a.frame().nodes.find((n) => n.id === "s1")!.status).toBe("up");
  });
});

describe("stepper: the run is recorded from its first event", () => {
  it("stepper: back goes before the lesson's start, into the election, and forward returns to the same start frame", async () => {
    const setup: Action[] = [{ kind: "fault", fault: { kind: "crash", node: "s1" } }];
    const s = await Session.begin(zabAdapter, { seed: 1, setup });
    const start = s.frame();
    expect(start.step).toBe(0);
    expect(s.startPosition).toBe(start.position);
    expect(s.startStep).toBeGreaterThan(20); // the election and the clients' sessions took that many steps
    await s.back();
    expect(s.step).toBe(-1);
    expect(s.frame().nodes.find((n) => n.id === "s1")!.status).toBe("up"); // the setup's crash is at the start, not before
    await s.goto(-s.startStep);
    expect(s.frame().position).toBe(0);
    expect(await s.back()).toBe(false);
    expect(s.frame().nodes.filter((n) => n.role === "leader")).toHaveLength(0);
    await s.goto(0);
    expect(comparable(s.frame())).toEqual(comparable(start));
  });

  it("stepper: acting before the start opens a branch without the lesson's setup; the start's branch is kept", async () => {
    const setup: Action[] = [{ kind: "fault", fault: { kind: "crash", node: "s1" } }];
    const s = await Session.begin(zabAdapter, { seed: 1, setup });
    await s.goto(-5);
    s.act({ kind: "fault", fault: { kind: "crash", node: "s2" } });
    expect(s.branches).toHaveLength(2);
    expect(s.branch.interventions.map((i) => i.action)).toEqual([{ kind: "fault", fault: { kind: "crash", node: "s2" } }]);
    expect(s.frame().step).toBe(-5);
    await s.switchBranch(0);
    expect(s.frame().step).toBe(0);
    expect(s.frame().nodes.find((n) => n.id === "s1")!.status).toBe("down");
  });

  it("stepper: a saved session re-opens at a step before the start", async () => {
    const s = await Session.begin(zabAdapter, { seed: 1 });
    await s.goto(-7);
    const file = s.save();
    const t = await Session.open(zabAdapter, file);
    expect(t.step).toBe(-7);
    expect(comparable(t.frame())).toEqual(comparable(s.frame()));
  });
});
