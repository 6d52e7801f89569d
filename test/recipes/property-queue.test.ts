import { recipeProperty } from "./property-support.js";

// The queue keeps no ephemeral node, so the server canary no-ephemeral-cleanup is not one of its
// broken twins (it was caught here only through an early-expiry finding of client.sessions that
// counted touches after the client had asked to close its session; 3.8's touchSession ignores a
// closing session, zab-random-faults seed 10275). A server numbering sequential children by their count (sequence-from-child-count) gives two items one name: the property catches it.
recipeProperty("recipe-queue", [{ canary: "sequence-from-child-count" }]);
