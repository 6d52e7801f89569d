#!/usr/bin/env -S node --max-semi-space-size=64
// Entry point: the compiled CLI lives in dist/ (built by `npm run build`).
// --max-semi-space-size=64: a run allocates many short-lived objects (packets, events,
// promises); a 64 MiB young-generation semi-space (V8's default here is 16) cuts scavenges by
// about 60% and runs 5-10% faster. `npm start` and `npm run bench` pass the same flag.
import { holdTypeahead } from "../dist/tui/typeahead.js";

// `zksim learn` in a terminal: keys typed while it starts are kept for the app, not echoed
// (the terminal goes to raw mode before the CLI is even loaded; see src/tui/typeahead.ts).
holdTypeahead(process.argv.slice(2));
const { main } = await import("../dist/cli/main.js");

// Exits once what was written has left the process: a pipe whose reader is slow takes writes
// asynchronously, and a bare process.exit() would cut the tail (explore's summary after a
// Ctrl-C lost its last line that way under load). An empty write's callback runs after every
// earlier write of that stream is flushed.
const flushed = (stream) => new Promise((resolve) => stream.write("", resolve));
const exit = (code) => Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit(code));

main(process.argv.slice(2)).then(
  (code) => exit(code),
  (err) => {
    // A run that stopped itself before the heap ran out: its message is the whole report.
    if (err && err.name === "HeapLimitError") {
      console.error(`zksim: ${err.message}`);
      return exit(3);
    }
    // Only an internal error reaches here; user mistakes are reported by main() itself.
    console.error(`zksim: internal error: ${err && err.stack ? err.stack : err}`);
    return exit(3);
  },
);
