#!/usr/bin/env node
// Entry point: the compiled CLI lives in dist/ (built by `npm run build`).
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    // Only an internal error reaches here; user mistakes are reported by main() itself.
    console.error(`zksim: internal error: ${err && err.stack ? err.stack : err}`);
    process.exit(3);
  },
);
