#!/usr/bin/env node
// Writes the soak scenarios (scenarios/soak-*.json): long client-traffic runs with a fault
// round every virtual minute. The schedules are long (six entries a minute), so they are
// generated here rather than written by hand; the files are committed and `zksim run` reads
// them like any other scenario. Re-run after changing a figure below:
//   node scripts/gen-soak-scenarios.mjs
//
// One fault round (per minute m, rotating the server hit):
//   +5 s  crash s(m), +15 s restart it;
//   +25 s cut s(m+1) from every other node, +40 s heal;
//   +48 s a 20 % loss burst on every link, +53 s loss back to 0.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CONVERGENCE_BUDGET_MS = 30_000; // src/scenario/scripts/client-traffic.ts
const FINAL_READS_MS = 30_000;

function nodes(servers, clients) {
  return {
    servers: Array.from({ length: servers }, (_, i) => `s${i + 1}`),
    clients: Array.from({ length: clients }, (_, i) => `c${i + 1}`),
  };
}

/** Fault rounds for `minutes` minutes; `kinds` picks which of crash / cut / loss each round has. */
function faultRounds(minutes, servers, clients, kinds) {
  const { servers: ss, clients: cs } = nodes(servers, clients);
  const out = [];
  for (let m = 0; m < minutes; m++) {
    const t = m * 60_000;
    const crashed = ss[m % ss.length];
    const cut = ss[(m + 1) % ss.length];
    if (kinds.includes("crash")) {
      out.push({ atMs: t + 5_000, kind: "crash", node: crashed });
      out.push({ atMs: t + 15_000, kind: "restart", node: crashed });
    }
    if (kinds.includes("cut")) {
      out.push({ atMs: t + 25_000, kind: "cut", from: [cut], to: [...ss, ...cs].filter((n) => n !== cut) });
      out.push({ atMs: t + 40_000, kind: "heal" });
    }
    if (kinds.includes("loss")) {
      out.push({ atMs: t + 48_000, kind: "loss", rate: 0.2 });
      out.push({ atMs: t + 53_000, kind: "loss", rate: 0 });
    }
  }
  return out;
}

function soak({ name, description, minutes, servers, clients, traffic, kinds, checkers, script = "client-traffic", extra = {} }) {
  const untilMs = minutes * 60_000;
  return {
    name,
    description,
    tags: ["soak", "zk", "ensemble"],
    seed: 1,
    durationMs: untilMs + CONVERGENCE_BUDGET_MS + FINAL_READS_MS,
    // autopurge on (keep 3 snapshots), as a long-running deployment has it: the servers' disks
    // stay bounded, so what grows is what the run itself keeps.
    workload: { kind: "zk", script, servers, clients, purgeSnapRetainCount: 3, ...extra, traffic: { ...traffic, untilMs } },
    faults: faultRounds(minutes, servers, clients, kinds),
    ...(checkers !== undefined ? { checkers } : {}),
  };
}

const TRAFFIC = { keys: 16, opGapMsMax: 100, sessionTimeoutMs: 6000 };
const ALL_FAULTS = ["crash", "cut", "loss"];

const scenarios = [
  soak({
    name: "soak-1h",
    description:
      "soak: 5 voters, 10 clients of random traffic on 16 keys (an op every ≤100 ms, 6 s sessions) for 60 virtual minutes, with a crash/restart, a one-server cut and a loss burst every minute; every checker on",
    minutes: 60,
    servers: 5,
    clients: 10,
    traffic: TRAFFIC,
    kinds: ALL_FAULTS,
  }),
  soak({
    name: "soak-10m",
    description: "soak-1h cut to 10 virtual minutes (the same fault round every minute); every checker on",
    minutes: 10,
    servers: 5,
    clients: 10,
    traffic: TRAFFIC,
    kinds: ALL_FAULTS,
  }),
  soak({
    name: "soak-10m-cuts",
    description: "soak-10m with only the one-server cut (and its heal) every minute: long partitioned histories for the linearizability checker",
    minutes: 10,
    servers: 5,
    clients: 10,
    traffic: TRAFFIC,
    kinds: ["cut"],
  }),
  {
    name: "soak-tree-100k",
    description:
      "soak: 5 voters, 50 clients each running 20 sessions one after another (1,000 sessions), each session creating 100 znodes (a 100,000-znode tree); no faults; every checker on but client.linearizability, whose model copies the tree on every step",
    tags: ["soak", "zk", "ensemble"],
    seed: 1,
    durationMs: 600_000,
    workload: { kind: "zk", script: "soak-tree", servers: 5, clients: 50, purgeSnapRetainCount: 3, tree: { sessionsPerClient: 20, nodesPerSession: 100, batch: 10 } },
    checkers: "DEFAULT_BUT_LINEARIZABILITY",
  },
];

// The zk workload's default checkers (from the built code: run `npm run build` first), for a
// scenario that lists them to leave one out.
const { parseScenario } = await import("../dist/scenario/parse.js");
for (const s of scenarios) {
  if (s.checkers !== "DEFAULT_BUT_LINEARIZABILITY") continue;
  const { checkers: _omit, ...rest } = s;
  s.checkers = parseScenario(rest, s.name).checkers.filter((c) => c !== "client.linearizability");
}

for (const s of scenarios) writeFileSync(join(root, "scenarios", `${s.name}.json`), JSON.stringify(s, null, 1) + "\n");
console.log(`wrote ${scenarios.map((s) => `scenarios/${s.name}.json`).join(", ")}`);
