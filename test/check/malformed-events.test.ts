/**
 * Every checker of zab/, recipes/, kernel/ and zk/ turns a malformed event of a kind it reads
 * (a field missing or of the wrong type) into a violation naming the event's index, kind and
 * field, and does not for the same event well formed (the canary). `kernel.paused-node-silent`
 * is not listed: it reads no field, only an event's kind and node.
 */
import { describe, expect, it } from "vitest";
import type { Checker } from "../../src/check/checker.js";
import { ZAB_CHECKERS } from "../../src/check/zab/index.js";
import { RECIPE_CHECKERS } from "../../src/check/recipes/index.js";
import { ConnectionFifoChecker } from "../../src/check/kernel/connection-fifo.js";
import { DiskCrashLossChecker } from "../../src/check/kernel/disk-crash-loss.js";
import { NoDeliveryAcrossCutChecker } from "../../src/check/kernel/no-delivery-across-cut.js";
import { StandaloneDurabilityChecker } from "../../src/check/zk/standalone-durability.js";
import { SessionTxnsChecker } from "../../src/check/zk/session-txns.js";
import { caseTitle, expectMalformedCase, malformed, type MalformedCase as Case } from "./malformed-harness.js";

const ZXID = "0x100000001";
/** A zab annotation's fields: the server's sid first, as the server writes them. */
const zab = (fields: Record<string, unknown>): Record<string, unknown> => ({ sid: 1, ...fields });
const ev = (kind: string, fields: Record<string, unknown>, node = "s1"): Case["event"] => ({ kind, node, fields });
const party = { client: "c1", session: "0x1" };

const CASES: Record<string, Case> = {
  "zab.leadership": { event: ev("zab.leader.established", zab({ epoch: 1, lastZxid: ZXID })), field: "epoch" },
  "zab.zxid-uniqueness": { event: ev("zab.log", zab({ zxid: ZXID, txn: "create /a" })), field: "zxid", bad: "0xnope" },
  "zab.integrity": { event: ev("zab.propose", zab({ epoch: 1, zxid: ZXID, txn: "create /a" })), field: "txn", bad: { not: "text" } },
  "zab.prefix-consistency": { event: ev("zab.log", zab({ zxid: ZXID, txn: "create /a" })), field: "txn" },
  "zab.committed-durability": { event: ev("zab.commit", zab({ zxid: ZXID })), field: "zxid" },
  "zab.primary-integrity": { event: ev("zab.propose", zab({ epoch: 1, zxid: ZXID, txn: "create /a" })), field: "zxid", bad: -1 },
  "zab.identical-trees": { event: ev("zab.digest", zab({ zxid: ZXID, digest: "abc" })), field: "digest" },
  "zab.flags": { event: ev("zab.flag", zab({ flag: "messageIllegal", detail: "x" })), field: "flag" },
  "zab.liveness": { event: ev("zab.phase", zab({ phase: "BROADCAST", epoch: 1 })), field: "epoch", bad: "one" },
  // from ≠ sid: the leader counting a learner's ACK (well formed, judged by the learner's own event).
  "zab.durable-ack": { event: ev("zab.ack", zab({ from: 2, zxid: ZXID })), field: "from", bad: "two" },
  "zab.election-most-recent": { event: ev("zab.phase", zab({ phase: "ELECTION", epoch: 1 })), field: "epoch", bad: "one" },
  "zab.election-round": { event: ev("zab.phase", zab({ phase: "ELECTION", epoch: 1 })), field: "phase", bad: { not: "text" } },
  "zab.newleader-quorum": { event: ev("zab.leader.established", zab({ epoch: 1, lastZxid: ZXID })), field: "epoch" },
  "zab.learner-sync": { event: ev("zab.phase", zab({ phase: "SYNCHRONIZATION", epoch: 1 })), field: "phase" },
  "zab.sync-packet": { event: ev("zab.sync", zab({ learner: 2, mode: "DIFF", peerLastZxid: ZXID, zxid: ZXID })), field: "mode", bad: "FULL" },
  "recipe.lock-mutex": { event: ev("recipe.lock", { lock: "/l", ...party, event: "acquired", token: 1 }, "c1"), field: "session" },
  "recipe.lock-herd": { event: ev("recipe.lock", { lock: "/l", ...party, event: "waiting" }, "c1"), field: "lock" },
  "recipe.lock-fencing": { event: ev("recipe.resource", { resource: "/r", ...party, token: 1, value: "v", fenced: true, outcome: "begin" }, "c1"), field: "token", bad: "one" },
  "recipe.election": { event: ev("recipe.election", { election: "/e", ...party, event: "candidate" }, "c1"), field: "event" },
  "recipe.counter": { event: ev("recipe.counter", { counter: "/n", ...party, event: "increment", n: 1, delta: 1, outcome: "ok", value: 1 }, "c1"), field: "value" },
  "recipe.queue": { event: ev("recipe.queue", { queue: "/q", ...party, delivery: "at-least-once", event: "take", item: "i1", node: "qn-0000000001", seq: 1 }, "c1"), field: "node" },
  "recipe.priority-queue": { event: ev("client.invoke", { ...party, opId: 1, op: "getChildren", path: "/q" }, "c1"), field: "op" },
  "recipe.barrier": { event: ev("recipe.barrier", { barrier: "/b", ...party, event: "entered", size: 2 }, "c1"), field: "size" },
  "recipe.barrier-polling": { event: ev("recipe.barrier", { barrier: "/b", ...party, event: "wait" }, "c1"), field: "event" },
  "recipe.group": { event: ev("recipe.group", { group: "/g", ...party, event: "view", members: ["c1"] }, "c1"), field: "members", bad: "c1" },
  "recipe.config": { event: ev("recipe.config", { config: "/cfg", ...party, event: "seen", value: "v1" }, "c1"), field: "config" },
  "recipe.naming": { event: ev("recipe.naming", { dir: "/names", ...party, event: "assigned", name: "n-0000000001", tag: "n-" }, "c1"), field: "name" },
  "recipe.2pc": { event: ev("recipe.2pc", { tx: "/tx/t1", ...party, event: "begin", sites: ["a"] }, "c1"), field: "tx" },
  "recipe.rwlock": { event: ev("recipe.rwlock", { lock: "/rw", ...party, mode: "write", event: "acquired", node: "write-0000000001" }, "c1"), field: "mode" },
  "recipe.revocation": { event: ev("recipe.revoke", { lock: "/rw", ...party, event: "seen", node: "read-0000000001" }, "c1"), field: "lock" },
  "zk.standalone-durability": { event: ev("zk.server.start", { serverId: 1, lastZxid: ZXID, replayed: 0, sessions: 0 }), field: "lastZxid" },
  "zk.session-txns": { event: ev("zk.apply", { zxid: ZXID, op: "closeSession", session: "0x1", cxid: 0, err: undefined }), field: "zxid" },
  "kernel.no-delivery-across-cut": { event: { kind: "partition", node: "", fields: { links: ["s1>s2"] } }, field: "links", bad: "s1>s2" },
};

