import { recipeProperty } from "./property-support.js";

// no-ephemeral-cleanup shows here only when a member dies inside the barrier and its session
// expires in a quiet stretch long enough for recipe.barrier's liveness rule; the property's 30
// generated runs no longer draw that (they did through client.sessions' early-expiry finding, which
// counted touches after a close was asked). The naive barrier and stale session deadlines are its twins.
recipeProperty("recipe-double-barrier", [{ scenario: "recipe-double-barrier-naive" }, { canary: "stale-session-deadlines" }]);
