/**
 * mntr's key order (src/serve/mntr-keys.ts): the gauges in the order of 3.8's metrics
 * `ConcurrentHashMap` after the servers this JVM started, modelled (JavaConcurrentHashMapKeys),
 * against orders a real 3.8.0 printed: a fresh ensemble member and a standalone server print
 * `zk_num_alive_connections` before `zk_avg_latency` (the table's doubling reverses them), a
 * member whose server started again (the survivors of a leader crash) after it, with every other
 * key in the place recorded from Debian's 3.8.0.
 */
import { describe, expect, it } from "vitest";
import { mntrKeys } from "../../src/serve/mntr-keys.js";
import { JavaConcurrentHashMapKeys } from "../../src/zk/server/java-hash-set.js";

/** The gauges a real 3.8.0 leader printed after its server had started before (mntr-keys.ts's first recording). */
const RECORDED_LEADER_GAUGES = [
  "ephemerals_count", "avg_latency", "num_alive_connections", "min_proposal_size", "outstanding_requests", "znode_count",
  "global_sessions", "non_mtls_remote_conn_count", "last_client_response_size", "packets_sent", "packets_received",
  "max_proposal_size", "max_client_response_size", "synced_followers", "connection_drop_probability", "watch_count",
  "synced_non_voting_followers", "synced_observers", "auth_failed_count", "min_latency", "max_file_descriptor_count",
  "approximate_data_size", "open_file_descriptor_count", "last_proposal_size", "pending_syncs", "leader_uptime",
  "local_sessions", "uptime", "max_latency", "outstanding_tls_handshake", "learners", "min_client_response_size",
  "non_mtls_local_conn_count", "quorum_size",
].map((k) => `zk_${k}`);

const LEADER_ONLY = new Set(["learners", "synced_followers", "synced_non_voting_followers", "synced_observers", "pending_syncs", "leader_uptime", "last_proposal_size", "max_proposal_size", "min_proposal_size"].map((k) => `zk_${k}`));

const swapped = (keys: readonly string[]) => keys.map((k) => (k === "zk_avg_latency" ? "zk_num_alive_connections" : k === "zk_num_alive_connections" ? "zk_avg_latency" : k));
const gauges = (keys: readonly string[]) => keys.slice(keys.indexOf("zk_server_state") + (keys.includes("zk_peer_state") ? 2 : 1), keys.indexOf("zk_proposal_count"));
const before = (keys: readonly string[], a: string, b: string) => keys.indexOf(a) < keys.indexOf(b);

describe("mntr key order", () => {
  it("JavaConcurrentHashMapKeys: bins in index order, appended in a bin; a doubling reverses the entries before a bin's last run", () => {
    // "avg_latency", "num_alive_connections" and "max_file_descriptor_count" share bin 2 of 16 and 32; only the last moves to the high half at 64.
    const m = new JavaConcurrentHashMapKeys();
    for (const k of ["avg_latency", "num_alive_connections", "max_file_descriptor_count"]) m.put(k);
    expect([...m]).toEqual(["avg_latency", "num_alive_connections", "max_file_descriptor_count"]);
    for (let i = 0; i < 40; i++) m.put(`k${i}`); // past 12 and 24 entries: 32 bins, then 64
    const order = [...m];
    expect(before(order, "num_alive_connections", "avg_latency")).toBe(true);
    m.remove("avg_latency");
    m.remove("num_alive_connections");
    m.put("avg_latency");
    m.put("num_alive_connections");
    expect(before([...m], "avg_latency", "num_alive_connections")).toBe(true); // no doubling now: appended in order
    expect(m.size).toBe(43);
  });

  it("a server's first start: zk_num_alive_connections before zk_avg_latency (a fresh 3.8.0 ensemble, a standalone server); the recorded order otherwise", () => {
    const leader = mntrKeys(["leader"]);
    expect(gauges(leader)).toEqual(swapped(RECORDED_LEADER_GAUGES));
    expect(gauges(mntrKeys(["follower"]))).toEqual(swapped(RECORDED_LEADER_GAUGES).filter((k) => !LEADER_ONLY.has(k)));
    expect(gauges(mntrKeys(["standalone"]))).toEqual(swapped(RECORDED_LEADER_GAUGES).filter((k) => !LEADER_ONLY.has(k) && k !== "zk_quorum_size"));
    expect(leader.slice(0, 3)).toEqual(["zk_version", "zk_server_state", "zk_peer_state"]);
    expect(mntrKeys(["standalone"]).slice(0, 2)).toEqual(["zk_version", "zk_server_state"]);
    expect([leader.length, mntrKeys(["follower"]).length, mntrKeys(["standalone"]).length]).toEqual([496, 487, 485]);
  });

  it("a server started again in the same JVM (a survivor of a leader crash, as follower or leader): zk_avg_latency first, as the real survivors print", () => {
    expect(gauges(mntrKeys(["follower", "leader"]))).toEqual(RECORDED_LEADER_GAUGES);
    expect(gauges(mntrKeys(["follower", "follower"]))).toEqual(RECORDED_LEADER_GAUGES.filter((k) => !LEADER_ONLY.has(k)));
    expect(gauges(mntrKeys(["leader", "follower", "leader"]))).toEqual(RECORDED_LEADER_GAUGES);
    // The key set is the role's, whatever came before.
    expect(new Set(mntrKeys(["leader", "follower"]))).toEqual(new Set(mntrKeys(["follower"])));
  });
});
