/**
 * The keys 3.8.0's `mntr` prints, in its order, for each kind of server: recorded from Debian's
 * 3.8.0 on this machine (a standalone server; the leader and a follower of a 3-member ensemble).
 * The order is that of the Java hash maps the server and its metrics provider dump, which depends
 * only on the set of keys. A token is one key without its `zk_` prefix, or a summary: `name*`
 * stands for `zk_{avg,min,max,cnt,sum}_name`, `name%` for those and `zk_{p50,p95,p99,p999}_name`.
 *
 * A follower (and here an observer) prints the leader's keys but the leader's own; a standalone
 * server the follower's but the quorum's, with `num_alive_connections` before `avg_latency`.
 * Left out: the keys 3.8 adds at run time, one summary per learner on a leader
 * (`zk_avg_<sid>_learner_handler_qp_size`, …) and two per top-level znode read or written
 * (`zk_avg_<name>_read_per_namespace`, `zk_avg_<name>_write_per_namespace`, …), which 3.8 prints last.
 */
const LEADER_TOKENS: readonly string[] = [
  "version", "server_state", "peer_state", "ephemerals_count", "avg_latency", "num_alive_connections",
  "min_proposal_size", "outstanding_requests", "znode_count", "global_sessions", "non_mtls_remote_conn_count",
  "last_client_response_size", "packets_sent", "packets_received", "max_proposal_size", "max_client_response_size",
  "synced_followers", "connection_drop_probability", "watch_count", "synced_non_voting_followers",
  "synced_observers", "auth_failed_count", "min_latency", "max_file_descriptor_count", "approximate_data_size",
  "open_file_descriptor_count", "last_proposal_size", "pending_syncs", "leader_uptime", "local_sessions", "uptime",
  "max_latency", "outstanding_tls_handshake", "learners", "min_client_response_size", "non_mtls_local_conn_count",
  "quorum_size", "proposal_count", "watch_bytes", "outstanding_changes_removed", "throttled_ops",
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

const LEADER_ONLY = new Set(["min_proposal_size", "max_proposal_size", "synced_followers", "synced_non_voting_followers", "synced_observers", "last_proposal_size", "pending_syncs", "leader_uptime", "learners"]);
const QUORUM_ONLY = new Set(["peer_state", "quorum_size"]);

const FOLLOWER_TOKENS = LEADER_TOKENS.filter((t) => !LEADER_ONLY.has(t));
const STANDALONE_TOKENS = FOLLOWER_TOKENS.filter((t) => !QUORUM_ONLY.has(t)).map((t) => (t === "avg_latency" ? "num_alive_connections" : t === "num_alive_connections" ? "avg_latency" : t));

/** The `zk_…` keys of `mntr` on this kind of server, in 3.8.0's order. */
export function mntrKeys(kind: "standalone" | "follower" | "leader"): string[] {
  const tokens = kind === "leader" ? LEADER_TOKENS : kind === "follower" ? FOLLOWER_TOKENS : STANDALONE_TOKENS;
  return tokens.flatMap((t) => {
    const name = t.slice(0, -1);
    if (t.endsWith("*")) return SUMMARY.map((p) => `zk_${p}_${name}`);
    if (t.endsWith("%")) return [...SUMMARY, ...PERCENTILES].map((p) => `zk_${p}_${name}`);
    return [`zk_${t}`];
  });
}

const SUMMARY = ["avg", "min", "max", "cnt", "sum"];
const PERCENTILES = ["p50", "p95", "p99", "p999"];
