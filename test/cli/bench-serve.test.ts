/**
 * `zksim bench serve` as a user runs it, shortened (`ZKSIM_BENCH_SERVE=zksim`, a 200 ms window):
 * against a `zksim serve` child it prints one JSON figure a line — ops/s of both round trips and
 * the leader-crash figures (to a write, and to a new leader with a follower), each crash answered
 * by a write on a new leader — and stops its child.
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
  it("cli: bench serve: figures of our TCP client against zksim serve, one JSON line each", () => {
    const r = bench({ ZKSIM_BENCH_SERVE: "zksim", ZKSIM_BENCH_SERVE_WINDOW_MS: "200" });
    expect(r.status).toBe(0);
    const figures = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { bench: string; metric: string; value: number; unit: string });
    expect(figures.map((f) => `${f.bench} ${f.metric} ${f.unit}`)).toEqual([
      "serve-zksim setdata_sync ops/s",
      "serve-zksim getdata_sync ops/s",
      "serve-zksim leader_crash_to_write ms",
      "serve-zksim leader_crash_to_write_min ms",
      "serve-zksim leader_crash_to_write_max ms",
      "serve-zksim leader_crash_to_new_leader ms",
      "serve-zksim leader_crash_to_new_leader_min ms",
      "serve-zksim leader_crash_to_new_leader_max ms",
      "serve-zksim crash_rounds_client_on_leader count",
    ]);
    for (const f of figures.slice(0, 8)) expect(f.value).toBeGreaterThan(0);
    for (const median of [2, 5]) {
      expect(figures[median + 1]!.value).toBeLessThanOrEqual(figures[median]!.value);
      expect(figures[median]!.value).toBeLessThanOrEqual(figures[median + 2]!.value);
    }
    // The simulated election alone takes FastLeaderElection's finalizeWait (200 ms).
    expect(figures[6]!.value).toBeGreaterThanOrEqual(200);
  }, 100_000);

  it("cli: bench serve: a bad ZKSIM_BENCH_SERVE is one line, exit 2", () => {
    const r = bench({ ZKSIM_BENCH_SERVE: "zookeeper-only" });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^zksim: ZKSIM_BENCH_SERVE: expected "zksim" or "zksim,zookeeper", got "zookeeper-only"$/);
  });
});
