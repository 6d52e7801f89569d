import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-double-barrier", [{ scenario: "recipe-double-barrier-naive" }, { canary: "no-ephemeral-cleanup" }]);
