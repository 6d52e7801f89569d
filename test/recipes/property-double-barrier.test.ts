import { recipeProperty } from "./property-support.js";

// no-ephemeral-cleanup shows here when a member dies inside the barrier (a generated client crash:
// its session is abandoned and expires) and the others wait on its node for the rest of the run.
// The naive barrier and stale session deadlines are its other twins.
recipeProperty("recipe-double-barrier", [{ canary: "no-ephemeral-cleanup" }, { scenario: "recipe-double-barrier-naive" }, { canary: "stale-session-deadlines" }]);
