import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-2pc", [{ canary: "no-ephemeral-cleanup" }]);
