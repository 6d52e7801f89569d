/**
 * bench-traffic: the load of `zksim bench zk` and `zksim bench ensemble` — client traffic
 * (traffic.ts) with no fault and nothing to judge. The root is created, every client runs its
 * op loop until `traffic.untilMs`, then the clients stop. No convergence phase and no final
 * reads: a benchmark times the op loop alone (cli/bench.ts counts `client.complete` events).
 *
 * Parameters: as client-traffic's, `{"kind": "zk", "script": "bench-traffic", "servers": 3,
 * "clients": 10, "traffic": {"keys": 20, "opGapMsMax": 0, "mix": {...}, "untilMs": 23000}}`.
 */
import { runTraffic } from "./client-traffic.js";
import type { ScriptDef } from "./script.js";
import { parseTraffic } from "./traffic.js";

export const benchTraffic: ScriptDef = {
  name: "bench-traffic",
  description: "clients run random ops, back to back, until traffic.untilMs (the benchmarks' load; no faults, no final reads)",
  paramKeys: ["traffic"],
  checkParams: (params) => void parseTraffic(params.traffic),
  async run(s) {
    const traffic = parseTraffic(s.params.traffic);
    const clients = await runTraffic(s, traffic, traffic.untilMs * 1000, "(the end of the traffic phase)");
    for (const c of clients ?? []) c.stop();
    await Promise.all((clients ?? []).map((c) => c.done));
  },
};
