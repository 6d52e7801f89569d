import { defineConfig } from "vitest/config";

/**
 * `npm test`: every test but the long sweeps (`*.deep.test.ts`), which `npm run test:deep` runs
 * (vitest.deep.config.ts); CI runs both (.ci/run).
 */
export const SHARED_TEST_OPTIONS = {
  // A bound on a hang, not on speed (speed is bench's: docs/benchmarks.md): two files share the
  // two cores, and CI's machine is shared too.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: "forks",
  // Two test files at a time (vitest's default on 2 cores is one: cores − 1). The files that
  // watch the wall clock are kept out of this and run alone afterwards (WALL_CLOCK_TESTS).
  maxWorkers: 2,
  setupFiles: ["test/helpers/fast-check-seed.ts"],
  // The built program (dist/, which the CLI tests call in-process: test/helpers/cli.ts) is loaded
  // by Node itself, as bin/zksim.js loads it: not transformed again, and with its real
  // import.meta.url (explore's worker threads are found by it).
  server: { deps: { external: [/\/dist\//] } },
} as const;

/**
 * The files of test/serve/ that open no socket and read no clock (zoo.cfg, JAAS and fault-command
 * parsers, `mntr`'s key order, the served workload's simulation): they run with the others.
 */
const CLOCK_FREE_SERVE_TESTS = ["zoo-cfg", "served-workload", "mntr-keys", "server-auth", "fault-command"];

/**
 * Tests whose outcome depends on the wall clock or on other processes keeping pace: zksim serve
 * on real sockets (its simulation paced by the clock, sessionless-connection and held-connect
 * expiries of seconds), the real zkCli.sh and the npm client, the TCP runtime, the tmux end to
 * end, child processes signalled after a delay (explore's SIGINT/SIGTERM) and the serve
 * benchmark's figures. They run one file at a time, after the others, so no other test file
 * competes with them for the 2 cores (docs/testing.md).
 */
export const WALL_CLOCK_TESTS = [
  `test/serve/**/!(${CLOCK_FREE_SERVE_TESTS.join("|")}).test.ts`,
  "test/runtime/**/*.test.ts",
  "test/conformance/**/*.test.ts",
  "test/tui/e2e.test.ts",
  "test/cli/explore-signals.test.ts",
  "test/cli/bench-serve.test.ts",
];

const DEEP = "test/**/*.deep.test.ts";

export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
          exclude: [DEEP, ...WALL_CLOCK_TESTS, "**/node_modules/**"],
          // Each of the two workers runs its files one after another in one process, loading
          // src/ once instead of once per file (vitest's "import" was 144 s summed over the
          // files, a fresh process each); the setup file still runs before every file, and
          // vitest restores spies and mocks between files. A test file must therefore leave
          // the process as it found it: no global left patched, no handler left installed
          // (docs/testing.md, "Workers and the wall-clock group").
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "wall-clock",
          include: WALL_CLOCK_TESTS,
          exclude: [DEEP, "**/node_modules/**"],
          fileParallelism: false,
          // One process runs them all, one after another (vitest hands a non-isolated single
          // worker every file at once): a fresh process per file cost about 1.3 s of this
          // group's wall clock a file. The same rule as the parallel project's: a file leaves
          // the process as it found it (every serve closed, every client and child stopped).
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
