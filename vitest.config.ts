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
} as const;

export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    exclude: ["test/**/*.deep.test.ts", "**/node_modules/**"],
  },
});
