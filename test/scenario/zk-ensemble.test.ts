import { describe, expect, it } from "vitest";
import { loose, type LooseEvent } from "../helpers/loose-events.js";
import { loadScenario } from "../../src/cli/scenario-files.js";
import { runScenario } from "../../src/scenario/run.js";
import { parseScenario } from "../../src/scenario/parse.js";
import { scenarioToDocument } from "../../src/scenario/replay-file.js";

const SCENARIOS = [
  "zab-leader-crash-before-commit",
  "zab-follower-restart-trunc",
  "zab-isolated-leader",
  "zab-rolling-restart",
  "zab-observer",
  "ensemble-session-expiry",
  "ensemble-reconnect-watches",
  "zab-follower-snap",
  "zab-follower-txnlog-diff",
  "ensemble-session-moved",
  "ensemble-session-timeouts",
  "ensemble-lookup-after-loss",
  "zab-follower-cross-epoch-snap",
  "zab-fuzzy-snapshots",
  "client-connect-timeout",
  "zab-election-finalize-wait",
];

describe("scenario: zk ensemble (ZAB)", () => {
  for (const name of SCENARIOS) {
    it(`${name}: passes every ZAB checker, deterministically`, async () => {
      const scenario = loadScenario(name);
      expect(scenario.checkers).toContain("zab.committed-durability");
      for (const seed of [1, 2]) {
        const r = await runScenario(scenario, { seed });
        expect(r.violations, `${name} seed ${seed}`).toEqual([]);
        expect((await runScenario(scenario, { seed })).traceHash).toBe(r.traceHash);
      }
    });
  }

  it("7 voters and 2 observers: sessions expire through the leader, every ZAB invariant holds", async () => {
    const scenario = { ...loadScenario("ensemble-session-expiry") };
    scenario.workload = { kind: "zk", params: { script: "session-expiry", servers: 7, observers: 2, clients: 3 } };
    for (const seed of [1, 2]) expect((await runScenario(scenario, { seed })).violations).toEqual([]);
  });

  it("SESSIONMOVED: a request on the old connection fails at the leader; the old server closes without a reply; the client sees CONNECTIONLOSS", async () => {
    const events: LooseEvent[] = [];
    const kinds = new Set(["zk.session.moved", "zk.apply", "client.complete", "conn.close"]);
    const r = await runScenario(loadScenario("ensemble-session-moved"), { seed: 1, onTraceEvent: (e) => kinds.has(e.kind) && events.push(loose(e)) });
    expect(r.violations).toEqual([]);
    const moved = events.filter((e) => e.kind === "zk.session.moved");
    expect(moved.map((e) => e.fields?.op)).toEqual(["create", "setData", "create"]);
    expect(moved[0]!.node).not.toBe(moved[1]!.node); // once on each follower: the session went A → B, then back
    for (const m of moved) {
      const { session, xid } = m.fields as { session: string; xid: number };
      // The leader turned it into an error txn: every server applied it, and changed nothing.
      const applied = events.filter((e) => e.kind === "zk.apply" && e.fields?.session === session && e.fields?.cxid === xid);
      expect(applied.map((e) => [e.fields?.op, e.fields?.err])).toEqual([["error", "SESSIONMOVED"], ["error", "SESSIONMOVED"], ["error", "SESSIONMOVED"]]);
      // The old server closed the client's connection at once, with no reply.
      const closeIdx = events.findIndex((e) => e.index > m.index && e.kind === "conn.close" && e.node === m.node && e.peer === "c1");
      expect(closeIdx).toBeGreaterThan(-1);
      expect(events[closeIdx]!.atUs).toBe(m.atUs);
      const done = events.find((e) => e.kind === "client.complete" && e.node === "c1" && e.fields?.xid === xid);
      expect([done?.fields?.outcome, done?.fields?.err]).toEqual(["unknown", "CONNECTIONLOSS"]);
    }
    expect(events.some((e) => e.kind === "client.complete" && e.fields?.err === "SESSIONMOVED")).toBe(false);
    // The stale setData was never applied; the retry was, once, on every server.
    expect(events.filter((e) => e.kind === "zk.apply" && e.fields?.op === "setData" && e.fields?.err === undefined)).toHaveLength(3);
  });

  /** The leader's sync of the follower that missed 600 txns (its last zxid is (1,2)). */
  const catchUp = async (name: string, canary?: "txnlog-diff-gap") => {
    const syncs: LooseEvent[] = [];
    const r = await runScenario(loadScenario(name), { seed: 1, ...(canary ? { canary } : {}), onTraceEvent: (e) => e.kind === "zab.sync" && e.fields?.peerLastZxid === "0x100000002" && syncs.push(loose(e)) });
    return { r, syncs };
  };

  it("a follower behind the committed log, the new leader's snapshot 24 MB and its txn log since then two files: SNAP (snapshotSizeFactor 0.33)", async () => {
    const syncs: LooseEvent[] = [];
    const r = await runScenario(loadScenario("zab-follower-big-snapshot"), { seed: 1, onTraceEvent: (e) => e.kind === "zab.sync" && syncs.push(loose(e)) });
    expect(r.violations).toEqual([]);
    // The run's last sync is the returning follower's (the others synced at the elections before).
    expect([syncs.at(-1)?.fields?.mode, syncs.at(-1)?.fields?.txnLog]).toEqual(["SNAP", undefined]);
  });

  it("a follower behind the committed log, with the leader's txn log since then in one file: DIFF from the txn log, no snapshot", async () => {
    const { r, syncs } = await catchUp("zab-follower-txnlog-diff");
    expect(r.violations).toEqual([]);
    expect(syncs.map((e) => [e.fields?.mode, e.fields?.txnLog])).toEqual([["DIFF", true]]);
    expect(r.counts["zab.snap.load"]).toBeUndefined();
  });

  it("a follower behind the committed log, with the txn log since then rolled into several preallocated files: SNAP", async () => {
    const { r, syncs } = await catchUp("zab-follower-snap");
    expect(r.violations).toEqual([]);
    expect(syncs.map((e) => [e.fields?.mode, e.fields?.txnLog])).toEqual([["SNAP", undefined]]);
    expect(r.counts["zab.snap.load"]).toBeGreaterThanOrEqual(1);
  });

  it("snapshotSizeFactor: negative turns txn-log sync off (the same story ends in SNAP); a bad value is refused by name", async () => {
    const base = loadScenario("zab-follower-txnlog-diff");
    const withFactor = (snapshotSizeFactor: unknown) => parseScenario({ ...scenarioToDocument(base), workload: { kind: "zk", ...base.workload.params, snapshotSizeFactor } }, "test");
    const off = withFactor(-1);
    const syncs: LooseEvent[] = [];
    const r = await runScenario(off, { seed: 1, onTraceEvent: (e) => e.kind === "zab.sync" && e.fields?.peerLastZxid === "0x100000002" && syncs.push(loose(e)) });
    expect(r.violations).toEqual([]);
    expect(syncs.map((e) => e.fields?.mode)).toEqual(["SNAP"]);
    for (const bad of [2, "0.5", null]) {
      expect(() => withFactor(bad)).toThrow(/workload\.snapshotSizeFactor: expected a number ≤ 1/);
    }
  });

  it("canary txnlog-diff-gap: a txn-log DIFF that leaves out one txn is caught by zab.prefix-consistency", async () => {
    const { r, syncs } = await catchUp("zab-follower-txnlog-diff", "txnlog-diff-gap");
    expect(syncs.map((e) => e.fields?.txnLog)).toEqual([true]);
    expect(r.verdict).toBe("fail");
    expect(r.violations.map((v) => v.checker)).toContain("zab.prefix-consistency");
  });

  it("a follower with an orphan txn rejoining before the new epoch commits anything is truncated (TRUNC to maxCommittedLog)", async () => {
    const syncs: LooseEvent[] = [];
    const r = await runScenario(loadScenario("zab-follower-restart-trunc"), { seed: 1, onTraceEvent: (e) => e.kind === "zab.sync" && e.fields?.mode !== "DIFF" && syncs.push(loose(e)) });
    expect(r.violations).toEqual([]);
    // The lonely follower and the old leader both logged the orphan (1,3); the new leader's log ends at (1,2).
    expect(syncs.map((e) => [e.fields?.mode, e.fields?.peerLastZxid, e.fields?.zxid])).toEqual([
      ["TRUNC", "0x100000003", "0x100000002"],
      ["TRUNC", "0x100000003", "0x100000002"],
    ]);
    expect(r.counts["zab.truncate"]).toBe(2);
  });

  it("cross-epoch: a former leader's orphan txn of epoch e, rejoining after epochs e+1 and e+2 committed, gets SNAP (TRUNC cannot cross an epoch)", async () => {
    const events: LooseEvent[] = [];
    const kinds = new Set(["zab.sync", "zab.snap.load", "zab.truncate", "zab.leader.established"]);
    const r = await runScenario(loadScenario("zab-follower-cross-epoch-snap"), { seed: 1, onTraceEvent: (e) => kinds.has(e.kind) && events.push(loose(e)) });
    expect(r.violations).toEqual([]); // identical trees, prefix consistency, durability, … all hold
    expect(events.filter((e) => e.kind === "zab.leader.established").map((e) => e.fields?.epoch)).toEqual([1, 2, 3]);
    const epoch1Leader = events.find((e) => e.kind === "zab.leader.established")!.fields?.sid;
    const rejoin = events.filter((e) => e.kind === "zab.sync" && e.fields?.learner === epoch1Leader);
    // Its last zxid (1,3) was logged only by itself; the leader's next txn after (1,2) is (2,1).
    expect([rejoin[0]?.fields?.mode, rejoin[0]?.fields?.peerLastZxid]).toEqual(["SNAP", "0x100000003"]);
    expect(String(rejoin[0]?.fields?.zxid)).toMatch(/^0x3[0-9a-f]{8}$/); // the tree of epoch 3
    expect(events.some((e) => e.kind === "zab.snap.load" && e.fields?.sid === epoch1Leader)).toBe(true);
    expect(events.some((e) => e.kind === "zab.truncate")).toBe(false);
    // Restarted afterwards, it recovers from the snapshot it persisted and needs only a DIFF.
    expect(rejoin.slice(1).map((e) => e.fields?.mode)).toEqual(["DIFF"]);
  });

  it("the book's example really happens: P3 is truncated from the old leader", async () => {
    const r = await runScenario(loadScenario("zab-leader-crash-before-commit"), { seed: 1, retainTrace: true });
    expect(r.counts["zab.truncate"]).toBeGreaterThanOrEqual(1);
    expect(r.counts["zab.leader.established"]).toBeGreaterThanOrEqual(2);
  });

  it("canary minority-commit: a leader committing on a minority of ACKs is caught by the ZAB checkers", async () => {
    for (const name of ["zab-leader-crash-before-commit", "zab-isolated-leader"]) {
      const r = await runScenario(loadScenario(name), { seed: 1, canary: "minority-commit" });
      expect(r.verdict).toBe("fail");
      const checkers = new Set(r.violations.map((v) => v.checker));
      expect(checkers.has("zab.prefix-consistency") || checkers.has("zab.committed-durability"), name).toBe(true);
    }
  });

  it("zab.primary-integrity catches the minority-commit canary and re-injected ZOOKEEPER-4785: an old-epoch txn delivered, then missing from the next primary", async () => {
    const canary = await runScenario(loadScenario("zab-isolated-leader"), { seed: 1, canary: "minority-commit" });
    const bug = await runScenario(loadScenario("bug-4785"), { bugs: ["ZK-4785"] });
    for (const r of [canary, bug]) {
      const v = r.violations.filter((x) => x.checker === "zab.primary-integrity");
      expect(v.length).toBeGreaterThan(0);
      expect(v[0]!.message).toMatch(/^PrimaryIntegrity violated: s\d \(sid \d\) delivered 0x1[0-9a-f]{8} \(1,\d+\) .* primary of epoch \d+, had delivered only up to /);
    }
  });

  it("zab-fuzzy-snapshots: snapshots overlap txns being applied, and crashed servers restart from them", async () => {
    const walking = new Map<string, number>();
    const snapshotted = new Set<string>();
    let overlapping = 0;
    let restartsAfterSnapshot = 0;
    await runScenario(loadScenario("zab-fuzzy-snapshots"), {
      seed: 2,
      onTraceEvent: (e) => {
        if (e.kind === "zk.snapshot.start") walking.set(e.node, 0);
        else if (e.kind === "zk.apply" && walking.has(e.node)) walking.set(e.node, walking.get(e.node)! + 1);
        else if (e.kind === "zk.snapshot.done" && walking.has(e.node)) {
          if (walking.get(e.node)! > 0) overlapping++;
          walking.delete(e.node);
          snapshotted.add(e.node);
        } else if (e.kind === "crash") walking.delete(e.node);
        else if (e.kind === "restart" && snapshotted.has(e.node)) restartsAfterSnapshot++;
      },
    });
    expect(overlapping).toBeGreaterThan(10);
    expect(restartsAfterSnapshot).toBeGreaterThan(0);
  });

  it("zab-fuzzy-snapshots seeds 1-10: a flush straddling a log roll, cut by a crash, announces the txns the old file kept", async () => {
    // A node's final flush puts (e,n) in the old log and (e,n+1)… in the one rolled for a snapshot;
    // the old file's fsync completes, the crash takes the new one, the node recovers (e,n) and is
    // DIFF-synced from there. (e,n) must have been announced as logged before the crash, or the
    // checkers see the node skip it (a false TotalOrder hole; zab-fuzzy-snapshots seed 7 before the
    // swarm drew the whole fault vocabulary). Any seed whose crash loses such a rolled file counts.
    let straddles = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const announced = new Map<string, Set<bigint>>();
      const r = await runScenario(loadScenario("zab-fuzzy-snapshots"), {
        seed,
        onTraceEvent: (e) => {
          if (e.node === undefined) return;
          if (e.kind === "zab.log") {
            const mine = announced.get(e.node) ?? new Set<bigint>();
            announced.set(e.node, mine.add(BigInt(String(e.fields?.["zxid"]))));
          }
          const lost = e.kind === "disk.lost" ? /log\.([0-9a-f]+)$/.exec(String(e.detail)) : null;
          if (lost === null) return;
          const first = BigInt(`0x${lost[1]}`);
          if ((first & 0xffffffffn) > 1n && announced.get(e.node)?.has(first - 1n) === true) straddles++;
        },
      });
      expect(r.violations, `seed ${seed}`).toEqual([]);
    }
    expect(straddles).toBeGreaterThan(0);
  }, 180_000);

  it("canary fuzzy-replay-strict: a recovery that stops at txns a fuzzy snapshot holds is caught by the ZAB checkers", async () => {
    for (const seed of [13, 18]) {
      const r = await runScenario(loadScenario("zab-fuzzy-snapshots"), { seed, canary: "fuzzy-replay-strict" });
      const checkers = new Set(r.violations.map((v) => v.checker));
      expect(checkers.has("zab.prefix-consistency") || checkers.has("zab.committed-durability"), `seed ${seed}`).toBe(true);
    }
  });

  it("re-injected ZOOKEEPER-1154 (DIFF without checking history) breaks prefix consistency", async () => {
    const r = await runScenario(loadScenario("zab-follower-cross-epoch-snap"), { seed: 1, bugs: ["ZK-1154"] });
    expect(r.violations.map((v) => v.checker)).toContain("zab.prefix-consistency");
  });

  it("re-injected ZOOKEEPER-2845 (stale in-memory tree after LOOKING) loses a committed txn", async () => {
    const r = await runScenario(loadScenario("zab-leader-crash-before-commit"), { seed: 1, bugs: ["ZK-2845"] });
    expect(r.violations.map((v) => v.checker)).toContain("zab.committed-durability");
  });
});
