/**
 * The recipe properties' long sweep (`npm run test:deep`, which CI runs after `npm test`): every
 * recipe with a property file here (test/recipes/property-<recipe>.test.ts, which `npm test` runs
 * with its first cases and its broken twins) over all of its DEEP_RUNS generated cases.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { recipePropertySweep } from "./property-support.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const recipes = readdirSync(here)
  .map((f) => /^property-(.+)\.test\.ts$/.exec(f)?.[1])
  .filter((r): r is string => r !== undefined && !r.endsWith(".deep"))
  .sort();

if (recipes.length === 0) throw new Error(`no test/recipes/property-<recipe>.test.ts file under ${here}`);
for (const recipe of recipes) recipePropertySweep(`recipe-${recipe}`);
