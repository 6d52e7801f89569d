import { describe, expect, it } from "vitest";
import { asEvent, type LooseEvent } from "../helpers/loose-events.js";
import { runCheckers, type Checker } from "../../src/check/checker.js";
import { LockFencingChecker, LockMutexChecker } from "../../src/check/recipes/lock.js";
import { ElectionChecker } from "../../src/check/recipes/election.js";
import { CounterChecker } from "../../src/check/recipes/counter.js";
import { QueueChecker } from "../../src/check/recipes/queue.js";
import { PriorityOrderChecker } from "../../src/check/recipes/priority-queue.js";
import { BarrierChecker, BarrierPollingChecker } from "../../src/check/recipes/barrier.js";
import { TwoPhaseCommitChecker } from "../../src/check/recipes/two-phase-commit.js";
import { ReadWriteLockChecker } from "../../src/check/recipes/rw-lock.js";
import { RevocationChecker } from "../../src/check/recipes/revocation.js";
import { RECIPE_CHECKERS } from "../../src/check/recipes/index.js";

type Ev = [atMs: number, kind: string, fields?: Record<string, unknown>, node?: string];

/** Feeds a hand-written trace to a checker; returns the violation messages. */
function run(checker: Checker, events: Ev[]): string[] {
  const trace = events.map(([atMs, kind, fields, node], index) => {
    const e: LooseEvent = { index, atUs: atMs * 1000, kind, node: node ?? String(fields?.client ?? "") };
    if (fields !== undefined) e.fields = fields;
    return asEvent(e);
  });
  return runCheckers([checker], trace).map((v) => v.message);
}

const lock = (atMs: number, client: string, session: string, event: string, token?: number): Ev => [atMs, "recipe.lock", { lock: "/l", client, session, event, token }];
// The server writes every apply's zxid; one above every reply zxid of these traces, so no client has seen the end.
const closed = (atMs: number, session: string): Ev => [atMs, "zk.apply", { op: "closeSession", session, zxid: "0x7fffffffffffffff" }, "s1"];

