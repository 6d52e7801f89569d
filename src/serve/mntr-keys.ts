/**
 * The keys 3.8.0's `mntr` prints, in its order, for each kind of server (MonitorCommand:
 * `dumpMonitorValues`, then the metrics provider's maps). The gauges' order is computed: that of
 * the provider's `ConcurrentHashMap` after the gauges this JVM's servers registered and
 * unregistered (`gaugeOrder`); the counters and summaries after them were recorded from Debian's
 * 3.8.0 on this machine (a standalone server; the leader and a follower of a 3-member ensemble),
 * the same for every kind. A token is one key without its `zk_` prefix, or a summary: `name*`
 * stands for `zk_{avg,min,max,cnt,sum}_name`, `name%` for those and `zk_{p50,p95,p99,p999}_name`.
 * Left out: the keys 3.8 adds at run time, one summary per learner on a leader
 * (`zk_avg_<sid>_learner_handler_qp_size`, …) and two per top-level znode read or written
 * (`zk_avg_<name>_read_per_namespace`, `zk_avg_<name>_write_per_namespace`, …), which 3.8 prints last.
 */
import { JavaConcurrentHashMapKeys } from "../zk/server/java-hash-set.js";

/** The metrics provider's counters and summaries after the gauges (a leader's; the others' leave none out). */
const METRIC_TOKENS: readonly string[] = [
  "proposal_count", "watch_bytes", "outstanding_changes_removed", "throttled_ops",
  "stale_requests_dropped", "large_requests_rejected", "insecure_admin_count", "connection_rejected",
  "cnxn_closed_without_zk_server_running", "sessionless_connections_expired", "looking_count",
  "dead_watchers_queued", "stale_requests", "connection_drop_count", "learner_proposal_received_count",
  "digest_mismatches_count", "dead_watchers_cleared", "response_packet_cache_hits", "bytes_received_count",
  "add_dead_watcher_stall_time", "request_throttle_wait_count", "requests_not_forwarded_to_commit_processor",
  "response_packet_cache_misses", "ensemble_auth_success", "prep_processor_request_queued",
  "learner_commit_received_count", "stale_replies", "connection_request_count", "response_bytes",
  "ensemble_auth_fail", "diff_count", "response_packet_get_children_cache_misses", "connection_revalidate_count",
  "quit_leading_due_to_disloyal_voter", "snap_count", "unrecoverable_error_count", "unsuccessful_handshake",
  "commit_count", "stale_sessions_expired", "response_packet_get_children_cache_hits",
  "sync_processor_request_queued", "outstanding_changes_queued", "request_commit_queued", "ensemble_auth_skip",
  "skip_learner_request_to_next_processor_count", "tls_handshake_exceeded", "revalidate_count",
  "socket_closing_time*", "proposal_process_time*", "leader_unavailable_time*", "node_created_watch_count*",
  "session_queues_drained*", "write_commit_proc_req_queued*", "connection_token_deficit*",
  "read_commit_proc_req_queued*", "node_deleted_watch_count*", "startup_txns_load_time*",
  "sync_processor_queue_size*", "follower_sync_time*", "prep_processor_queue_size*", "fsynctime*",
  "inflight_snap_count*", "reads_issued_from_session_queue*", "learner_request_processor_queue_size*",
  "snapshottime*", "unavailable_time*", "startup_txns_loaded*", "reads_after_write_in_session_queue*",
  "requests_in_session_queue*", "write_commit_proc_issued*", "prep_process_time*", "pending_session_queue_size*",
  "time_waiting_empty_pool_in_commit_processor_read_ms*", "commit_process_time*", "dbinittime*",
  "inflight_diff_count*", "netty_queued_buffer_capacity*", "election_time*", "commit_commit_proc_req_queued*",
  "sync_processor_batch_size*", "node_children_watch_count*", "write_batch_time_in_commit_processor*",
  "read_commit_proc_issued*", "concurrent_request_processing_in_commit_processor*", "observer_sync_time*",
  "node_changed_watch_count*", "sync_process_time*", "startup_snap_load_time*", "prep_processor_queue_time_ms%",
  "jvm_pause_time_ms%", "close_session_prep_time%", "read_commitproc_time_ms%", "updatelatency%",
  "local_write_committed_time_ms%", "request_throttle_queue_time_ms%", "readlatency%", "quorum_ack_latency%",
  "om_commit_process_time_ms%", "read_final_proc_time_ms%", "commit_propagation_latency%",
  "dead_watchers_cleaner_latency%", "write_final_proc_time_ms%", "proposal_ack_creation_latency%",
  "proposal_latency%", "om_proposal_process_time_ms%", "sync_processor_queue_and_flush_time_ms%",
  "propagation_latency%", "server_write_committed_time_ms%", "sync_processor_queue_time_ms%",
  "sync_processor_queue_flush_time_ms%", "write_commitproc_time_ms%",
];

