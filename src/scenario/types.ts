/**
 * The scenario format: data (cluster shape, network and disk settings, a workload, a fault
 * schedule, checkers) that composes named workloads and checkers, FoundationDB-style. One
 * scenario and one seed determine a run.
 */
import type { Fault } from "../sim/faults.js";
import type { NetworkConfig } from "../sim/network.js";
import type { DiskConfig } from "../sim/disk.js";
import type { Checker, UnknownVerdict, Violation } from "../check/checker.js";
import type { HeapGuardOptions } from "./heap-guard.js";
import type { SimplifyRange, StreamDraws } from "../sim/decision-tape.js";
import type { AnyCanary } from "./canaries.js";
import type { JudgedSummary } from "./judged.js";

export interface Scenario {
  name: string;
  description: string;
  tags: string[];
  /** The seed used when the command line gives none. */
  defaultSeed: number;
  durationMs: number;
  network: Partial<NetworkConfig>;
  disk: Partial<DiskConfig>;
  workload: { kind: string; params: Record<string, unknown> };
  faults: Fault[];
  /**
   * The fault generator whose schedule is drawn from the seed before the run and added to
   * `faults` (src/scenario/nemesis/); a saved case lists the drawn faults instead.
   */
  nemesis?: { kind: string; params: Record<string, unknown> };
  checkers: string[];
  /**
   * The run shape's last phase (TigerBeetle's liveness mode). After `durationMs`, every fault
   * still in force ends (`endAllFaults`: the network heals, paused nodes resume, crashed nodes
   * restart, clocks run true, disks recover) and the run goes on until `budgetMs` have passed
   * since the last fault, so the liveness checkers judge a healed system. A run with no fault
   * at all is not extended. Absent: on, with `DEFAULT_CONVERGENCE_BUDGET_MS`; `false` opts out.
   */
  convergence?: { budgetMs: number } | false;
  /**
   * The protocol's documented flaws that this scenario shows on purpose (2PC blocks when its
   * coordinator is down; 3PC loses atomicity under a partition): a violation of one of these
   * checkers is reported as "expected", apart from failures, and alone does not fail the run.
   * A broken build (a `--variant` twin, a canary, a re-injected bug) runs without them: its
   * question is whether any checker catches it. Absent: none.
   */
  expectedViolations?: ExpectedViolationDecl[];
}

/**
 * One declared flaw: the checker that reports it and, in one sentence, why it is expected.
 * `always`: the flaw is the scenario's lesson and shows on every run of it; a run of a correct
 * build where the checker reports nothing fails (`scenario.expected-flaw`, verdict.ts) — the
 * protocol no longer behaves as the book says (2PC that stops blocking is not the book's 2PC).
 */
export interface ExpectedViolationDecl {
  checker: string;
  why: string;
  always?: boolean;
}

/**
 * A run's verdict: "pass" (no violation), "expected" (every violation is of a checker the
 * scenario declares in `expectedViolations`: a documented flaw, not a regression), "fail".
 */
export type Verdict = "pass" | "expected" | "fail";

/** The convergence phase's default budget: the liveness checker's window. */
export const DEFAULT_CONVERGENCE_BUDGET_MS = 40_000;

export interface RunOptions {
  seed?: number;
  /** Keep every trace event (for `--trace`, divergence reports, the UI). */
  retainTrace?: boolean;
  keepHashes?: boolean;
  /** Canaries: deliberately broken builds that the checkers must catch (`--canary` accepts those a scenario catches; a test may run any). */
  canary?: AnyCanary;
  /** Historical ZooKeeper defects to re-inject (the bug zoo). */
  bugs?: readonly string[];
  /**
   * Decision-stream simplification (`zksim shrink`): the draws in these ranges take their
   * simplest values. Given at all (even empty), the run carries a decision tape and its
   * result reports the draws per stream (`RunResult.decisions`); empty, it changes nothing.
   */
  simplify?: readonly SimplifyRange[];
  /**
   * The heap guard (scenario/heap-guard.ts): stop the run with a one-line HeapLimitError before
   * the heap runs out. Default: V8's used heap against 90% of its limit; false: off.
   */
  heapGuard?: HeapGuardOptions | false;
  /**
   * Where the run finds its workload and checkers by name (default: the built-in registry); a
   * layer above adds its own workloads, e.g. one built around a user's script (src/api/).
   */
  registry?: import("./registry.js").Registry;
  /** Checkers beyond the scenario's named ones, one fresh instance per run (a user's own). */
  extraCheckers?: readonly (() => Checker)[];
  /** Record which fault kinds and protocol states the run reached (`RunResult.coverage`; scenario/coverage.ts). */
  coverage?: boolean;
  /**
   * How many events the checkers are handed at a time (check/checker.ts
   * `subscribeCheckersInBatches`; default `CHECK_BATCH_EVENTS`, 4096); 1 hands each event as it is
   * recorded. The verdict is the same either way; batches cost less CPU.
   */
  checkerBatchEvents?: number;
  /** Extra trace listeners (e.g. the CLI's trace file writer). */
  onTraceEvent?: (event: import("../sim/trace.js").TraceEvent) => void;
}

/** Canaries: deliberately broken builds; the registry (canaries.ts) says what each breaks and what catches it. */
export { CANARIES, type Canary, type AnyCanary } from "./canaries.js";

export interface RunResult {
  scenario: string;
  seed: number;
  traceHash: string;
  events: number;
  virtualMs: number;
  verdict: Verdict;
  /** Every violation, the expected ones included (they decide the verdict, not the list). */
  violations: Violation[];
  /**
   * Stretches a checker could not judge (a search budget ran out): not violations, and not a
   * failure of the system under test; the verdict is "pass" when there are only these. Listed so
   * that a pass with gaps is never mistaken for a full pass (docs/long-runs.md).
   */
  unknown: UnknownVerdict[];
  /** How much of the run its checkers judged: the fraction, and the checkers that read nothing (scenario/judged.ts). */
  judged: JudgedSummary;
  /** A few narrated lines: what happened, in the protocol's own words. */
  narrative: string[];
  /** Counts of trace events by kind. */
  counts: Record<string, number>;
  /** The coverage features the run reached, sorted, when `RunOptions.coverage` asked for them. */
  coverage?: string[];
  /** Draws per random stream, when the run had a decision tape (`RunOptions.simplify`). */
  decisions?: StreamDraws[];
}