describe("recipes: checkers on hand-written traces", () => {
  it("every checker is exported by name", () => {
    expect([...RECIPE_CHECKERS.keys()]).toEqual(expect.arrayContaining(["recipe.lock-mutex", "recipe.lock-herd", "recipe.lock-fencing", "recipe.election", "recipe.counter", "recipe.queue", "recipe.priority-queue", "recipe.barrier", "recipe.barrier-polling", "recipe.2pc", "recipe.rwlock", "recipe.revocation"]));
    for (const [name, make] of RECIPE_CHECKERS) expect(make().name).toBe(name);
  });

  it("lock-mutex: two live holders are caught; a holder's hold ends with its session or its crash", () => {
    expect(run(new LockMutexChecker(), [lock(1, "c1", "0x1", "acquired", 1), lock(2, "c2", "0x2", "acquired", 2)])[0]).toMatch(/more than one at a time/);
    expect(run(new LockMutexChecker(), [lock(1, "c1", "0x1", "acquired", 1), closed(5, "0x1"), lock(6, "c2", "0x2", "acquired", 2)])).toEqual([]);
    expect(run(new LockMutexChecker(), [lock(1, "c1", "0x1", "acquired", 1), [3, "crash", undefined, "c1"], lock(6, "c2", "0x2", "acquired", 2)])).toEqual([]);
    expect(run(new LockMutexChecker(), [lock(1, "c1", "0x1", "acquired", 5), lock(2, "c1", "0x1", "released", 5), lock(3, "c2", "0x2", "acquired", 4)])[0]).toMatch(/tokens must grow/);
  });

  it("lock-mutex: waiters with live sessions and nobody holding, in a quiet run, are a stuck lock", () => {
    const msgs = run(new LockMutexChecker(1000), [lock(1, "c1", "0x1", "waiting"), lock(2, "c2", "0x2", "waiting"), [5000, "ping", {}, "s1"]]);
    expect(msgs[0]).toMatch(/stuck/);
    expect(run(new LockMutexChecker(1000), [lock(1, "c1", "0x1", "waiting"), closed(2, "0x1"), [5000, "ping", {}, "s1"]])).toEqual([]);
  });

  it("lock-fencing: accepted tokens never go back; a stale unfenced write after a newer grant is caught", () => {
    const res = (atMs: number, client: string, token: number, outcome: string, fenced = true, zxid?: string): Ev => [atMs, "recipe.resource", { resource: "/r", client, token, outcome, fenced, zxid }];
    expect(run(new LockFencingChecker(), [lock(1, "c1", "0x1", "acquired", 1), res(2, "c1", 1, "begin"), lock(3, "c2", "0x2", "acquired", 2), res(4, "c1", 1, "accepted")])).toEqual([]);
    // A stale holder's fenced write before the next holder's first write is accepted, and ordered before it (recipe-lock --generate seed 1030).
    const staleFirst = [lock(1, "c1", "0x1", "acquired", 1), lock(3, "c2", "0x2", "acquired", 2), res(4, "c1", 1, "begin"), res(5, "c1", 1, "accepted"), res(6, "c2", 2, "begin"), res(7, "c2", 2, "accepted")];
    expect(run(new LockFencingChecker(), staleFirst)).toEqual([]);
    // After the next holder's write, it goes back in token order.
    const staleAfter = [lock(1, "c1", "0x1", "acquired", 1), lock(3, "c2", "0x2", "acquired", 2), res(4, "c2", 2, "begin"), res(5, "c2", 2, "accepted"), res(6, "c1", 1, "begin"), res(7, "c1", 1, "accepted")];
    expect(run(new LockFencingChecker(), staleAfter)[0]).toMatch(/accepted token 1 from c1 after accepting token 2 from c2: writes went back in token order/);
    // Judged by where the writes took effect: c1's write landed first (0x10) but its reply was
    // lost, and c1 learned it only after c2's (0x11) was accepted (recipe-lock --generate seed 3262).
    const learnedLate = [res(1, "c1", 1, "begin"), res(2, "c2", 2, "begin"), res(3, "c2", 2, "accepted", true, "0x11"), res(4, "c1", 1, "accepted", true, "0x10")];
    expect(run(new LockFencingChecker(), learnedLate)).toEqual([]);
    const landedLate = [res(1, "c1", 1, "begin"), res(2, "c2", 2, "begin"), res(3, "c2", 2, "accepted", true, "0x10"), res(4, "c1", 1, "accepted", true, "0x11")];
    expect(run(new LockFencingChecker(), landedLate)[0]).toMatch(/accepted token 1 from c1 after accepting token 2 from c2: writes went back in token order \(0x11 after 0x10\)/);
    // Unfenced, the stale write is a violation whichever lands first.
    const unfenced = [lock(1, "c1", "0x1", "acquired", 1), lock(3, "c2", "0x2", "acquired", 2), res(4, "c1", 1, "begin", false), res(5, "c1", 1, "accepted", false)];
    expect(run(new LockFencingChecker(), unfenced)[0]).toMatch(/stale unfenced write from c1 with token 1, though token 2 had been granted/);
    expect(run(new LockFencingChecker(), [lock(3, "c2", "0x2", "acquired", 2), res(4, "c1", 1, "begin"), res(5, "c1", 1, "rejected")])).toEqual([]);
  });

  it("config: a watch loop stopped well after the last write and the last fault must have seen it", async () => {
    const { ConfigChecker, CONFIG_CONVERGE_MS } = await import("../../src/check/recipes/services.js");
    const cfg = (atMs: number, client: string, event: string, value: string | null): Ev => [atMs, "recipe.config", { config: "/cfg", client, session: "0x1", event, value }, client];
    const late = CONFIG_CONVERGE_MS + 1000;
    expect(run(new ConfigChecker(), [cfg(1, "c1", "write", "v1"), cfg(2, "c2", "seen", "v1"), cfg(3, "c1", "write", "v2"), cfg(4, "c2", "seen", "v2"), cfg(late, "c2", "stopped", "v2")])).toEqual([]);
    expect(run(new ConfigChecker(), [cfg(1, "c1", "write", "v1"), cfg(2, "c2", "seen", "v1"), cfg(3, "c1", "write", "v2"), cfg(late, "c2", "stopped", "v1")])[0]).toMatch(/stopped at v1, .* after the last write \(v2\).*converge/);
    // Too soon after the last write, or after a fault, it is not judged.
    expect(run(new ConfigChecker(), [cfg(1, "c1", "write", "v1"), cfg(3, "c1", "write", "v2"), cfg(100, "c2", "stopped", "v1")])).toEqual([]);
    expect(run(new ConfigChecker(), [cfg(1, "c1", "write", "v1"), cfg(3, "c1", "write", "v2"), [late - 100, "heal", {}, ""], cfg(late, "c2", "stopped", "v1")])).toEqual([]);
  });

  it("config: a write whose outcome never came may be the last one (recipe-config --generate seed 5442)", async () => {
    const { ConfigChecker, CONFIG_CONVERGE_MS } = await import("../../src/check/recipes/services.js");
    const cfg = (atMs: number, client: string, event: string, value: string | null, fresh?: boolean): Ev => [atMs, "recipe.config", { config: "/cfg", client, session: "0x1", event, value, fresh }, client];
    const late = CONFIG_CONVERGE_MS + 1000;
    // v2 began, its session died in flight, and it landed: readers see v2.
    const landed = [cfg(1, "c1", "write-begin", "v1"), cfg(2, "c1", "write", "v1"), cfg(3, "c1", "write-begin", "v2"), cfg(20, "c2", "seen", "v2", true), cfg(late, "c2", "stopped", "v2")];
    expect(run(new ConfigChecker(), landed)).toEqual([]);
    // Or it did not: v1 is right too.
    expect(run(new ConfigChecker(), [...landed.slice(0, 3), cfg(20, "c2", "seen", "v1", true)])).toEqual([]);
    // A value nobody began to write is wrong, and so is an unknown write older than an acknowledged one.
    expect(run(new ConfigChecker(), [...landed.slice(0, 3), cfg(20, "c2", "seen", "v3", true)])[0]).toMatch(/fresh read of \/cfg at c2 returned v3, but the last write was v1/);
    const superseded = [cfg(1, "c1", "write-begin", "v1"), cfg(2, "c1", "write-begin", "v2"), cfg(3, "c1", "write", "v2"), cfg(20, "c2", "seen", "v1", true)];
    expect(run(new ConfigChecker(), superseded)[0]).toMatch(/returned v1, but the last write was v2/);
  });

  it("naming: a request with two names, assigned or found in a fresh listing of the directory, is caught", async () => {
    const { NamingChecker } = await import("../../src/check/recipes/services.js");
    const assigned = (atMs: number, name: string, tag: string): Ev => [atMs, "recipe.naming", { dir: "/n", client: "c1", session: "0x1", event: "assigned", name, tag }];
    const listed = (atMs: number, names: string[]): Ev => [atMs, "recipe.naming", { dir: "/n", client: "c1", session: "0x1", event: "listed", names }];
    const ok = [assigned(1, "job-0x1.1-0000000000", "job-0x1.1-"), assigned(2, "job-0x1.2-0000000001", "job-0x1.2-")];
    expect(run(new NamingChecker(), [...ok, listed(9, ["job-0x1.1-0000000000", "job-0x1.2-0000000001"])])).toEqual([]);
    expect(run(new NamingChecker(), [...ok, assigned(3, "job-0x1.2-0000000002", "job-0x1.2-")])[0]).toMatch(/request \/n\/job-0x1.2- got two names/);
    const leaked = run(new NamingChecker(), [...ok, listed(9, ["job-0x1.1-0000000000", "job-0x1.2-0000000001", "job-0x1.2-0000000003"])]);
    expect(leaked).toEqual(["request /n/job-0x1.2- holds 2 names in the directory (job-0x1.2-0000000001, job-0x1.2-0000000003); only /n/job-0x1.2-0000000001 was assigned, job-0x1.2-0000000003 leaked"]);
  });

  it("group: a fresh view must not list a member whose session ended; one whose client was told it expired may be listed until its close is applied", async () => {
    const { GroupChecker } = await import("../../src/check/recipes/services.js");
    const g = (atMs: number, client: string, session: string, f: Record<string, unknown>): Ev => [atMs, "recipe.group", { group: "/g", client, session, ...f }, client];
    const joined = [g(1, "c2", "0x2", { event: "joined", member: "c2" }), g(2, "c3", "0x3", { event: "joined", member: "c3" })];
    const fresh = (atMs: number, members: string[]) => g(atMs, "c1", "0x1", { event: "view", members, fresh: true });
    expect(run(new GroupChecker(), [...joined, fresh(9, ["c2", "c3"])])).toEqual([]);
    expect(run(new GroupChecker(), [...joined, closed(5, "0x3"), fresh(9, ["c2", "c3"])])[0]).toMatch(/expected the live members \[c2\]/);
    const told: Ev = [5, "client.state", { client: "c3", state: "CLOSED", session: "0x3", cause: "expired" }, "c3"];
    // recipe-group-membership --generate seed 10868: a resumed stale leader told c3 Expired; its node stayed until the new leader's close.
    expect(run(new GroupChecker(), [...joined, told, fresh(9, ["c2", "c3"])])).toEqual([]);
    expect(run(new GroupChecker(), [...joined, told, fresh(9, ["c2"])])).toEqual([]);
    expect(run(new GroupChecker(), [...joined, told, closed(7, "0x3"), fresh(9, ["c2", "c3"])])[0]).toMatch(/is \[c2, c3\], expected the live members \[c2\]/);
    expect(run(new GroupChecker(), [...joined, told, fresh(9, [])])[0]).toMatch(/expected the live members \[c2\]/);
  });

  it("barrier-polling: a waiter re-reads the barrier only after a watch event, a connection change or a failed read", () => {
    const b = (atMs: number, event: string): Ev => [atMs, "recipe.barrier", { barrier: "/b", client: "c1", session: "0x1", event }, "c1"];
    const read = (atMs: number, opId: number): Ev => [atMs, "client.invoke", { client: "c1", opId, op: "exists", path: "/b", watch: true }, "c1"];
    const done = (atMs: number, opId: number, outcome: string): Ev => [atMs, "client.complete", { client: "c1", opId, outcome }, "c1"];
    const fired: Ev = [5, "client.watch", { client: "c1", type: "NodeDeleted", path: "/b" }, "c1"];
    // The recipe: read, wait for the watch, read again, pass.
    expect(run(new BarrierPollingChecker(), [b(1, "wait"), read(2, 1), done(3, 1, "ok"), fired, read(6, 2), done(7, 2, "ok"), b(8, "passed")])).toEqual([]);
    // A retry after CONNECTIONLOSS, and a re-read after a disconnect, are prompted.
    expect(run(new BarrierPollingChecker(), [b(1, "wait"), read(2, 1), done(3, 1, "unknown"), read(4, 2), done(5, 2, "ok"), [6, "client.state", { client: "c1", state: "DISCONNECTED" }, "c1"], read(7, 3), done(8, 3, "ok"), b(9, "passed")])).toEqual([]);
    // Polling: re-reads with nothing before them.
    const polled = run(new BarrierPollingChecker(), [b(1, "wait"), read(2, 1), done(3, 1, "ok"), read(50, 2), done(51, 2, "ok"), read(100, 3), done(101, 3, "ok"), b(102, "passed")]);
    expect(polled).toHaveLength(1);
    expect(polled[0]).toMatch(/c1 polled barrier \/b: 2 reads/);
  });

  it("election: two leaders at once are caught; a suspended leader has stepped down", () => {
    const el = (atMs: number, client: string, session: string, event: string): Ev => [atMs, "recipe.election", { election: "/e", client, session, event }];
    expect(run(new ElectionChecker(), [el(1, "c1", "0x1", "elected"), el(2, "c2", "0x2", "elected")])[0]).toMatch(/more than one at a time/);
    expect(run(new ElectionChecker(), [el(1, "c1", "0x1", "elected"), el(2, "c1", "0x1", "suspended"), closed(3, "0x1"), el(4, "c2", "0x2", "elected")])).toEqual([]);
  });

  it("counter: a doubled increment, a lost one and a lost update are caught; unknown outcomes are allowed", () => {
    const inc = (atMs: number, client: string, n: number, outcome: string, value?: number): Ev => [atMs, "recipe.counter", { counter: "/c", client, n, event: "increment", outcome, value }];
    const final = (atMs: number, value: number): Ev => [atMs, "recipe.counter", { counter: "/c", client: "c9", event: "final", value }];
    expect(run(new CounterChecker(), [inc(1, "c1", 1, "ok", 1), inc(2, "c2", 1, "unknown"), final(3, 2)])).toEqual([]);
    expect(run(new CounterChecker(), [inc(1, "c1", 1, "ok", 1), final(3, 2)])[0]).toMatch(/applied twice/);
    expect(run(new CounterChecker(), [inc(1, "c1", 1, "ok", 1), inc(2, "c2", 1, "ok", 2), final(3, 1)]).join()).toMatch(/was lost/);
    expect(run(new CounterChecker(), [inc(1, "c1", 1, "ok", 1), inc(2, "c2", 1, "ok", 1)])[0]).toMatch(/lost update/);
    // A settled increment was announced unknown first, and is settled once.
    expect(run(new CounterChecker(), [inc(1, "c2", 1, "unknown"), inc(2, "c2", 1, "resolved-ok"), inc(3, "c1", 1, "unknown"), inc(4, "c1", 1, "resolved-none"), final(5, 1)])).toEqual([]);
    expect(run(new CounterChecker(), [inc(1, "c1", 1, "ok", 1), inc(2, "c2", 1, "resolved-ok"), final(3, 2)])[0]).toMatch(/c2#1 is settled, but its outcome was never announced unknown/);
    expect(run(new CounterChecker(), [inc(1, "c2", 1, "unknown"), inc(2, "c2", 1, "resolved-none"), inc(3, "c2", 1, "resolved-none"), final(4, 0)])[0]).toMatch(/never announced unknown/);
  });

  it("queue: double delivery, loss after the drain and FIFO order are checked against the declared guarantee", () => {
    const q = (atMs: number, client: string, f: Record<string, unknown>): Ev => [atMs, "recipe.queue", { queue: "/q", client, session: `s-${client}`, ...f }];
    const offer = (atMs: number, item: string, seq: number): Ev => q(atMs, "c1", { event: "offer", item, node: `qn-${item}-${seq}`, seq, outcome: "ok", delivery: "at-least-once" });
    const take = (atMs: number, client: string, item: string, seq: number, delivery: string, unsure = false): Ev => q(atMs, client, { event: "take", item, node: `qn-${item}-${seq}`, seq, delivery, unsure });
    expect(run(new QueueChecker(), [offer(1, "a", 1), take(2, "c3", "a", 1, "at-least-once", true), take(3, "c4", "a", 1, "at-least-once")])).toEqual([]);
    expect(run(new QueueChecker(), [offer(1, "a", 1), take(2, "c3", "a", 1, "at-most-once"), take(3, "c4", "a", 1, "at-most-once")])[0]).toMatch(/delivered twice/);
    expect(run(new QueueChecker(), [offer(1, "a", 1), offer(2, "b", 2), take(3, "c3", "a", 1, "at-least-once"), q(4, "c3", { event: "drained" })])[0]).toMatch(/never taken: b/);
    expect(run(new QueueChecker(), [offer(1, "a", 1), offer(2, "b", 2), take(3, "c3", "b", 2, "at-least-once"), take(4, "c3", "a", 1, "at-least-once")])[0]).toMatch(/FIFO order/);
    expect(run(new QueueChecker(), [take(3, "c3", "zz", 9, "at-least-once")])[0]).toMatch(/ever offered/);
    // A producer whose node crashed with the item's create sent cannot annotate the offer; the
    // node may exist (recipe-queue --generate seeds 10987, 11207; recipe-queue-priority 10472, 11807).
    const create = (atMs: number, path: string): Ev => [atMs, "client.invoke", { client: "c1", session: "s-c1", opId: 1, op: "create", path, mode: 2 }, "c1"];
    const crash: Ev = [2, "crash", undefined, "c1"];
    expect(run(new QueueChecker(), [create(1, "/q/qn-zz-"), crash, take(3, "c3", "zz", 9, "at-least-once")])).toEqual([]);
    expect(run(new QueueChecker(), [create(1, "/q/qn-04-zz-"), crash, take(3, "c3", "zz", 9, "at-least-once")])).toEqual([]);
    // No crash, a crash before the create, another queue's or another item's create: a phantom still.
    expect(run(new QueueChecker(), [create(1, "/q/qn-zz-"), take(3, "c3", "zz", 9, "at-least-once")])[0]).toMatch(/c3 took item zz from \/q, but no producer ever offered item zz/);
    expect(run(new QueueChecker(), [[0, "crash", undefined, "c1"], create(1, "/q/qn-zz-"), take(3, "c3", "zz", 9, "at-least-once")])[0]).toMatch(/ever offered item zz/);
    expect(run(new QueueChecker(), [create(1, "/other/qn-zz-"), crash, take(3, "c3", "zz", 9, "at-least-once")])[0]).toMatch(/ever offered item zz/);
    expect(run(new QueueChecker(), [create(1, "/q/qn-zy-"), crash, take(3, "c3", "zz", 9, "at-least-once")])[0]).toMatch(/ever offered item zz/);
  });

  it("priority-queue: a take is judged against the offers acknowledged before the consumer's sync and not yet being deleted when its list came", () => {
    const q = (atMs: number, client: string, f: Record<string, unknown>): Ev => [atMs, "recipe.queue", { queue: "/q", client, session: `s-${client}`, delivery: "at-most-once", ...f }];
    const offer = (atMs: number, node: string, priority: number): Ev => q(atMs, "c1", { event: "offer", item: node, node, priority, outcome: "ok" });
    const take = (atMs: number, node: string, priority: number): Ev => q(atMs, "c3", { event: "take", item: node, node, priority, unsure: false });
    const op = (atMs: number, client: string, opId: number, op: string, path: string): Ev[] => [
      [atMs, "client.invoke", { client, session: `s-${client}`, opId, op, path }, client],
      [atMs + 1, "client.complete", { client, session: `s-${client}`, opId, outcome: "ok" }, client],
    ];
    const sync = (atMs: number, opId: number) => op(atMs, "c3", opId, "sync", "/q");
    const list = (atMs: number, opId: number) => op(atMs, "c3", opId, "getChildren", "/q");
    const del = (atMs: number, client: string, opId: number, node: string) => op(atMs, client, opId, "delete", `/q/${node}`);
    // Two items acknowledged before the consumer syncs and lists: the urgent one must go first.
    const backlog = [offer(1, "qn-03-a-0000000000", 3), offer(2, "qn-01-b-0000000001", 1), ...sync(10, 1), ...list(12, 2)];
    expect(run(new PriorityOrderChecker(), [...backlog, ...del(20, "c3", 3, "qn-01-b-0000000001"), take(22, "qn-01-b-0000000001", 1), ...sync(30, 4), ...list(32, 5), ...del(40, "c3", 6, "qn-03-a-0000000000"), take(42, "qn-03-a-0000000000", 3)])).toEqual([]);
    const wrong = run(new PriorityOrderChecker(), [...backlog, ...del(20, "c3", 3, "qn-03-a-0000000000"), take(22, "qn-03-a-0000000000", 3)]);
    expect(wrong).toHaveLength(1);
    expect(wrong[0]).toMatch(/priority order broken on \/q: c3 took qn-03-a-0000000000 \(priority 3\) .* while qn-01-b-0000000001 \(priority 1\), acknowledged at event #1 before that consumer's sync/);
    // Acknowledged only after the consumer's sync: the consumer's server need not show it yet.
    expect(run(new PriorityOrderChecker(), [offer(1, "qn-03-a-0000000000", 3), ...sync(10, 1), offer(11, "qn-01-b-0000000001", 1), ...list(12, 2), take(22, "qn-03-a-0000000000", 3)])).toEqual([]);
    // Another consumer began deleting the urgent item before the list came (its outcome unknown): it may be gone.
    expect(run(new PriorityOrderChecker(), [offer(1, "qn-03-a-0000000000", 3), offer(2, "qn-01-b-0000000001", 1), ...sync(10, 1), [11, "client.invoke", { client: "c4", session: "s-c4", opId: 1, op: "delete", path: "/q/qn-01-b-0000000001" }, "c4"], ...list(12, 2), take(22, "qn-03-a-0000000000", 3)])).toEqual([]);
    // A list read without a sync before it in its session is owed nothing across clients.
    expect(run(new PriorityOrderChecker(), [offer(1, "qn-03-a-0000000000", 3), offer(2, "qn-01-b-0000000001", 1), ...list(12, 2), take(22, "qn-03-a-0000000000", 3)])).toEqual([]);
  });

  it("barrier: entering early and leaving while others compute are caught", () => {
    const b = (atMs: number, client: string, event: string): Ev => [atMs, "recipe.barrier", { barrier: "/b", client, session: `s-${client}`, event, size: 2 }];
    expect(run(new BarrierChecker(), [b(1, "c1", "enter"), b(2, "c1", "entered")])[0]).toMatch(/only 1 of 2/);
    expect(run(new BarrierChecker(), [b(1, "c1", "enter"), b(1, "c2", "enter"), b(2, "c1", "entered"), b(2, "c2", "entered"), b(3, "c1", "leave"), b(4, "c1", "left")])[0]).toMatch(/while c2 had entered/);
    expect(run(new BarrierChecker(), [b(1, "c9", "raised"), b(2, "c1", "wait"), b(3, "c1", "passed")])[0]).toMatch(/has not been lowered/);
    // c2 "entered" after its session had ended (paused, it had not heard yet): its node is gone, nobody waits for it (recipe-double-barrier --generate seed 7168).
    const late = [b(1, "c1", "enter"), b(1, "c2", "enter"), b(2, "c1", "entered"), closed(3, "s-c2"), b(4, "c2", "entered"), b(5, "c1", "leave"), b(6, "c1", "left")];
    expect(run(new BarrierChecker(), late)).toEqual([]);
    // c2's session expired on leader s3, which lost its role before any server applied the
    // close; s2 logged it and was established past it: the close is committed and s2's tree,
    // loaded from its log, holds it, with no zk.apply (recipe-double-barrier --generate seed 10817).
    const x = (atMs: number, client: string, event: string): Ev => [atMs, "recipe.barrier", { barrier: "/b", client, session: client === "c1" ? "0x1" : "0x2", event, size: 2 }];
    const inside2 = [x(1, "c1", "enter"), x(1, "c2", "enter"), x(2, "c1", "entered"), x(2, "c2", "entered"), x(3, "c1", "leave")];
    const expiry: Ev[] = [[4, "zk.session.expire", { session: "0x2", timeoutMs: 4000 }, "s3"], [4, "zab.propose", { sid: 3, epoch: 1, zxid: "0x100000017", txn: "dc55eacb:2:0" }, "s3"]];
    const logged = (txn: string): Ev => [5, "zab.log", { sid: 2, zxid: "0x100000017", txn }, "s2"];
    const establish = (lastZxid: string): Ev => [7, "zab.leader.established", { sid: 2, epoch: 2, lastZxid }, "s2"];
    expect(run(new BarrierChecker(), [...inside2, ...expiry, logged("dc55eacb:2:0"), establish("0x100000017"), x(8, "c1", "left")])).toEqual([]);
    // Not yet committed (no leader established past it), or the leader's log holds another txn there, or lost it: c2 may still be alive.
    const stillInside = /c1 left double barrier \/b while c2 had entered/;
    expect(run(new BarrierChecker(), [...inside2, ...expiry, logged("dc55eacb:2:0"), x(8, "c1", "left")])[0]).toMatch(stillInside);
    expect(run(new BarrierChecker(), [...inside2, ...expiry, logged("dc55eacb:2:0"), establish("0x100000016"), x(8, "c1", "left")])[0]).toMatch(stillInside);
    expect(run(new BarrierChecker(), [...inside2, ...expiry, logged("0badf00d:5:3"), establish("0x100000017"), x(8, "c1", "left")])[0]).toMatch(stillInside);
    expect(run(new BarrierChecker(), [...inside2, ...expiry, logged("dc55eacb:2:0"), [6, "zab.truncate", { sid: 2, zxid: "0x100000016" }, "s2"], establish("0x100000017"), x(8, "c1", "left")])[0]).toMatch(stillInside);
    // A proposal of the session that is not its expiry's close (no expiry before it) proves nothing.
    expect(run(new BarrierChecker(), [...inside2, expiry[1]!, logged("dc55eacb:2:0"), establish("0x100000017"), x(8, "c1", "left")])[0]).toMatch(stillInside);
  });

  it("barrier liveness: a waiter with a live session left at a barrier that is down (or a double barrier all could pass) in a quiet run is stuck", () => {
    const b = (atMs: number, client: string, event: string): Ev => [atMs, "recipe.barrier", { barrier: "/b", client, session: `s-${client}`, event, size: 2 }];
    const end: Ev = [5000, "ping", {}, "s1"];
    const simple = [b(1, "c9", "raised"), b(2, "c1", "wait"), b(3, "c9", "lowered"), b(4, "c9", "down")];
    expect(run(new BarrierChecker(1000), [...simple, end])[0]).toMatch(/barrier \/b is stuck: c1 \(since 2\.0 ms\) wait with live sessions though it was down at 4\.0 ms/);
    expect(run(new BarrierChecker(1000), [...simple, b(5, "c1", "passed"), end])).toEqual([]);
    expect(run(new BarrierChecker(1000), [...simple, closed(5, "s-c1"), end])).toEqual([]);
    // Lowered but its delete never returned (the controller may have died before it): the node may still be there.
    expect(run(new BarrierChecker(1000), [...simple.slice(0, 3), end])).toEqual([]);
    // Not quiet: a fault 500 ms before the end.
    expect(run(new BarrierChecker(1000), [...simple, [4500, "heal", {}, "s1"], end])).toEqual([]);
    // Double barrier: c1 entered (ready exists) but c2 never gets in; both joined but nobody entered; both leave, neither gets out.
    expect(run(new BarrierChecker(1000), [b(1, "c1", "enter"), b(1, "c2", "enter"), b(2, "c1", "entered"), end])[0]).toMatch(/double barrier \/b is stuck: c2 .* wait to enter .* someone entered it/);
    expect(run(new BarrierChecker(1000), [b(1, "c1", "enter"), b(1, "c2", "enter"), end])[0]).toMatch(/2 of 2 processes wait to enter/);
    expect(run(new BarrierChecker(1000), [b(1, "c1", "enter"), end])).toEqual([]);
    const inside = [b(1, "c1", "enter"), b(1, "c2", "enter"), b(2, "c1", "entered"), b(2, "c2", "entered"), b(3, "c1", "leave")];
    expect(run(new BarrierChecker(1000), [...inside, b(3, "c2", "leave"), b(4, "c1", "left"), end])[0]).toMatch(/c2 \(since 3\.0 ms\) wait to leave with live sessions though every live process inside has begun to leave/);
    // c2 still computes (entered, not leaving): c1 waits for it, rightly.
    expect(run(new BarrierChecker(1000), [...inside, end])).toEqual([]);
    // c2's session ended while it computed (a pause); it resumes and begins to leave on the dead session: its call fails, it waits for nothing (recipe-double-barrier seed 1).
    expect(run(new BarrierChecker(1000), [...inside, closed(3, "s-c2"), b(4, "c1", "left"), b(5, "c2", "leave"), end])).toEqual([]);
  });

  it("queue liveness: a consumer that finds the queue empty well into a quiet run, while an item acknowledged long before was never taken, is stuck", () => {
    const q = (atMs: number, client: string, f: Record<string, unknown>): Ev => [atMs, "recipe.queue", { queue: "/q", client, session: `s-${client}`, delivery: "at-least-once", ...f }];
    const offer = (atMs: number, item: string): Ev => q(atMs, "c1", { event: "offer", item, node: `qn-${item}-1`, seq: 1, outcome: "ok" });
    const wait = (atMs: number): Ev => q(atMs, "c3", { event: "wait" });
    expect(run(new QueueChecker(1000), [offer(1, "a"), wait(3000)])[0]).toMatch(/\/q is stuck: c3 \(session s-c3\) found it empty 3000 ms into a quiet run, though 1 acknowledged item\(s\) were never taken \(a since 1\.0 ms\)/);
    expect(run(new QueueChecker(1000), [offer(1, "a"), q(2, "c4", { event: "take", item: "a", node: "qn-a-1", seq: 1, unsure: false }), wait(3000)])).toEqual([]);
    // Too soon after the offer, or after a fault, or an item offered before a crash (its consumer may have died between delete and annotation).
    expect(run(new QueueChecker(1000), [offer(2500, "a"), wait(3000)])).toEqual([]);
    expect(run(new QueueChecker(1000), [offer(1, "a"), [2500, "heal", {}, "s1"], wait(3000)])).toEqual([]);
    expect(run(new QueueChecker(1000), [offer(1, "a"), [2, "crash", undefined, "c4"], wait(3000)])).toEqual([]);
    expect(run(new QueueChecker(1000), [offer(1, "a"), closed(2, "s-c3"), wait(3000)])).toEqual([]);
  });

  it("2pc: disagreement and a commit over an abort vote are caught", () => {
    const t = (atMs: number, client: string, f: Record<string, unknown>): Ev => [atMs, "recipe.2pc", { tx: "/tx/1", client, session: `s-${client}`, ...f }];
    expect(run(new TwoPhaseCommitChecker(), [t(1, "c2", { event: "decided", decision: "commit" }), t(2, "c3", { event: "decided", decision: "abort" })])[0]).toMatch(/disagree/);
    expect(run(new TwoPhaseCommitChecker(), [t(1, "c4", { event: "vote", site: "c4", vote: "abort" }), t(2, "c1", { event: "decided", decision: "commit" })])[0]).toMatch(/voted abort/);
  });

  it("rwlock: readers share, a writer is alone", () => {
    const r = (atMs: number, client: string, mode: string, event: string): Ev => [atMs, "recipe.rwlock", { lock: "/rw", client, session: `s-${client}`, mode, event }];
    expect(run(new ReadWriteLockChecker(), [r(1, "c1", "read", "acquired"), r(2, "c2", "read", "acquired")])).toEqual([]);
    expect(run(new ReadWriteLockChecker(), [r(1, "c1", "read", "acquired"), r(2, "c2", "write", "acquired")])[0]).toMatch(/write lock while c1/);
  });

  it("revocation: a holder that saw the request releases within the bound of running time; the revoker gets through", () => {
    const rw = (atMs: number, client: string, mode: string, event: string, node?: string): Ev => [atMs, "recipe.rwlock", { lock: "/rv", client, session: `s-${client}`, mode, event, node }];
    const rv = (atMs: number, client: string, event: string, node: string): Ev => [atMs, "recipe.revoke", { lock: "/rv", client, session: `s-${client}`, event, node }];
    const held = [rw(1, "c1", "read", "acquired", "/rv/r1"), rw(2, "c3", "write", "waiting"), rv(3, "c3", "requested", "/rv/r1"), rv(4, "c1", "seen", "/rv/r1")];
    const honoured = [...held, rw(5, "c1", "read", "released"), rw(6, "c3", "write", "acquired", "/rv/w2")];
    expect(run(new RevocationChecker(1000, 1000), [...honoured, [9000, "ping", {}, "s1"]])).toEqual([]);
    expect(run(new RevocationChecker(1000, 1000), [...held, rw(2000, "c1", "read", "released")])[0]).toMatch(/kept it for 1996 ms/);
    expect(run(new RevocationChecker(1000, 1000), [...held, [9000, "ping", {}, "s1"]]).join()).toMatch(/still held it at the end.*still waited for the write lock/);
    // Paused time does not count; the session's end ends the hold.
    expect(run(new RevocationChecker(1000, 1000), [...held, [10, "pause", undefined, "c1"], [5000, "resume", undefined, "c1"], rw(5100, "c1", "read", "released")])).toEqual([]);
    expect(run(new RevocationChecker(1000, 1000), [...held, closed(500, "s-c1"), rw(600, "c3", "write", "acquired", "/rv/w2")])).toEqual([]);
    // Seen while still waiting: the clock starts at the grant.
    expect(run(new RevocationChecker(1000, 1000), [rv(1, "c1", "seen", "/rv/r1"), rw(3000, "c1", "read", "acquired", "/rv/r1"), rw(3100, "c1", "read", "released")])).toEqual([]);
  });

  it("session fates: a node's logged expiry closes are followed again after its last one ended", () => {
    // 0x2's expiry close is logged on s2 and applied on s1 (s2 then holds no logged close, and
    // its zab.log events are passed over); 0x3's is logged on s2 next, and s2 is established past
    // it with no apply: 0x3 ended there, and c4 may take the lock.
    const expiry = (atMs: number, session: string, zxid: string, txn: string): Ev[] => [
      [atMs, "zk.session.expire", { session, timeoutMs: 4000 }, "s3"],
      [atMs, "zab.propose", { sid: 3, epoch: 1, zxid, txn }, "s3"],
      [atMs + 1, "zab.log", { sid: 2, zxid, txn }, "s2"],
    ];
    const trace = (lastZxid: string): Ev[] => [
      lock(1, "c2", "0x2", "acquired", 1),
      ...expiry(2, "0x2", "0x100000010", "aa:2:0"),
      [4, "zk.apply", { op: "closeSession", session: "0x2", zxid: "0x100000010" }, "s1"],
      lock(5, "c3", "0x3", "acquired", 2),
      ...expiry(6, "0x3", "0x100000011", "bb:3:0"),
      [8, "zab.leader.established", { sid: 2, epoch: 2, lastZxid }, "s2"],
      lock(9, "c4", "0x4", "acquired", 3),
    ];
    expect(run(new LockMutexChecker(), trace("0x100000011"))).toEqual([]);
    // Established short of 0x3's close: 0x3 still holds the lock when c4 gets it.
    expect(run(new LockMutexChecker(), trace("0x100000010"))).toEqual([expect.stringMatching(/c4 \(session 0x4, token 3\) was granted it while c3 \(session 0x3, token 2/)]);
  });
});
