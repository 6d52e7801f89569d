/**
 * `zksim bench serve` as a user runs it, shortened (`ZKSIM_BENCH_SERVE=zksim`, a 200 ms window,
 * 3 crash rounds): against a `zksim serve` child it prints one JSON figure a line — ops/s of both
 * round trips and the leader-crash figures in phases (the client's disconnect, attempts, reconnect
 * and write; a new leader; the survivors' mntr summaries), each crash answered by a write on a new
 * leader — and stops its child.
 * A bad setting of the environment is one line, exit 2.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/zksim.js", import.meta.url));

function bench(env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, "bench", "serve", "--json"], { encoding: "utf8", timeout: 90_000, env: { ...process.env, ...env } });
}

describe("cli: bench serve", () => {
  it("cli: bench serve: figures of our TCP client against zksim serve, one JSON line each, failover in phases", () => {
    const r = bench({ ZKSIM_BENCH_SERVE: "zksim", ZKSIM_BENCH_SERVE_WINDOW_MS: "200", ZKSIM_BENCH_SERVE_CRASH_ROUNDS: "3" });
    expect(r.status).toBe(0);
    const figures = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { bench: string; metric: string; value: number; unit: string });
    const spread = (metric: string, unit = "ms") => ["", "_p25", "_p75", "_min", "_max"].map((q) => `serve-zksim ${metric}${q} ${unit}`);
    expect(figures.map((f) => `${f.bench} ${f.metric} ${f.unit}`)).toEqual([
      "serve-zksim setdata_sync ops/s",
      "serve-zksim getdata_sync ops/s",
      ...spread("leader_crash_to_write"),
      ...spread("leader_crash_to_new_leader"),
      ...spread("leader_crash_to_client_disconnect"),
      ...spread("leader_crash_to_session_reconnected"),
      ...spread("leader_crash_client_connect_attempts", "count"),
      ...spread("failover_election_time"),
      ...spread("failover_leader_unavailable_time"),
      ...spread("failover_follower_sync_time"),
      ...spread("failover_follower_unavailable_time"),
      "serve-zksim crash_rounds count",
      "serve-zksim crash_rounds_client_on_leader count",
    ]);
    const value = new Map(figures.map((f) => [f.metric, f.value]));
    for (const m of ["setdata_sync", "getdata_sync", "leader_crash_to_write", "leader_crash_to_new_leader", "leader_crash_client_connect_attempts"]) expect(value.get(m), m).toBeGreaterThan(0);
    for (const m of ["leader_crash_to_write", "leader_crash_to_new_leader", "failover_election_time", "failover_leader_unavailable_time"]) {
      const ordered = ["_min", "_p25", "", "_p75", "_max"].map((q) => value.get(m + q)!);
      expect([...ordered].sort((a, b) => a - b), m).toEqual(ordered);
    }
    // The simulated election alone takes FastLeaderElection's finalizeWait (200 ms), as the survivors' mntr says.
    expect(value.get("leader_crash_to_new_leader_max")).toBeGreaterThanOrEqual(200);
    expect(value.get("failover_election_time_min")).toBeGreaterThanOrEqual(200);
    expect(value.get("failover_leader_unavailable_time_min")).toBeGreaterThanOrEqual(value.get("failover_election_time_min")!);
    // The write needs the session back first.
    expect(value.get("leader_crash_to_write_max")).toBeGreaterThanOrEqual(value.get("leader_crash_to_session_reconnected_min")!);
    expect(value.get("crash_rounds")).toBe(3);
  }, 100_000);

  it("cli: bench serve: a bad ZKSIM_BENCH_SERVE or ZKSIM_BENCH_SERVE_CRASH_ROUNDS is one line, exit 2", () => {
    const r = bench({ ZKSIM_BENCH_SERVE: "zookeeper-only" });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^zksim: ZKSIM_BENCH_SERVE: expected "zksim" or "zksim,zookeeper", got "zookeeper-only"$/);
    const rounds = bench({ ZKSIM_BENCH_SERVE: "zksim", ZKSIM_BENCH_SERVE_CRASH_ROUNDS: "0" });
    expect(rounds.status).toBe(2);
    expect(rounds.stderr.trim()).toMatch(/^zksim: ZKSIM_BENCH_SERVE_CRASH_ROUNDS: expected a whole number in 1\.\.100, got "0"$/);
  });
});
