import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-barrier", [{ canary: "no-ephemeral-cleanup" }]);
