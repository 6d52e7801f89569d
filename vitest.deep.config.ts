import { defineConfig } from "vitest/config";
import { SHARED_TEST_OPTIONS } from "./vitest.config.ts";

/** `npm run test:deep`: the long sweeps (`*.deep.test.ts`) that `npm test` leaves out; CI runs both. */
export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: ["test/**/*.deep.test.ts"],
  },
});
