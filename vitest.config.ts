import { defineConfig } from "vitest/config";

/**
 * `npm test`: every test but the long sweeps (`*.deep.test.ts`), which `npm run test:deep` runs
 * (vitest.deep.config.ts); CI runs both (.ci/run).
 */
export const SHARED_TEST_OPTIONS = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: "forks",
  setupFiles: ["test/helpers/fast-check-seed.ts"],
  // The built program (dist/, which the CLI tests call in-process: test/helpers/cli.ts) is loaded
  // by Node itself, as bin/zksim.js loads it: not transformed again, and with its real
  // import.meta.url (explore's worker threads are found by it).
  server: { deps: { external: [/\/dist\//] } },
} as const;

export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    exclude: ["test/**/*.deep.test.ts", "**/node_modules/**"],
  },
});
