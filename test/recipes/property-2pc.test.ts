import { recipeProperty } from "./property-support.js";

// The 2PC recipe keeps no ephemeral node, so the server canary no-ephemeral-cleanup is not one of
// its broken twins (it was caught here only through an early-expiry finding of client.sessions that
// counted touches after the client had asked to close its session; 3.8's touchSession ignores a
// closing session, zab-random-faults seed 10275). A server that keeps stale session deadlines is.
// It shows only when a leader change meets a session idle since the old leader last heard it: 4 of
// `explore recipe-2pc --generate --canary stale-session-deadlines` seeds 1–60 (the plans draw the
// whole fault vocabulary, leader changes among it), so the twin gets 100 runs.
recipeProperty("recipe-2pc", [{ canary: "stale-session-deadlines", runs: 100 }]);
