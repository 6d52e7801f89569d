#!/usr/bin/env node
// Counts how often a swarm's crashes land inside the windows that matter for durability, read
// from each run's trace alone (docs/bug-power.md, "Crash points inside the durability windows"):
//
//   log-fsync   the crashed server had appended a txn to its log (`disk.append` to version-2/log.*)
//               that no completed `disk.fsync.done` covered yet;
//   ack-commit  the crashed server had acknowledged a proposal that was not committed yet: a
//               follower sent an ACK in BROADCAST and has not received a COMMIT since; a leader
//               counted an ACK (`zab.ack`) and has not committed (`zab.commit`) since;
//   snapshot    the crashed server was between `zk.snapshot.start` and its first txn-log append
//               after `zk.snapshot.done` (a fuzzy snapshot in progress, or just taken and the new
//               log still empty);
//   sync        the crashed server was a learner the leader had begun to synchronise (`zab.sync`)
//               that had not reached BROADCAST yet, or the leader of such a learner.
//
// A hit is one crash inside a window (a crash may hit several). Also prints the failing seeds
// (any violation), so one pass both measures and checks that the swarm stays clean.
//
// Usage: node scripts/fault-windows.mjs [--dist DIR] [--no-checkers] SCENARIO FROM COUNT
// (--dist: another build's dist/, to measure a "before"). One JSON line on stdout.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
let dist = resolve("dist");
let checkers = true;
const rest = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--dist") dist = resolve(args[++i]);
  else if (args[i] === "--no-checkers") checkers = false;
  else rest.push(args[i]);
}
const [scenarioName, fromText, countText] = rest;
const from = Number(fromText);
const count = Number(countText);
if (scenarioName === undefined || !Number.isSafeInteger(from) || !Number.isSafeInteger(count) || count < 1) {
  console.error("usage: node scripts/fault-windows.mjs [--dist DIR] [--no-checkers] SCENARIO FROM COUNT");
  process.exit(2);
}
const { loadScenario } = await import(pathToFileURL(`${dist}/cli/scenario-files.js`).href);
const { runScenario } = await import(pathToFileURL(`${dist}/scenario/run.js`).href);

const WINDOWS = ["log-fsync", "ack-commit", "snapshot", "sync"];
const isLog = (file) => typeof file === "string" && file.startsWith("version-2/log.");

/** Per-run window tracker over trace events. */
class Windows {
  constructor() {
    this.ops = new Map(); // node → disk op count
    this.unsynced = new Map(); // node → [{file, seq}]
    this.acked = new Map(); // node → outstanding follower ACKs (BROADCAST) or 1 for a leader's counted ACK
    this.phase = new Map(); // node → ZAB phase
    this.snap = new Map(); // node → "walk" | "taken"
    this.nodeOfSid = new Map();
    this.syncing = new Map(); // learner node → its leader node
    this.hits = Object.fromEntries(WINDOWS.map((w) => [w, 0]));
    this.crashes = 0;
    this.leaders = new Set();
  }
  on(e) {
    const f = e.fields ?? {};
    switch (e.kind) {
      case "disk.append": {
        const seq = (this.ops.get(e.node) ?? 0) + 1;
        this.ops.set(e.node, seq);
        if (isLog(e.detail)) {
          (this.unsynced.get(e.node) ?? this.unsynced.set(e.node, []).get(e.node)).push({ file: e.detail, seq });
          if (this.snap.get(e.node) === "taken") this.snap.delete(e.node);
        }
        return;
      }
      case "disk.replace":
      case "disk.delete":
        this.ops.set(e.node, (this.ops.get(e.node) ?? 0) + 1);
        return;
      case "disk.fsync.done": {
        const list = this.unsynced.get(e.node);
        if (list) this.unsynced.set(e.node, list.filter((a) => a.file !== e.detail || a.seq > e.id));
        return;
      }
      case "zab.state":
        this.nodeOfSid.set(f.sid, e.node);
        this.acked.delete(e.node);
        this.leaders.delete(e.node);
        return;
      case "zab.phase":
        this.phase.set(e.node, f.phase);
        if (f.phase === "BROADCAST") this.syncing.delete(e.node);
        this.acked.delete(e.node);
        return;
      case "send":
        if (e.detail === "ACK" && this.phase.get(e.node) === "BROADCAST") this.acked.set(e.node, (this.acked.get(e.node) ?? 0) + 1);
        return;
      case "deliver":
        if (e.detail === "COMMIT") this.acked.set(e.node, Math.max(0, (this.acked.get(e.node) ?? 0) - 1));
        return;
      case "zab.ack":
        // The leader counting an ACK (its own or a learner's); a learner's own ACK is its `send`, counted above.
        if (this.leaders.has(e.node)) this.acked.set(e.node, 1);
        return;
      case "zab.leader.established":
        this.leaders.add(e.node);
        return;
      case "zab.role.ended":
        this.leaders.delete(e.node);
        return;
      case "zab.commit":
        this.acked.set(e.node, 0);
        return;
      case "zk.snapshot.start":
        this.snap.set(e.node, "walk");
        return;
      case "zk.snapshot.done":
        this.snap.set(e.node, "taken");
        return;
      case "zab.sync": {
        const learner = this.nodeOfSid.get(f.learner);
        if (learner !== undefined) this.syncing.set(learner, e.node);
        return;
      }
      case "crash":
        return this.crash(e.node);
    }
  }
  crash(node) {
    this.crashes++;
    if ((this.unsynced.get(node) ?? []).length > 0) this.hits["log-fsync"]++;
    if ((this.acked.get(node) ?? 0) > 0) this.hits["ack-commit"]++;
    if (this.snap.has(node)) this.hits.snapshot++;
    if (this.syncing.has(node) || [...this.syncing.values()].includes(node)) this.hits.sync++;
    this.unsynced.delete(node);
    this.acked.delete(node);
    this.snap.delete(node);
    this.phase.delete(node);
    this.syncing.delete(node);
    this.leaders.delete(node);
    for (const [learner, leader] of this.syncing) if (leader === node) this.syncing.delete(learner);
  }
}

const scenario0 = loadScenario(scenarioName);
const scenario = checkers ? scenario0 : { ...scenario0, checkers: [] };
const totals = Object.fromEntries(WINDOWS.map((w) => [w, 0]));
const seedsHit = Object.fromEntries(WINDOWS.map((w) => [w, 0]));
let crashes = 0;
const failures = [];
for (let seed = from; seed < from + count; seed++) {
  const w = new Windows();
  const r = await runScenario(scenario, { seed, onTraceEvent: (e) => w.on(e) });
  crashes += w.crashes;
  for (const k of WINDOWS) {
    totals[k] += w.hits[k];
    if (w.hits[k] > 0) seedsHit[k]++;
  }
  if (r.verdict !== "pass") failures.push({ seed, checkers: [...new Set(r.violations.map((v) => v.checker))] });
}
const per1000 = (n) => Math.round((n * 1000) / count);
console.log(
  JSON.stringify({
    scenario: scenarioName,
    dist,
    from,
    seeds: count,
    checkers,
    crashes,
    hitsPer1000: Object.fromEntries(WINDOWS.map((k) => [k, per1000(totals[k])])),
    seedsWithHitPer1000: Object.fromEntries(WINDOWS.map((k) => [k, per1000(seedsHit[k])])),
    crashesPer1000: per1000(crashes),
    failures,
  }),
);
