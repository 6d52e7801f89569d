/**
 * One fast-check seed for every property that does not name its own, so that `npm test` runs
 * the same cases on every machine and a red CI can be replayed. `ZKSIM_FC_SEED=<n> npm test`
 * explores other cases (the recipe properties read the same variable).
 */
import fc from "fast-check";

const seed = Number(process.env.ZKSIM_FC_SEED ?? 6);
if (!Number.isSafeInteger(seed)) throw new Error(`ZKSIM_FC_SEED must be an integer, got ${process.env.ZKSIM_FC_SEED}`);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