/** Kernel events break a property (id, detail, peer), not a field. */
const KERNEL_CASES: { name: string; make: () => Checker; event: Case["event"]; property: "id" | "detail" | "peer" }[] = [
  { name: "kernel.connection-fifo", make: () => new ConnectionFifoChecker(), event: { kind: "send", node: "s1", peer: "s2", id: 7, detail: "PING", conn: 1 }, property: "id" },
  { name: "kernel.disk-crash-loss", make: () => new DiskCrashLossChecker(), event: { kind: "disk.append", node: "s1", id: 10, detail: "log.1" }, property: "detail" },
  { name: "kernel.connection-fifo (peer)", make: () => new ConnectionFifoChecker(), event: { kind: "deliver", node: "s2", peer: "s1", id: 7, detail: "PING", conn: 1 }, property: "peer" },
];

const FACTORIES = new Map<string, () => Checker>([
  ...ZAB_CHECKERS,
  ...RECIPE_CHECKERS,
  ["zk.standalone-durability", () => new StandaloneDurabilityChecker()],
  ["zk.session-txns", () => new SessionTxnsChecker()],
  ["kernel.no-delivery-across-cut", () => new NoDeliveryAcrossCutChecker()],
]);

describe("checkers: a malformed event is a violation naming its index, kind and field", () => {
  it("every checker of zab/, recipes/, zk/ and the kernel checkers that read fields has a case", () => {
    const names = [...ZAB_CHECKERS.keys(), ...RECIPE_CHECKERS.keys(), "zk.standalone-durability", "zk.session-txns", "kernel.no-delivery-across-cut"];
    expect(names.filter((n) => CASES[n] === undefined)).toEqual([]);
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: ${caseTitle(c)}`, () => expectMalformedCase(FACTORIES.get(name)!, c));
  }

  for (const c of KERNEL_CASES) {
    it(`${c.name}: ${c.event.kind} without its ${c.property}`, () => {
      expect(malformed(c.make, c.event)).toEqual([]);
      const got = malformed(c.make, { ...c.event, [c.property]: undefined });
      expect(got).toHaveLength(1);
      expect(got[0]).toMatch(new RegExp(`^1: malformed ${c.event.kind.replace(/\./g, "\\.")} event #1 on s\\d: field "${c.property}" is missing`));
    });
  }

  it("a recipe checker's session facts are read strictly too: a closeSession apply without its zxid", () => {
    const apply = ev("zk.apply", { zxid: ZXID, op: "closeSession", session: "0x1", cxid: 0, err: undefined });
    const make = RECIPE_CHECKERS.get("recipe.lock-mutex")!;
    expect(malformed(make, apply)).toEqual([]);
    const { zxid: _, ...without } = apply.fields!;
    expect(malformed(make, { ...apply, fields: without })).toEqual([`1: malformed zk.apply event #1 on s1: field "zxid" is missing, expected a zxid`]);
  });
});