/**
 * The gauges each kind of ZooKeeperServer registers as it starts (`registerMetrics`), in 3.8.0's
 * order: ZooKeeperServer's, then QuorumZooKeeperServer's `quorum_size`, then a Follower's or a
 * Leader's own. `unregisterMetrics` at its shutdown removes them all but `outstanding_tls_handshake`
 * (3.8.0 never unregisters it). A follower's `synced_observers` has no value (no observer master)
 * and is not printed, but it holds its place in the map.
 */
const SERVER_GAUGES: readonly string[] = [
  "avg_latency", "max_latency", "min_latency", "packets_received", "packets_sent", "num_alive_connections",
  "outstanding_requests", "uptime", "znode_count", "watch_count", "ephemerals_count", "approximate_data_size",
  "global_sessions", "local_sessions", "open_file_descriptor_count", "max_file_descriptor_count",
  "connection_drop_probability", "last_client_response_size", "max_client_response_size", "min_client_response_size",
  "outstanding_tls_handshake", "auth_failed_count", "non_mtls_remote_conn_count", "non_mtls_local_conn_count",
];
const NEVER_UNREGISTERED = "outstanding_tls_handshake";
const LEADER_GAUGES: readonly string[] = ["learners", "synced_followers", "synced_non_voting_followers", "synced_observers", "pending_syncs", "leader_uptime", "last_proposal_size", "max_proposal_size", "min_proposal_size"];

/** The kind of server whose ZooKeeperServer started (and registered its gauges). */
export type MntrServerKind = "standalone" | "follower" | "observer" | "leader";

function gaugesOf(kind: MntrServerKind): readonly string[] {
  switch (kind) {
    case "standalone":
      return SERVER_GAUGES;
    case "observer":
      return [...SERVER_GAUGES, "quorum_size"];
    case "follower":
      return [...SERVER_GAUGES, "quorum_size", "synced_observers"];
    case "leader":
      return [...SERVER_GAUGES, "quorum_size", ...LEADER_GAUGES];
  }
}

/**
 * The gauges' order in the metrics provider's `ConcurrentHashMap` after this JVM's servers
 * started one after the other (`started`, the last one serving now): each registered its gauges
 * and the one before it unregistered its own. A server's first start leaves
 * `num_alive_connections` before `avg_latency` (the table's doubling from 32 to 64 reverses them),
 * a later start after it: both as a real 3.8.0 prints them (a fresh ensemble, then the survivors
 * of a leader crash).
 */
function gaugeOrder(started: readonly MntrServerKind[]): string[] {
  const gauges = new JavaConcurrentHashMapKeys();
  started.forEach((kind, i) => {
    if (i > 0) for (const g of gaugesOf(started[i - 1]!)) if (g !== NEVER_UNREGISTERED) gauges.remove(g);
    for (const g of gaugesOf(kind)) gauges.put(g);
  });
  const printed = new Set(started.at(-1) === "follower" ? gaugesOf("follower").filter((g) => g !== "synced_observers") : gaugesOf(started.at(-1)!));
  return [...gauges].filter((g) => printed.has(g));
}

/**
 * The `zk_…` keys of `mntr` on a server whose ZooKeeperServers of this JVM (incarnation) started
 * as `started` (the last one serving now), in 3.8.0's order: `version`, `server_state` (and a
 * quorum member's `peer_state`), the gauges, the counters and summaries. An observer prints a
 * follower's keys (not compared with a real one).
 */
export function mntrKeys(started: readonly MntrServerKind[]): string[] {
  const kind = started.at(-1) ?? "standalone";
  const head = ["version", "server_state", ...(kind === "standalone" ? [] : ["peer_state"])];
  const tokens = [...head, ...gaugeOrder(started.length > 0 ? started : ["standalone"]), ...METRIC_TOKENS];
  return tokens.flatMap((t) => {
    const name = t.slice(0, -1);
    if (t.endsWith("*")) return SUMMARY.map((p) => `zk_${p}_${name}`);
    if (t.endsWith("%")) return [...SUMMARY, ...PERCENTILES].map((p) => `zk_${p}_${name}`);
    return [`zk_${t}`];
  });
}

const SUMMARY = ["avg", "min", "max", "cnt", "sum"];
const PERCENTILES = ["p50", "p95", "p99", "p999"];
