import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-group-membership", [{ canary: "no-ephemeral-cleanup" }]);
